/**
 * Reads one market's view for `hello` and the files route: newest seq and scan, the newest retained
 * checkpoint and the change files after it (from the merge log), the file state (sealed periods, newest
 * day, volume and snapshot files) and the day caps that exist, today's made on first need.
 */
import { dayOf } from '../clock';
import { capDays } from '../domain/caps';
import type { Services } from '../services';
import type { MarketView } from './messages';

/** The market's view as of now, for `hello` and the files route. */
export async function loadMarketView(svc: Pick<Services, 'clock' | 'market'>, market: string): Promise<MarketView> {
  const now = svc.clock.now();
  const today = dayOf(now);
  const log = svc.market.merges;
  const caps = svc.market.caps;
  const days = capDays(today);
  const [meta, checkpoint, files, m1, h1] = await Promise.all([
    svc.market.pages.meta(market),
    log.newestCheckpoint(market, now),
    svc.market.filesState.get(market),
    caps.dayCaps(market, 'm1', days.m1[0], today),
    caps.dayCaps(market, 'h1', days.h1[0], today),
  ]);
  if (!m1.has(today) || !h1.has(today)) {
    const made = await caps.ensureDay(market, today);
    m1.set(today, made.m1);
    h1.set(today, made.h1);
  }
  const records = await log.after(market, checkpoint?.seq ?? 0, now);
  // A merge leaves its record just before it commits its seq: the record's files exist, so it counts.
  const newest = records.length > 0 ? records[records.length - 1] : checkpoint;
  const ahead = newest !== null && newest.seq > meta.seq;
  return {
    market,
    seq: ahead ? newest.seq : meta.seq,
    at: ahead ? newest.at : meta.newestScanAt,
    checkpoint: checkpoint?.checkpointPath ? { seq: checkpoint.seq, path: checkpoint.checkpointPath } : null,
    changes: records.map((r) => ({ seq: r.seq, path: r.changePath })),
    files,
    m1DayCaps: m1,
    h1DayCaps: h1,
  };
}
