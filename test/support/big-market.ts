/**
 * A 20000-key market over 30 days, written straight through the store (as the reads bench does, with one
 * generated book a day and the last day's books hourly): its 30-day history is about 20 MB of JSON, far past
 * what a synchronous Lambda can answer. For the big-answer tests (issue 13 point 3).
 */
import { DAY_MS, dayOf, HOUR_MS, hourOf, type ManualClock } from '../../shared/clock';
import { MarketGenerator } from '../../shared/demo/market-generator';
import type { Book } from '../../shared/domain/book';
import { deriveScan } from '../../shared/domain/derived-scan';
import { mergeScan, type RowTable } from '../../shared/domain/merge';
import { compactHistories } from '../../shared/market/history-compaction';
import { MarketStore } from '../../shared/store/market-store';
import { MergeLog } from '../../shared/store/merge-log';
import { buildPages, emptyPages, writePages } from './market-fill';
import { services } from './operator';

export const BIG_KEYS = 20_000;

/** Fills `market` with `keys` keys over `days` days up to `now` (the runtime's manual clock is set to it); answers the keys. */
export async function fillBigMarket(clock: ManualClock, market: string, now: number, keys = BIG_KEYS, days = 30): Promise<number[]> {
  const svc = services();
  const t = { ddb: svc.ddb, table: svc.config.tableName, clock: svc.clock };
  const today = dayOf(now);
  const gen = new MarketGenerator({ keys, entries: 2 * keys, seed: 13, market, start: (today - days) * DAY_MS + 6 * HOUR_MS });
  const books: Book[] = [];
  for (let d = today - days; d < today; d++) books.push(gen.nextBook({ at: d * DAY_MS + 6 * HOUR_MS + 5 * 60_000 }));
  for (let h = 0; h <= hourOf(now) - today * 24 - 1; h++) books.push(gen.nextBook({ at: today * DAY_MS + h * HOUR_MS + 5 * 60_000 }));
  // Day pages over the whole span; hour pages only for the last day (older ones are never read here).
  const { pages } = buildPages(books, ['d1'], emptyPages());
  const recent = books.filter((b) => b.at >= (today - 1) * DAY_MS);
  const previous = books[books.length - recent.length - 1] ?? null;
  pages.candles.h1 = buildPages(recent, ['h1'], emptyPages(), previous).pages.candles.h1;
  await writePages(t, market, pages);
  const rows: RowTable = new Map();
  const merges = new MergeLog(svc.ddb, svc.config.tableName);
  let seq = 0;
  for (const book of books) {
    mergeScan(rows, deriveScan(book), 'fill', book.at + 60_000);
    seq++;
    await merges.put({ market, seq, at: book.at, mergedAt: book.at + 60_000, changePath: `live/v1/${market}/${seq}-x.json.gz`, bookAt: book.at });
  }
  const store = new MarketStore(svc.ddb, svc.config.tableName);
  await store.writeRows(market, rows, rows.keys());
  const last = books[books.length - 1];
  await store.commitMeta({ ...(await store.meta(market)), seq, newestScanAt: last.at, firstMergeAt: books[0].at + 60_000 }, 0);
  clock.set(now);
  await compactHistories(svc, market, today);
  return gen.keys;
}
