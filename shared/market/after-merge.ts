/**
 * What follows a committed merge (spec "Alert evaluation"): every enabled alert of the market is evaluated
 * at server time against the rows after the merge. It runs after the seq commit, so a failure here is
 * logged and never repeats the merge.
 */
import { evaluateAlerts } from '../alerts/evaluate';
import type { Scan } from '../domain/derived-scan';
import type { RowTable } from '../domain/merge';
import type { Services } from '../services';
import type { MarketMeta } from '../store/market-store';
import { dayCloses } from './day-closes';

/** Evaluates the market's alerts after a merge of `scan` (disagrees uploads never get here). */
export async function afterMerge(svc: Services, meta: MarketMeta, scan: Scan, rows: RowTable): Promise<void> {
  try {
    await evaluateAlerts(svc, meta.market, { at: scan.at, rows, dayCloses: (keys, beforeDay) => dayCloses(svc, meta, keys, beforeDay) });
  } catch (err) {
    svc.log('error', 'merge: alert evaluation failed', { market: meta.market, error: err instanceof Error ? err.stack : String(err) });
  }
}
