/**
 * The one fact item data needs from market data (spec GET /api/v1/items/unknown): which keys have a row in
 * any market. A port, so the unknown-keys rule does not depend on how market rows are stored.
 */
import { MARKETS } from '../domain/market';
import type { Services } from '../services';

/** Every key with a row (priced or gone) in any of the six markets, ascending and distinct. */
export async function keysWithRows(svc: Pick<Services, 'market'>): Promise<number[]> {
  const store = svc.market.pages;
  const tables = await Promise.all(MARKETS.map((m) => store.rows(m)));
  const keys = new Set<number>();
  for (const t of tables) for (const k of t.keys()) keys.add(k);
  return [...keys].sort((a, b) => a - b);
}
