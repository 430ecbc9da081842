/**
 * Issue 27 point 4: over random sequences of merges, daily compactions, retention runs and clock moves, a
 * fresh API instance's single-item read (history shard read eventually consistent, kept only when its
 * compaction stamp reaches the mark) equals the read of an uncached instance on a store that never lags,
 * although the eventually consistent side answers every history shard one write late (test/support/lagging-replica.ts).
 * So does a read without the read caches on the lagging side (the shard's stamp bounds the days taken from it).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAY_MS, dayOf, ManualClock } from '../../shared/clock';
import { compactHistories } from '../../shared/market/history-compaction';
import { itemDays } from '../../shared/market/item-read';
import { retainMarket } from '../../shared/market/market-retention';
import { cachedReadSources, rowsOf } from '../../shared/market/page-cache';
import { clearReadCaches } from '../../shared/market/read-cache';
import { type ReadSources, readSources } from '../../shared/market/sources';
import type { Services } from '../../shared/services';
import { memoryMarket } from '../../shared/store/memory/market';
import { laggingReplica } from '../support/lagging-replica';
import { mergeWrites } from '../support/merge-writes';

const M = 'forever.pvp.horde.us';
/** Keys over a few history shards (0, 16, 528 share one of 512; 17 and 33 others). */
const KEYS = [16, 528, 17, 33];
const START = Date.UTC(2026, 10, 2, 6);

type Op =
  | { kind: 'merge'; prices: Array<[number, number]> }
  | { kind: 'read'; key: number; fresh: boolean }
  | { kind: 'compact' }
  | { kind: 'retain' }
  | { kind: 'advance'; ms: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('merge' as const),
      prices: fc.array(fc.tuple(fc.constantFrom(...KEYS), fc.integer({ min: 1, max: 999 })), { minLength: 1, maxLength: 3 }),
    }),
  },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('read' as const), key: fc.constantFrom(...KEYS), fresh: fc.boolean() }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'compact' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'retain' as const }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.constantFrom(11 * 60_000, DAY_MS, 2 * DAY_MS, 40 * DAY_MS) }) },
);

describe('stamped history shards against a lagging replica (fast-check, issue 27 point 4)', () => {
  it('every single-item read, with or without the read caches, equals an uncached read of a store that never lags', async () => {
    let scope = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 5, maxLength: 40 }), async (ops) => {
        clearReadCaches();
        const clock = new ManualClock(START);
        const base = memoryMarket(clock);
        const market = { ...base, pages: laggingReplica(base.pages) };
        const svc = { clock, market, uploads: { quarantinedBefore: async () => [] }, log: () => undefined } as unknown as Services;
        const answer = async (src: ReadSources, key: number) => {
          const now = clock.now();
          const [rows, days] = await Promise.all([rowsOf(src, M, [key]), itemDays(src, M, key, dayOf(now) - 90, dayOf(now), true)]);
          return { row: rows.get(key) ?? null, candles: [...days.candles].sort((a, b) => a[0] - b[0]), volume: [...days.volume].sort((a, b) => a[0] - b[0]) };
        };
        for (const op of ops) {
          if (op.kind === 'advance') clock.advance(op.ms);
          else if (op.kind === 'compact') await compactHistories(svc, M, dayOf(clock.now()));
          else if (op.kind === 'retain') await retainMarket(svc, M, clock.now());
          else if (op.kind === 'read') {
            if (op.fresh) clearReadCaches();
            const truth = await answer({ ...readSources({ clock, market: base }), scope: `truth-${++scope}` }, op.key);
            expect(await answer(await cachedReadSources(svc, M), op.key)).toEqual(truth);
            // No read caches (the pages function, the API while a merge is pending): the mark and the shard read
            // together, eventually consistent, or the mark reused; the shard's stamp says which days it holds.
            expect(await answer(readSources(svc, true), op.key)).toEqual(truth);
          } else {
            await mergeWrites(M, base, clock.now(), clock.now(), op.prices, async () => undefined);
            clock.advance(60_000);
          }
        }
      }),
      {
        numRuns: 150,
        examples: [
          // Two compactions, a fresh read after each: the second's mark beside the first's shard.
          [
            [
              { kind: 'merge', prices: [[16, 5]] },
              { kind: 'advance', ms: 2 * DAY_MS },
              { kind: 'merge', prices: [[16, 6]] },
              { kind: 'advance', ms: 2 * DAY_MS },
              { kind: 'compact' },
              { kind: 'read', key: 16, fresh: true },
              { kind: 'merge', prices: [[16, 7]] },
              { kind: 'advance', ms: 2 * DAY_MS },
              { kind: 'compact' },
              { kind: 'read', key: 16, fresh: true },
            ],
          ],
        ],
      },
    );
  }, 120_000);
});
