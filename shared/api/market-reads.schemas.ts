/**
 * Schemas of the market reads (spec api.md Market reads, Query rules, "Answer shapes of market reads"): the
 * queries (text, parsed into numbers; a failure is 400 `bad_query`) and the answers. Windows and clamps of
 * `from` are rules of shared/market/query-rules.ts applied after parsing.
 */
import * as z from 'zod';
import { isItemKey } from '../domain/item-key';
import { AuctionRow, Candle, DayPoint, IntText, ItemKey, int, Market, Ms, VolumeEstimate } from './common.schemas';
import type { DocsOf } from './route-doc';

/** `res` in m1, h1, d1 (default d1). */
export const Res = z.enum(['m1', 'h1', 'd1'], { error: 'must be m1, h1 or d1' }).default('d1');

/** Spec batch candles: `items` = 1..50 distinct keys, comma-separated, kept in request order. */
export const ItemsText = z
  .string({ error: 'must list 1 to 50 item keys' })
  .min(1, 'must list 1 to 50 item keys')
  // Documentation's example (the API reference's request): no pattern can say "distinct keys".
  .meta({ examples: ['2589,2592'] })
  .transform((text, ctx) => {
    const parts = text.split(',');
    if (parts.length > 50) ctx.addIssue({ code: 'custom', message: 'at most 50 items' });
    const keys = parts.map((p) => (/^[0-9]{1,16}$/.test(p) ? Number(p) : Number.NaN));
    const bad = parts.find((_, i) => !isItemKey(keys[i]));
    if (bad !== undefined) ctx.addIssue({ code: 'custom', message: `${bad} is not an item key` });
    else if (new Set(keys).size !== keys.length) ctx.addIssue({ code: 'custom', message: 'must be distinct' });
    return keys;
  })
  .describe('1..50 distinct item keys, comma-separated');

export const TableQuery = z.object({ since: IntText.optional().describe("Unix ms: rows changed at or after it (the previous answer's now)") });
export const ItemCandlesQuery = z.object({ res: Res, from: IntText.optional().describe('Unix ms: candles starting at or after it') });
export const BatchCandlesQuery = z.object({ res: Res, items: ItemsText, from: IntText.optional().describe('Unix ms') });
export const IntradayQuery = z.object({ from: IntText.optional().describe('a UTC hour number (default now - 24)') });
export const HistoryQuery = z.object({ from: IntText.optional().describe('a UTC day number (default today - 30)') });

const Live = z.boolean().describe('true: a live answer (prices.live); false: the hourly view');
const BookSummary = z.object({ at: Ms, complete: z.boolean(), auctions: int(), entries: int(), url: z.string() });
export const MarketSummary = z.object({
  market: Market,
  at: Ms,
  items: int(),
  listed: int(),
  scans: int(),
  contributors7d: int(),
  book: BookSummary.optional(),
});

export const MarketsAnswer = z.object({ markets: z.array(MarketSummary), now: Ms, live: Live });
export const TableAnswer = z.object({ market: Market, rows: z.array(AuctionRow), seq: int(), now: Ms, live: Live });
export const ItemAnswer = z.object({
  market: Market,
  item: ItemKey,
  row: AuctionRow.nullable(),
  days: z.array(DayPoint),
  volume: z.array(VolumeEstimate),
  now: Ms,
  live: Live,
});
export const CandlesAnswer = z.object({
  market: Market,
  item: ItemKey,
  res: z.enum(['m1', 'h1', 'd1']),
  candles: z.array(Candle),
  volume: z.array(VolumeEstimate),
  now: Ms,
  live: Live,
});
export const BatchCandlesAnswer = z.object({ market: Market, res: z.enum(['m1', 'h1', 'd1']), items: z.array(z.tuple([ItemKey, z.array(Candle)])), now: Ms });
export const IntradayAnswer = z.object({
  market: Market,
  from: int(),
  items: z.array(z.tuple([ItemKey, z.array(z.tuple([int(), int(), int()]).describe('[hour, close, quantity]'))])),
  now: Ms,
});
export const HistoryAnswer = z.object({
  market: Market,
  from: int(),
  items: z.array(
    z.tuple([
      ItemKey,
      z.array(z.tuple([int(), int(), int(), int(), int(), int()]).describe('[day, open, high, low, close, quantity]')),
      z.array(VolumeEstimate),
    ]),
  ),
  now: Ms,
  live: Live,
});

const READ_ERRORS = ['bad_market', 'forbidden'] as const;

export const marketReadDocs = {
  'GET /api/v1/ah': { answer: MarketsAnswer, errors: ['forbidden'], cached: true, spills: true },
  'GET /api/v1/ah/{market}': { query: TableQuery, answer: TableAnswer, errors: [...READ_ERRORS, 'bad_query'] },
  'GET /api/v1/ah/{market}/{item}': { answer: ItemAnswer, errors: [...READ_ERRORS, 'bad_item'], cached: true, spills: true },
  'GET /api/v1/ah/{market}/{item}/candles': {
    query: ItemCandlesQuery,
    answer: CandlesAnswer,
    errors: [...READ_ERRORS, 'bad_item', 'bad_query'],
    cached: true,
  },
  'GET /api/v1/ah/{market}/candles': {
    query: BatchCandlesQuery,
    answer: BatchCandlesAnswer,
    errors: [...READ_ERRORS, 'bad_query'],
    rules: ['the keys of `items` are distinct item keys'],
  },
  'GET /api/v1/ah/{market}/intraday': { query: IntradayQuery, answer: IntradayAnswer, errors: [...READ_ERRORS, 'bad_query'], spills: true },
  'GET /api/v1/ah/{market}/history': { query: HistoryQuery, answer: HistoryAnswer, errors: [...READ_ERRORS, 'bad_query'], cached: true, spills: true },
} satisfies DocsOf<'api'>;
