/**
 * Market reads (spec Market reads; Freshness; Chart windows and depth): markets, the live table, one item,
 * item and batch candles, intraday and history. Routes marked snapshot answer callers without `prices.live`
 * from the hourly view, reusing the hour's first answer; live callers get `live: true` and no caching.
 * Volume estimates only with `depth`, books only with `books`; no answer names an uploader.
 */
import { gunzipSync } from 'node:zlib';
import { hasFeature, type Principal } from '../auth/principal';
import { dayOf, hourOf } from '../clock';
import { snapshotPath } from '../domain/file-paths';
import { parseItemKey } from '../domain/item-key';
import { MARKETS } from '../domain/market';
import { toAuctionRow } from '../domain/merge';
import type { HourlySnapshot } from '../files/documents';
import { type AnswerKey, answerHash, bodyText, liveHeaders, reuseHourly } from '../http/answer-cache';
import { fitAnswer, liveUntilMerge } from '../http/answer-files';
import type { QueryFeatures, Route, RouteContext, RoutesOf } from '../http/handler';
import type { HttpResult } from '../http/types';
import { getObject } from '../items/bucket';
import { candlesInWindow, wireVolume } from '../market/candle-read';
import { itemAsOf } from '../market/hourly-view';
import { itemDays } from '../market/item-read';
import { marketHistory, marketIntraday } from '../market/market-read';
import { cachedReadSources, rowsOf } from '../market/page-cache';
import { candleWindow, historyFrom, intradayFrom } from '../market/query-rules';
import { readSources } from '../market/sources';
import { hourlySummary, liveSummary, type MarketSummary, type SnapshotSource } from '../market/summary-read';
import { rowsSince, tableRows } from '../market/table-read';
import { cutOf, dayPoints, firstWindowDay, restrictionOf } from '../market/view-rules';
import type { Services } from '../services';
import { BatchCandlesQuery, HistoryQuery, IntradayQuery, ItemCandlesQuery, TableQuery } from './market-reads.schemas';
import { parseAs } from './zod-parse';

/** Spec Market reads: `res=h1` needs `candles.hourly`, `res=m1` needs `candles.minute` (checked at admission). */
const RES_FEATURES: QueryFeatures = { param: 'res', absent: 'd1', features: { h1: 'candles.hourly', m1: 'candles.minute' } };

/** Spec Freshness: callers with `prices.live` read live, everyone else the hourly view. */
export const readsLive = (p: Principal): boolean => hasFeature(p, 'prices.live');

/** The reused answer's key: the route, the normalized values it reads (never the raw path or query) and the tier. */
const answerKey = (p: Principal, route: string, params: AnswerKey['params']): AnswerKey => ({
  route,
  params,
  restriction: restrictionOf(p.features, p.limits.historyDays),
});

const live = (body: unknown): HttpResult => ({ statusCode: 200, headers: liveHeaders(), body: bodyText(body) });

/**
 * A snapshot route's answer: live for `prices.live` callers, else the hour's reused answer for `route` and
 * `params` (everything the answer reads, normalized, so other spellings of one request share it).
 */
async function snapshotAnswer(
  ctx: RouteContext,
  route: string,
  params: AnswerKey['params'],
  compute: (isLive: boolean) => Promise<unknown>,
): Promise<HttpResult> {
  const ae = ctx.req.headers['accept-encoding'];
  if (readsLive(ctx.principal)) return fitAnswer(ctx.svc, live(await compute(true)), ae, { kind: 'caller' });
  const key = answerKey(ctx.principal, route, params);
  // A big hourly answer is one file per hour and restriction, named by the answer cache's own key.
  const hourly = await reuseHourly(ctx.svc, key, () => compute(false));
  return fitAnswer(ctx.svc, hourly, ae, { kind: 'hourly', key: answerHash(key, ctx.svc.clock.now()) });
}

/** The hour's snapshot file of a market (written once per hour by the snapshot job), read back. */
const snapshotFile =
  (svc: Pick<Services, 'files'>): SnapshotSource =>
  async (market, cut) => {
    const file = await getObject(svc, snapshotPath(market, hourOf(cut)));
    if (!file) return null;
    const gzip = file.contentEncoding === 'gzip' || (file.data[0] === 0x1f && file.data[1] === 0x8b);
    return JSON.parse((gzip ? gunzipSync(file.data) : file.data).toString('utf8')) as HourlySnapshot;
  };

/** GET /api/v1/ah: `{markets, now, live}`, every market with data, newest scan first; `book` only for `books` callers. */
export const getMarkets: Route = {
  access: { kind: 'public' },
  handle: (ctx) =>
    snapshotAnswer(ctx, 'markets', [], async (isLive) => {
      const { svc, principal: p } = ctx;
      const src = readSources(svc);
      const now = svc.clock.now();
      const withBook = hasFeature(p, 'books');
      const cdn = svc.config.cdnBase;
      const snapshot = snapshotFile(svc);
      const all = await Promise.all(
        MARKETS.map((m) => (isLive ? liveSummary(src, m, cdn, withBook) : hourlySummary(src, m, cutOf(now), cdn, withBook, snapshot))),
      );
      const markets = all.filter((m): m is MarketSummary => m !== null).sort((a, b) => b.at - a.at || (a.market < b.market ? -1 : 1));
      return { markets, now, live: isLive };
    }),
};

/** GET /api/v1/ah/:market?since: the live table answer `{market, rows, seq, now, live}`, rows changed at or after `since`. */
export const getTable: Route = {
  access: { kind: 'public', feature: 'prices.live' },
  async handle({ req, svc }) {
    const since = parseAs(TableQuery, req.query, 'bad_query').since ?? 0;
    const market = req.params.market;
    const now = svc.clock.now();
    // META, then the rows of its version (kept by a warm instance: table-read.ts).
    const { seq, rows } = await tableRows(svc.market, market);
    return live({ market, rows: rowsSince(rows, since), seq, now, live: true });
  },
};

/** GET /api/v1/ah/:market/:item: `{market, item, row, days, volume, now, live}`; days within `historyDays`, volume with `depth`. */
export const getItem: Route = {
  access: { kind: 'public' },
  handle: (ctx) => {
    const market = ctx.req.params.market;
    const key = parseItemKey(ctx.req.params.item);
    return snapshotAnswer(ctx, 'item', [market, key], async (isLive) => {
      const { svc, principal: p } = ctx;
      const src = readSources(svc);
      const now = svc.clock.now();
      const depth = hasFeature(p, 'depth');
      const first = firstWindowDay(now, p.limits.historyDays);
      const today = dayOf(now);
      if (isLive) {
        // A warm instance answers from the pages it read under the same merge seq (page-cache.ts).
        const cached = await cachedReadSources(svc, market);
        const [rows, days] = await Promise.all([rowsOf(cached, market, [key]), itemDays(cached, market, key, first, today, depth)]);
        const row = rows.get(key);
        return {
          market,
          item: key,
          row: row ? toAuctionRow(key, row) : null,
          days: dayPoints(days.candles, first, today),
          volume: depth ? wireVolume(days.volume, first, today) : [],
          now,
          live: true,
        };
      }
      const view = await itemAsOf(src, market, key, cutOf(now), first, depth);
      return {
        market,
        item: key,
        row: view.row,
        days: dayPoints(view.days.candles, first, today),
        volume: depth ? wireVolume(view.days.volume, first, today - 1) : [],
        now,
        live: false,
      };
    });
  },
};

/** GET /api/v1/ah/:market/:item/candles?res&from: `{market, item, res, candles, volume, now, live}`. */
export const getItemCandles: Route = {
  access: { kind: 'public', feature: 'candles.daily', query: RES_FEATURES },
  async handle(ctx) {
    const { req, svc, principal: p } = ctx;
    const { res, from } = parseAs(ItemCandlesQuery, req.query, 'bad_query');
    const key = parseItemKey(req.params.item);
    const market = req.params.market;
    const depth = hasFeature(p, 'depth');
    const windowAt = (now: number, isLive: boolean) => candleWindow(res, now, p.limits.historyDays, from, !isLive && res === 'h1');
    const compute = async (isLive: boolean) => {
      const now = svc.clock.now();
      const w = windowAt(now, isLive);
      // Live day and hour candles (and volume) come from the read caches; minute pages are not cached (page-cache.ts).
      const src = isLive && res !== 'm1' ? await cachedReadSources(svc, market) : readSources(svc);
      const read = await candlesInWindow(src, market, [key], w, { cut: isLive ? undefined : cutOf(now), withVolume: depth });
      return { market, item: key, res, candles: read.candles.get(key) ?? [], volume: depth ? (read.volume.get(key) ?? []) : [], now, live: isLive };
    };
    // Minute candles are never part of the hourly view (spec: snapshot for d1 and h1 only).
    if (res === 'm1' || readsLive(p)) return live(await compute(true));
    // The window a `from` resolves to is fixed for the hour: every `from` naming it shares the answer.
    const w = windowAt(svc.clock.now(), false);
    return reuseHourly(svc, answerKey(p, 'item-candles', [market, key, res, w.first, w.last]), () => compute(false));
  },
};

/** GET /api/v1/ah/:market/candles?items&res&from: `{market, res, items: [item, candles][], now}`, one entry per key in request order. */
export const getBatchCandles: Route = {
  access: { kind: 'public', feature: 'prices.live', query: RES_FEATURES },
  async handle({ req, svc, principal: p }) {
    const { items: keys, res, from } = parseAs(BatchCandlesQuery, req.query, 'bad_query');
    const market = req.params.market;
    const now = svc.clock.now();
    const src = res !== 'm1' ? await cachedReadSources(svc, market) : readSources(svc);
    const read = await candlesInWindow(src, market, keys, candleWindow(res, now, p.limits.historyDays, from));
    return live({ market, res, items: keys.map((k) => [k, read.candles.get(k) ?? []]), now });
  },
};

/** GET /api/v1/ah/:market/intraday?from: `{market, from, items: [item, [hour, close, quantity][]][], now}`. */
export const getIntraday: Route = {
  access: { kind: 'public', feature: 'prices.live' },
  async handle({ req, svc }) {
    const now = svc.clock.now();
    const from = intradayFrom(now, parseAs(IntradayQuery, req.query, 'bad_query').from);
    const market = req.params.market;
    // The hours it reads end with now's: the same window in the same hour and merge is the same answer.
    return liveUntilMerge(svc, market, JSON.stringify(['intraday', market, from, hourOf(now)]), req.headers['accept-encoding'], async () => {
      const around = { head: `{"market":${JSON.stringify(market)},"from":${from},"items":`, tail: `,"now":${now}}` };
      return marketIntraday(readSources(svc), market, from, hourOf(now), around);
    });
  },
};

/** GET /api/v1/ah/:market/history?from: `{market, from, items, now, live}`; `from` clamped and reported; volume with `depth`. */
export const getHistory: Route = {
  access: { kind: 'public' },
  async handle(ctx) {
    const { req, svc, principal: p } = ctx;
    const asked = parseAs(HistoryQuery, req.query, 'bad_query').from;
    const market = req.params.market;
    const withVolume = hasFeature(p, 'depth');
    const answer = async (now: number, isLive: boolean) => {
      const from = historyFrom(now, p.limits.historyDays, asked);
      const around = { head: `{"market":${JSON.stringify(market)},"from":${from},"items":`, tail: `,"now":${now},"live":${isLive}}` };
      return marketHistory(readSources(svc), market, from, now, { cut: isLive ? undefined : cutOf(now), withVolume, around });
    };
    if (readsLive(p)) {
      // A live answer reads the days from `from` to now's: the same ones, merge and depth are the same answer.
      const now = svc.clock.now();
      const key = JSON.stringify(['history', market, historyFrom(now, p.limits.historyDays, asked), dayOf(now), withVolume]);
      return liveUntilMerge(svc, market, key, req.headers['accept-encoding'], () => answer(now, true));
    }
    // The day a `from` resolves to is fixed for the hour: every `from` naming it shares the answer.
    return snapshotAnswer(ctx, 'history', [market, historyFrom(svc.clock.now(), p.limits.historyDays, asked)], () => answer(svc.clock.now(), false));
  },
};

/** Route keys of the market reads (shared/topology.ts). */
export const marketReadRoutes = {
  'GET /api/v1/ah': getMarkets,
  'GET /api/v1/ah/{market}': getTable,
  'GET /api/v1/ah/{market}/{item}': getItem,
  'GET /api/v1/ah/{market}/{item}/candles': getItemCandles,
  'GET /api/v1/ah/{market}/candles': getBatchCandles,
  'GET /api/v1/ah/{market}/intraday': getIntraday,
  'GET /api/v1/ah/{market}/history': getHistory,
} satisfies RoutesOf<'api'>;
