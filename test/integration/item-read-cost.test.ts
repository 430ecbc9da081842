/**
 * What a single-item answer reads (issue 15 point 6: the answer's read units are the largest share of the API
 * reads' bill), on DynamoDB Local: a reused compaction mark spares the mark's read and the day pages the history
 * shard already holds, and a mark that moved since it was read still gives every day exactly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS, HOUR_MS, ManualClock, MINUTE_MS } from '../../shared/clock';
import { MarketGenerator } from '../../shared/demo/market-generator';
import type { Book } from '../../shared/domain/book';
import { compactHistories, finalDay } from '../../shared/market/history-compaction';
import { itemDays, MARK_REUSE_MS } from '../../shared/market/item-read';
import { readSources } from '../../shared/market/sources';
import type { Services } from '../../shared/services';
import { dynamoMarket } from '../../shared/store/dynamo-market';
import { MarketStore } from '../../shared/store/market-store';
import { freshTable } from '../support/engines';
import { type BuiltPages, buildPages, writePages } from '../support/market-fill';

const M = 'forever.pvp.alliance.us';
const TODAY = 20_400;
const FIRST = TODAY - 9;

describe('single-item reads', () => {
  const clock = new ManualClock(TODAY * DAY_MS + 12 * HOUR_MS);
  let svc: Services & { ddb: { destroy(): void } };
  let pages: BuiltPages;
  let keys: number[];
  /** Table requests made, as `GetItemCommand MKT#…|HIST` or `BatchGetItemCommand d1#20399,…`. */
  let reads: string[] = [];

  beforeAll(async () => {
    const table = await freshTable(clock);
    svc = { ddb: table.ddb, clock, config: { tableName: table.name }, log: () => undefined, market: dynamoMarket(table) } as unknown as Services & {
      ddb: { destroy(): void };
    };
    const gen = new MarketGenerator({ keys: 40, entries: 200, seed: 3, market: M, start: FIRST * DAY_MS });
    keys = gen.keys.slice(0, 4);
    // Two books a day (volume needs a previous book a few hours before), up to today's noon.
    const books: Book[] = [];
    for (let d = FIRST; d <= TODAY; d++) for (const h of [6, 11]) books.push(gen.nextBook({ at: d * DAY_MS + h * HOUR_MS }));
    pages = buildPages(books, ['d1']).pages;
    await writePages({ ddb: table.ddb, table: table.name, clock }, M, pages);
    await new MarketStore(table.ddb, table.name, undefined, true).commitMeta(
      { market: M, seq: books.length, newestScanAt: books[books.length - 1].at, firstMergeAt: FIRST * DAY_MS + 6 * HOUR_MS + MINUTE_MS },
      0,
    );
    await compactHistories(svc, M, TODAY);
    table.ddb.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { Key?: { sk?: unknown; pk?: unknown }; RequestItems?: Record<string, { Keys: Array<{ pk: unknown }> }> };
        const keysOf = input.RequestItems
          ? Object.values(input.RequestItems).flatMap((r) => r.Keys.map((k) => String((k.pk as { S?: string }).S ?? k.pk)))
          : [`${String(input.Key?.pk)}|${String(input.Key?.sk)}`];
        reads.push(`${context.commandName} ${keysOf.join(',')}`);
        return next(args);
      },
      { step: 'initialize', name: 'itemReadLog' },
    );
  });
  afterAll(() => svc.ddb.destroy());

  /** The days the built pages hold for `key` (the truth the reads must give). */
  const expected = (key: number, first: number, last: number) => {
    const out = new Map<number, unknown>();
    for (let d = first; d <= last; d++) {
      const c = pages.candles.d1.get(d)?.get(key);
      if (c) out.set(d, c);
    }
    return out;
  };
  const markReads = () => reads.filter((r) => r.includes('|HIST'));
  const pageDays = () => reads.filter((r) => r.startsWith('BatchGet')).flatMap((r) => [...r.matchAll(/#d1#(\d+)/g)].map((m) => Number(m[1])));

  it('reads the mark once, then only the days after it from their pages, with the same answer', async () => {
    const src = readSources(svc);
    const mark = finalDay(clock.now());
    expect(mark).toBe(TODAY - 2);
    reads = [];
    const first = await itemDays(src, M, keys[0], FIRST, TODAY, true);
    expect(markReads()).toHaveLength(1);
    expect(first.candles).toEqual(expected(keys[0], FIRST, TODAY));

    clock.advance(MARK_REUSE_MS - MINUTE_MS);
    reads = [];
    const again = await itemDays(src, M, keys[1], FIRST, TODAY, true);
    expect(markReads()).toHaveLength(0);
    // Today and yesterday only: the mark's day and earlier come from the history shard.
    expect(pageDays().sort()).toEqual([TODAY - 1, TODAY]);
    expect(again.candles).toEqual(expected(keys[1], FIRST, TODAY));
    expect(again.volume.size).toBeGreaterThan(0);

    // Past the reuse time the mark is read again.
    clock.advance(2 * MINUTE_MS);
    reads = [];
    await itemDays(src, M, keys[1], FIRST, TODAY, true);
    expect(markReads()).toHaveLength(1);
  });

  it('answers every day exactly when compaction moved the mark after it was read', async () => {
    const src = readSources(svc);
    // Tomorrow 00:05: the mark read now is TODAY - 2; at 00:11 TODAY - 1 becomes final and is compacted.
    clock.set((TODAY + 1) * DAY_MS + 5 * MINUTE_MS);
    await itemDays(src, M, keys[2], FIRST, TODAY + 1, true);
    clock.set((TODAY + 1) * DAY_MS + 11 * MINUTE_MS);
    expect(finalDay(clock.now())).toBe(TODAY - 1);
    expect((await compactHistories(svc, M, TODAY + 1)).through).toBe(TODAY - 1);
    reads = [];
    const read = await itemDays(src, M, keys[2], FIRST, TODAY + 1, true);
    expect(markReads()).toHaveLength(0);
    // The reused (older) mark takes TODAY - 1 from its page, which compaction left in place.
    expect(pageDays()).toContain(TODAY - 1);
    expect(read.candles).toEqual(expected(keys[2], FIRST, TODAY + 1));
  });
});
