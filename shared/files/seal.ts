/**
 * The seal job (every minute; spec files-and-live "Candle blocks", Capability files, Public files): writes
 * each finished period's candle files once, from the market's first merge on, then moves the market's
 * `sealed` state, whose stream record the fan-out turns into `sealed` messages.
 *
 * - m1: the minute block `candles/v1/m1/<market>/<cap>/<block>.json.gz` (cap of the block's UTC day);
 * - h1: the public hour file and its capped copy `h1c` (cap of the hour's UTC day), written together so
 *   the copy exists when the hour ages past the 7 listed days;
 * - d1: the public 7-day file, the full 90-day file `d1c` and the volume file (one cap per file each).
 */
import { dayOf, HOUR_MS, MINUTE_MS } from '../clock';
import type { CandlePage } from '../domain/candles';
import { BLOCK_MS, cappedHourPath, dayCandlesPath, fullDayCandlesPath, hourCandlesPath, minuteBlockPath, volumePath } from '../domain/file-paths';
import type { FilesState, SealRes } from '../domain/files-state';
import { MARKETS } from '../domain/market';
import { compactHistories } from '../market/history-compaction';
import type { MarketCaps, MarketMeta, MarketPages } from '../ports/market';
import type { Services } from '../services';
import { type Candle, dayCandlesDoc, hourCandlesDoc, minuteBlockDoc, type VolumeEstimate, volumeDoc } from './documents';
import { putJsonFile } from './file-store';
import { inParallel } from './in-parallel';
import { periodsToSeal } from './seal-plan';

/** Periods written between two state updates: bounds the work a crash repeats and the notices a catch-up sends. */
const STATE_EVERY = 36;

export interface SealOutcome {
  market: string;
  /** Periods written per resolution by this run. */
  written: Record<SealRes, number[]>;
}

interface SealContext {
  svc: Pick<Services, 'config' | 'clock' | 'market' | 'files' | 'log'>;
  store: MarketPages;
  caps: MarketCaps;
  market: string;
  meta: MarketMeta;
  now: number;
  /** Reading spans of hours, per run. */
  spans: Map<number, Promise<{ from: number; to: number } | null>>;
}

/** The list under `key`, made when missing. */
function listOf<T>(map: Map<number, T[]>, key: number): T[] {
  let list = map.get(key);
  if (!list) {
    list = [];
    map.set(key, list);
  }
  return list;
}

const range = (first: number, last: number): number[] => Array.from({ length: last - first + 1 }, (_, i) => first + i);

/** The minute candles of a block's 10 minutes, per item: `[minute, candle][]`. */
async function blockCandles(store: MarketPages, market: string, block: number): Promise<Map<number, [number, Candle][]>> {
  const first = (block * BLOCK_MS) / MINUTE_MS;
  const minutes = range(first, first + BLOCK_MS / MINUTE_MS - 1);
  const pages = await Promise.all(minutes.map((m) => store.candlePage(market, 'm1', m)));
  const out = new Map<number, [number, Candle][]>();
  pages.forEach((page, i) => {
    for (const [key, c] of page) {
      listOf(out, key).push([minutes[i], c]);
    }
  });
  return out;
}

/** Day candles and volume estimates of days `first … last`, per item. */
export async function dayHistory(store: Pick<MarketPages, 'candlePage' | 'volumePage'>, market: string, first: number, last: number) {
  const days = range(first, last);
  const pages = await inParallel(days, async (d) => [d, await store.candlePage(market, 'd1', d), await store.volumePage(market, d)] as const);
  const candles = new Map<number, [number, Candle][]>();
  const volume = new Map<number, VolumeEstimate[]>();
  for (const [d, page, vol] of pages) {
    for (const [key, c] of page as CandlePage) {
      listOf(candles, key).push([d, c]);
    }
    for (const [key, [listed, sold, expired]] of vol) {
      listOf(volume, key).push([d, listed, sold, expired]);
    }
  }
  return { candles, volume };
}

/**
 * The span of readings in an hour, from its hour candles (each spans its item's first and last reading of the
 * hour): a block outside it has no minute candles, so an idle market costs one read per hour, not sixty.
 */
function readingSpan(ctx: SealContext, hour: number): Promise<{ from: number; to: number } | null> {
  let hit = ctx.spans.get(hour);
  if (!hit) {
    hit = ctx.store.candlePage(ctx.market, 'h1', hour).then((page) => {
      let from = Number.POSITIVE_INFINITY;
      let to = Number.NEGATIVE_INFINITY;
      for (const c of page.values()) {
        if (c.openAt < from) from = c.openAt;
        if (c.lastAt > to) to = c.lastAt;
      }
      return page.size > 0 ? { from, to } : null;
    });
    ctx.spans.set(hour, hit);
  }
  return hit;
}

async function sealBlock(ctx: SealContext, block: number): Promise<Record<string, string>> {
  const start = block * BLOCK_MS;
  const [cap, span] = await Promise.all([
    ctx.caps.create({ kind: 'm1', market: ctx.market, day: dayOf(start) }),
    readingSpan(ctx, Math.floor(start / HOUR_MS)),
  ]);
  const path = minuteBlockPath(ctx.market, cap, block);
  const active = span !== null && span.from < start + BLOCK_MS && span.to >= start;
  const candles = active ? await blockCandles(ctx.store, ctx.market, block) : new Map<number, [number, Candle][]>();
  await putJsonFile(ctx.svc, path, minuteBlockDoc(ctx.market, block, candles));
  return { m1Path: path };
}

async function sealHour(ctx: SealContext, hour: number): Promise<Record<string, string>> {
  const day = Math.floor(hour / 24);
  const [cap, page] = await Promise.all([ctx.caps.create({ kind: 'h1', market: ctx.market, day }), ctx.store.candlePage(ctx.market, 'h1', hour)]);
  const doc = hourCandlesDoc(ctx.market, hour, page);
  const path = hourCandlesPath(ctx.market, hour);
  await Promise.all([putJsonFile(ctx.svc, path, doc), putJsonFile(ctx.svc, cappedHourPath(ctx.market, cap, hour), doc)]);
  return { h1Path: path };
}

async function sealDay(ctx: SealContext, day: number): Promise<Record<string, string>> {
  const { market } = ctx;
  const [d1Cap, volumeCap, history] = await Promise.all([
    ctx.caps.create({ kind: 'd1', market, day }),
    ctx.caps.create({ kind: 'volume', market, day }),
    dayHistory(ctx.store, market, day - 89, day),
  ]);
  const paths = { d1Path: dayCandlesPath(market, day), d1cPath: fullDayCandlesPath(market, d1Cap, day), volumePath: volumePath(market, volumeCap, day) };
  await Promise.all([
    putJsonFile(ctx.svc, paths.d1Path, dayCandlesDoc(market, day, 7, history.candles)),
    putJsonFile(ctx.svc, paths.d1cPath, dayCandlesDoc(market, day, 90, history.candles)),
    putJsonFile(ctx.svc, paths.volumePath, volumeDoc(market, day, history.volume)),
  ]);
  return paths;
}

const SEALERS: Record<SealRes, (ctx: SealContext, period: number) => Promise<Record<string, string>>> = { m1: sealBlock, h1: sealHour, d1: sealDay };

/** Writes the due periods of one resolution; false when another run moved the state first. */
async function sealRes(ctx: SealContext, state: FilesState, res: SealRes, written: number[]): Promise<boolean> {
  const due = periodsToSeal(res, state.sealed[res], ctx.meta.firstMergeAt, ctx.now);
  if (!due) return true;
  let previous = state.sealed[res];
  for (let from = due.first; from <= due.last; from += STATE_EVERY) {
    const periods = range(from, Math.min(due.last, from + STATE_EVERY - 1));
    const paths = await inParallel(periods, (p) => SEALERS[res](ctx, p));
    const last = periods[periods.length - 1];
    if (!(await ctx.svc.market.filesState.advanceSealed(ctx.market, res, previous, last, paths[paths.length - 1]))) return false;
    written.push(...periods);
    previous = last;
  }
  if (res === 'd1') await compact(ctx, previous);
  return true;
}

/** Folds sealed days into the day history (the reads engineer's compaction decides which days are final). */
async function compact(ctx: SealContext, day: number | null): Promise<void> {
  if (day === null) return;
  try {
    await compactHistories(ctx.svc, ctx.market, day);
  } catch (err) {
    ctx.svc.log('warn', 'seal: history compaction failed; the next day retries', {
      market: ctx.market,
      error: err instanceof Error ? err.message : String(err),
    });
  }
}

/** Seals one market: today's caps first (made when the day begins), then m1, h1 and d1 periods due. */
export async function sealMarket(svc: Pick<Services, 'config' | 'clock' | 'market' | 'files' | 'log'>, market: string): Promise<SealOutcome> {
  const store = svc.market.pages;
  const now = svc.clock.now();
  const written: Record<SealRes, number[]> = { m1: [], h1: [], d1: [] };
  const meta = await store.meta(market);
  if (meta.firstMergeAt === null) return { market, written };
  const caps = svc.market.caps;
  await caps.ensureDay(market, dayOf(now));
  const ctx: SealContext = { svc, store, caps, market, meta, now, spans: new Map() };
  const state = await svc.market.filesState.get(market);
  for (const res of ['m1', 'h1', 'd1'] as const) {
    if (!(await sealRes(ctx, state, res, written[res]))) break;
  }
  return { market, written };
}

/** The seal schedule: every market, one failure never stopping the others. */
export async function sealAll(svc: Pick<Services, 'config' | 'clock' | 'market' | 'files' | 'log'>): Promise<SealOutcome[]> {
  const out: SealOutcome[] = [];
  for (const market of MARKETS) {
    try {
      out.push(await sealMarket(svc, market));
    } catch (err) {
      svc.log('error', 'seal failed for a market', { market, error: err instanceof Error ? err.stack : String(err) });
    }
  }
  return out;
}
