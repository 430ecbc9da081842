/**
 * The API's read caches (issue 15 point 6) never answer differently from a fresh instance: over random
 * sequences of merges (each: pending first, pages, then the seq commit, with reads in the middle of one),
 * daily compactions, retention runs and clock moves, every single-item and hour-candle read through the caches
 * equals the same read of an instance that has read nothing (its own store scope: no cached page, no reused mark).
 * The in-memory fake store is the storage; the merge's write order is the one of merge-book.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAY_MS, dayOf, HOUR_MS, ManualClock } from '../../shared/clock';
import { candlesInWindow } from '../../shared/market/candle-read';
import { compactHistories } from '../../shared/market/history-compaction';
import { itemDays } from '../../shared/market/item-read';
import { retainMarket } from '../../shared/market/market-retention';
import { cachedReadSources, rowsOf } from '../../shared/market/page-cache';
import { candleWindow } from '../../shared/market/query-rules';
import { clearReadCaches } from '../../shared/market/read-cache';
import { type ReadSources, readSources } from '../../shared/market/sources';
import type { Services } from '../../shared/services';
import { memoryMarket } from '../../shared/store/memory/market';
import { mergeWrites } from '../support/merge-writes';

const M = 'forever.pvp.horde.us';
/** Keys sharing row and page shards (0 and 1 of 16) and spread over history shards. */
const KEYS = [16, 32, 528, 17, 33];
const START = Date.UTC(2026, 10, 2, 6);

type Op =
  | { kind: 'merge'; prices: Array<[number, number]>; readBetween: number | null; lateHours: number }
  | { kind: 'read'; key: number; days: number; volume: boolean }
  | { kind: 'hours'; key: number }
  | { kind: 'compact' }
  | { kind: 'retain' }
  | { kind: 'advance'; ms: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('merge' as const),
      prices: fc.array(fc.tuple(fc.constantFrom(...KEYS), fc.integer({ min: 1, max: 999 })), { minLength: 1, maxLength: 4 }),
      readBetween: fc.option(fc.constantFrom(...KEYS)),
      lateHours: fc.constantFrom(0, 0, 3, 20),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({ kind: fc.constant('read' as const), key: fc.constantFrom(...KEYS), days: fc.constantFrom(1, 7, 90), volume: fc.boolean() }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('hours' as const), key: fc.constantFrom(...KEYS) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'compact' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'retain' as const }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      ms: fc.constantFrom(60_000, 9 * 60_000, 11 * 60_000, 5 * HOUR_MS, DAY_MS, 12 * DAY_MS, 31 * DAY_MS),
    }),
  },
);

const merge = (prices: Array<[number, number]>): Op => ({ kind: 'merge', prices, readBetween: null, lateHours: 0 });
const read = (key: number): Op => ({ kind: 'read', key, days: 7, volume: true });

describe('read caches against a fresh instance (fast-check)', () => {
  it('every cached single-item read equals a fresh read', async () => {
    let fresh = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 5, maxLength: 40 }), async (ops) => {
        clearReadCaches();
        const clock = new ManualClock(START);
        const market = memoryMarket(clock);
        const svc = { clock, market } as unknown as Services;
        const retentionSvc = {
          ...svc,
          uploads: { quarantinedBefore: async () => [] },
          log: () => undefined,
        } as unknown as Services;
        const answer = async (src: ReadSources, key: number, days: number, volume: boolean) => {
          const now = clock.now();
          const first = dayOf(now) - days;
          const [rows, read] = await Promise.all([rowsOf(src, M, [key]), itemDays(src, M, key, first, dayOf(now), volume)]);
          return { row: rows.get(key) ?? null, candles: [...read.candles].sort((a, b) => a[0] - b[0]), volume: [...read.volume].sort((a, b) => a[0] - b[0]) };
        };
        const check = async (key: number, days: number, volume: boolean) => {
          const cached = await answer(await cachedReadSources(svc, M), key, days, volume);
          const other = await answer({ ...readSources(svc), scope: `fresh-${++fresh}` }, key, days, volume);
          expect(cached).toEqual(other);
        };
        const hours = async (key: number) => {
          const w = candleWindow('h1', clock.now(), 90, undefined);
          const cached = await candlesInWindow(await cachedReadSources(svc, M), M, [key], w, { withVolume: true });
          const other = await candlesInWindow({ ...readSources(svc), scope: `fresh-${++fresh}` }, M, [key], w, { withVolume: true });
          expect(cached).toEqual(other);
        };
        for (const op of ops) {
          if (op.kind === 'advance') clock.advance(op.ms);
          else if (op.kind === 'compact') await compactHistories(svc, M, dayOf(clock.now()));
          else if (op.kind === 'retain') await retainMarket(retentionSvc, M, clock.now());
          else if (op.kind === 'read') await check(op.key, op.days, op.volume);
          else if (op.kind === 'hours') await hours(op.key);
          else {
            const now = clock.now();
            const between = async () => {
              if (op.readBetween !== null) {
                await check(op.readBetween, 90, true);
                await hours(op.readBetween);
              }
            };
            await mergeWrites(M, market, Math.max(START, now - op.lateHours * HOUR_MS), now, op.prices, between);
            clock.advance(60_000);
          }
        }
      }),
      {
        numRuns: 200,
        examples: [
          // A second merge into the same hour after its shard was cached.
          [[merge([[16, 5]]), { kind: 'hours', key: 16 }, merge([[16, 9]]), { kind: 'hours', key: 16 }]],
          // Retention prunes a row a cached row shard still holds (the seq did not move).
          [[merge([[16, 5]]), read(16), { kind: 'advance', ms: 31 * DAY_MS }, { kind: 'retain' }, read(16)]],
          // Compaction moves the mark after the history shard was cached under the previous one.
          [
            [
              merge([[16, 5]]),
              { kind: 'advance', ms: DAY_MS },
              merge([[16, 6]]),
              { kind: 'advance', ms: DAY_MS },
              merge([[16, 7]]),
              { kind: 'advance', ms: DAY_MS },
              { kind: 'compact' },
              read(16),
              { kind: 'advance', ms: DAY_MS },
              { kind: 'compact' },
              { kind: 'advance', ms: 11 * 60_000 },
              read(16),
            ],
          ],
        ],
      },
    );
  });
});
