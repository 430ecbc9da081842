/**
 * The merge's alert evaluation (spec "Alert evaluation"): every enabled alert of the market is evaluated at the
 * merge's server time against the rows after the merge. It runs after the merge's rows are written and before
 * its seq commit, so nothing is left to do once the seq commits, and a merge cut short anywhere before repeats
 * it on redelivery: the repeat evaluates at the same time, alerts the earlier attempt saved as fired fire
 * nothing twice (their state says so), and the pushes of every firing of the seq, the earlier attempt's
 * included, are read back from their fired records and sent. A failure here fails the merge, which is received
 * again and repeats it (the pushes are at least once, like the queue that carries them).
 */
import { evaluateAlerts, pushFired } from '../alerts/evaluate';
import type { Scan } from '../domain/derived-scan';
import type { RowTable } from '../domain/merge';
import type { MarketMeta, PendingMerge } from '../ports/market';
import type { Services } from '../services';
import { dayCloses } from './day-closes';

/** Evaluates the market's alerts for the merge of `scan` under `pending`; `repeated` when an earlier attempt may have fired some. */
export async function evaluateMergeAlerts(
  svc: Pick<Services, 'config' | 'clock' | 'queues' | 'settings' | 'identity' | 'market' | 'log'>,
  meta: MarketMeta,
  scan: Scan,
  rows: RowTable,
  pending: PendingMerge,
  repeated: boolean,
): Promise<void> {
  const { fired } = await evaluateAlerts(
    svc,
    meta.market,
    { at: scan.at, rows, dayCloses: (keys, beforeDay) => dayCloses(svc, meta, keys, beforeDay) },
    { now: pending.now, seq: pending.seq, push: false },
  );
  if (!repeated) return pushFired(svc, fired);
  const all = (await svc.settings.firedAt(meta.market, pending.now)).filter((r) => r.seq === pending.seq);
  await pushFired(svc, all);
}
