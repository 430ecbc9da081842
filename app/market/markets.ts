/**
 * The six markets as the app shows them: the overview's rows (spec api.md `GET /api/v1/ah`: only markets with
 * data are answered, so the others are shown as waiting for their first upload), one item compared across
 * them, and the live table's most recent rows. Pure.
 */
import type { Markets } from '../../shared/client/http-client';
import { MARKETS } from '../../shared/domain/market';

/** `[key, price or null, quantity, at]` (spec: AuctionRow). */
export type Row = readonly [key: number, price: number | null, quantity: number, at: number];

/** One market of `GET /api/v1/ah`, as the typed client has it. */
export type MarketSummary = Markets['markets'][number];

/** Every one of the six markets in their fixed order, with its summary or null when it has no data yet. */
export function overviewOf(summaries: readonly MarketSummary[]): Array<{ market: string; summary: MarketSummary | null }> {
  const by = new Map(summaries.map((s) => [s.market, s]));
  return MARKETS.map((market) => ({ market, summary: by.get(market) ?? null }));
}

export interface CompareRow {
  market: string;
  price: number | null;
  quantity: number;
  at: number | null;
  /** The lowest listed price of the six (ties: every market with it). */
  cheapest: boolean;
}

/** One item's row in each market, in the markets' order, the cheapest listed ones marked. */
export function compareAcross(rows: ReadonlyArray<{ market: string; row: Row | null }>): CompareRow[] {
  const by = new Map(rows.map((r) => [r.market, r.row]));
  const listed = rows.map((r) => r.row).filter((r): r is Row => r !== null && r[1] !== null && r[2] > 0);
  const low = listed.length ? Math.min(...listed.map((r) => r[1] as number)) : null;
  return MARKETS.map((market) => {
    const row = by.get(market) ?? null;
    const price = row?.[1] ?? null;
    const quantity = row?.[2] ?? 0;
    return { market, price, quantity, at: row?.[3] ?? null, cheapest: low !== null && price === low && quantity > 0 };
  });
}

/** The rows changed most recently, newest first (ties: lower key), at most `limit`. */
export function recentRows(table: ReadonlyMap<number, Row>, limit: number): Row[] {
  return [...table.values()].sort((a, b) => b[3] - a[3] || a[0] - b[0]).slice(0, limit);
}
