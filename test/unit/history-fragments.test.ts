/**
 * Issue 27 point 3: finished days are kept in the form they are answered in. A whole-market history answer
 * stores each final day's JSON elements once written, so a fresh function instance (nothing in memory) answers
 * final days without reading their pages; and whatever was stored, kept or read, the answer is byte for byte
 * the spec's items built straight from the stored pages (over random merges, late books, compactions,
 * retention runs and clock moves). The in-memory fake store is the storage.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAY_MS, dayOf, HOUR_MS, hourOf, ManualClock } from '../../shared/clock';
import { compactHistories, finalDay } from '../../shared/market/history-compaction';
import { marketHistory, marketIntraday } from '../../shared/market/market-read';
import { retainMarket } from '../../shared/market/market-retention';
import { packPeriod, unpackPeriod } from '../../shared/market/period-fragment';
import { historyFrom, intradayFrom } from '../../shared/market/query-rules';
import { clearReadCaches } from '../../shared/market/read-cache';
import { type ReadSources, readSources } from '../../shared/market/sources';
import type { MarketPages } from '../../shared/ports/market';
import type { Services } from '../../shared/services';
import { memoryMarket } from '../../shared/store/memory/market';
import { mergeWrites } from '../support/merge-writes';

const M = 'forever.pvp.horde.us';
const KEYS = [16, 32, 528, 17, 33, 4_000_000_001];
const START = Date.UTC(2026, 10, 2, 6);

/** The spec's history items built straight from the stored day pages, with JSON.stringify (no kept bytes). */
async function expected(store: MarketPages, from: number, last: number, withVolume: boolean): Promise<string> {
  const items = new Map<number, [unknown[], unknown[]]>();
  const of = (k: number) => items.get(k) ?? (items.set(k, [[], []]).get(k) as [unknown[], unknown[]]);
  for (let d = from; d <= last; d++) {
    for (const [k, c] of await store.candlePage(M, 'd1', d)) of(k)[0].push([d, c.open, c.high, c.low, c.close, c.quantity]);
    if (withVolume) for (const [k, v] of await store.volumePage(M, d)) of(k)[1].push([d, ...v]);
  }
  return JSON.stringify([...items].sort((a, b) => a[0] - b[0]).map(([k, [c, v]]) => [k, c, v]));
}

/** The spec's intraday items built straight from the stored hour pages. */
async function expectedIntraday(store: MarketPages, from: number, last: number): Promise<string> {
  const items = new Map<number, unknown[]>();
  for (let h = from; h <= last; h++) {
    for (const [k, c] of await store.candlePage(M, 'h1', h)) (items.get(k) ?? (items.set(k, []).get(k) as unknown[])).push([h, c.close, c.quantity]);
  }
  return JSON.stringify([...items].sort((a, b) => a[0] - b[0]));
}

/** Counts the day (and hour) page reads of a store. */
function counted(store: MarketPages): { store: MarketPages; days: Set<number>; hours: Set<number> } {
  const days = new Set<number>();
  const hours = new Set<number>();
  const wrapped = Object.create(store) as MarketPages;
  wrapped.candlePage = async (market, res, period) => {
    if (res === 'd1') days.add(period);
    if (res === 'h1') hours.add(period);
    return store.candlePage(market, res, period);
  };
  wrapped.volumePage = async (market, day) => {
    days.add(day);
    return store.volumePage(market, day);
  };
  return { store: wrapped, days, hours };
}

/** A market merged once an hour for 30 hours (two keys), the clock an hour past the last merge. */
async function hourly() {
  const clock = new ManualClock(START);
  const market = memoryMarket(clock);
  const svc = { clock, market } as unknown as Services;
  for (let h = 0; h < 30; h++) {
    await mergeWrites(
      M,
      market,
      clock.now(),
      clock.now(),
      [
        [16, 10 + h],
        [528, 20 + h],
      ],
      async () => undefined,
    );
    clock.advance(HOUR_MS);
  }
  return { clock, market, svc };
}

async function filled(days: number) {
  const clock = new ManualClock(START);
  const market = memoryMarket(clock);
  const svc = { clock, market } as unknown as Services;
  for (let d = 0; d < days; d++) {
    await mergeWrites(
      M,
      market,
      clock.now(),
      clock.now(),
      [
        [16, 10 + d],
        [528, 20 + d],
        [4_000_000_001, 7],
      ],
      async () => undefined,
    );
    clock.advance(DAY_MS);
  }
  return { clock, market, svc };
}

describe('finished days kept as answered (issue 27 point 3)', () => {
  it('a fresh instance answers every day but today from its stored fragments when no merge came since', async () => {
    const { clock, svc } = await filled(12);
    const now = clock.now();
    const from = dayOf(now) - 10;
    clearReadCaches();
    const first = await marketHistory(readSources(svc), M, from, now, { withVolume: true });
    // A fresh instance: nothing kept in memory, the table (answer store) holds what the first one stored.
    clearReadCaches();
    const reads = counted(readSources(svc).store);
    const again = await marketHistory({ ...readSources(svc), store: reads.store }, M, from, now, { withVolume: true });
    expect(again.text).toBe(first.text);
    expect(again.text).toBe(await expected(readSources(svc).store, from, dayOf(now), true));
    // Issue 27 point 3, third pass: the earlier days a book can still reach are stored too (seq-checked), so
    // only today's pages are read (today is kept in memory only: nearly every merge reaches it).
    expect([...reads.days]).toEqual([dayOf(now)]);
  });

  it("a fresh instance reads again only the non-final days a merge since reached (today, a late book's day), never serving the stored ones", async () => {
    const { clock, market, svc } = await filled(12);
    const from = dayOf(clock.now()) - 10;
    await marketHistory(readSources(svc), M, from, clock.now(), { withVolume: true });
    // A book of today, then a late one read yesterday, merged after the fragments were stored.
    await mergeWrites(M, market, clock.now(), clock.now(), [[16, 444]], async () => undefined);
    clock.advance(60_000);
    const late = clock.now() - 20 * HOUR_MS;
    expect(dayOf(late)).toBe(dayOf(clock.now()) - 1);
    await mergeWrites(M, market, late, clock.now(), [[33, 555]], async () => undefined);
    clock.advance(60_000);
    const now = clock.now();
    clearReadCaches();
    const reads = counted(readSources(svc).store);
    const again = await marketHistory({ ...readSources(svc), store: reads.store }, M, from, now, { withVolume: true });
    expect(again.text).toBe(await expected(market.latest, from, dayOf(now), true));
    expect(again.text).toContain(`[${dayOf(now)},444,444,444,444,1]`);
    expect(again.text).toContain(`[${dayOf(late)},555,555,555,555,1]`);
    expect([...reads.days].sort()).toEqual([dayOf(late), dayOf(now)]);
  });

  it('a fresh instance answers intraday hours from their stored fragments; an hour a later merge reached is read again', async () => {
    const { clock, market, svc } = await hourly();
    const now = clock.now();
    const from = intradayFrom(now, undefined);
    const first = await marketIntraday(readSources(svc), M, from, hourOf(now));
    expect(first.text).toBe(await expectedIntraday(market.latest, from, hourOf(now)));
    // A late book (read 5 hours ago) merged after the fragments were stored.
    const late = (hourOf(now) - 5) * HOUR_MS + 60_000;
    await mergeWrites(M, market, late, clock.now(), [[32, 77]], async () => undefined);
    clearReadCaches();
    const reads = counted(readSources(svc).store);
    const again = await marketIntraday({ ...readSources(svc), store: reads.store }, M, from, hourOf(now));
    expect(again.text).toBe(await expectedIntraday(market.latest, from, hourOf(now)));
    expect(again.text).toContain(`[${hourOf(late)},77,1]`);
    expect([...reads.hours]).toEqual([hourOf(late)]);
  });

  it('a fresh instance reads the final days as one stored fragment per kind, the same answer byte for byte', async () => {
    const { clock, svc } = await filled(40);
    const now = clock.now();
    const from = dayOf(now) - 30;
    const first = await marketHistory(readSources(svc), M, from, now, { withVolume: true });
    clearReadCaches();
    const src = readSources(svc);
    const fragments = src.fragments as NonNullable<ReadSources['fragments']>;
    const asked: string[] = [];
    const counting: ReadSources = {
      ...src,
      fragments: {
        readFragment: (key, at) => {
          asked.push(key);
          return fragments.readFragment(key, at);
        },
        writeFragment: (...a) => fragments.writeFragment(...a),
      },
    };
    const again = await marketHistory(counting, M, from, now, { withVolume: true });
    expect(again.text).toBe(first.text);
    expect(again.text).toBe(await expected(src.store, from, dayOf(now), true));
    // The final days (from..finalDay) one fragment per kind; each non-final stored day (the ones a book can
    // still reach, today excepted) one per kind.
    const nonFinal = dayOf(now) - 1 - finalDay(now);
    expect(asked).toHaveLength(2 + 2 * nonFinal);
    expect(asked.filter((k) => k.endsWith(`|${from}-${finalDay(now)}`))).toHaveLength(2);
  });

  it('stores a run only for a default window: a run of any other `from` is kept in memory only', async () => {
    const { clock, market, svc } = await filled(40);
    const now = clock.now();
    const written: string[] = [];
    const src = readSources(svc);
    const fragments = src.fragments as NonNullable<ReadSources['fragments']>;
    const writing: ReadSources = {
      ...src,
      fragments: {
        readFragment: (...a) => fragments.readFragment(...a),
        writeFragment: (key, data, until) => {
          written.push(key);
          return fragments.writeFragment(key, data, until);
        },
      },
    };
    for (const back of [11, 29, 30]) {
      const from = dayOf(now) - back;
      const out = await marketHistory(writing, M, from, now, { withVolume: true });
      expect(out.text).toBe(await expected(market.latest, from, dayOf(now), true));
    }
    expect(written.filter((k) => /\|d1[cv]\|\d+-\d+$/.test(k))).toEqual([
      `v1|${M}|d1c|${dayOf(now) - 30}-${finalDay(now)}`,
      `v1|${M}|d1v|${dayOf(now) - 30}-${finalDay(now)}`,
    ]);
  });

  it('never serves stale days across a new merge, a late book, a retention run and a redelivered merge between two fresh reads', async () => {
    const { clock, market, svc } = await filled(40);
    const retentionSvc = { ...svc, uploads: { quarantinedBefore: async () => [] }, log: () => undefined } as unknown as Services;
    const from = () => dayOf(clock.now()) - 30;
    const fresh = async () => {
      clearReadCaches();
      const now = clock.now();
      const out = await marketHistory(readSources(svc), M, from(), now, { withVolume: true });
      expect(out.text).toBe(await expected(market.latest, from(), dayOf(now), true));
      return out.text;
    };
    await fresh();
    const steps: Array<() => Promise<unknown>> = [
      // A new merge of today, another read between its writes.
      () => mergeWrites(M, market, clock.now(), clock.now(), [[16, 901]], async () => void (await fresh())),
      // A late book (read 20 hours ago) merged now.
      () => mergeWrites(M, market, clock.now() - 20 * HOUR_MS, clock.now(), [[528, 902]], async () => undefined),
      () => retainMarket(retentionSvc, M, clock.now()),
      // The same book delivered again (a redelivered merge), then a day later, when more days are final.
      () => mergeWrites(M, market, clock.now() - 20 * HOUR_MS, clock.now(), [[528, 902]], async () => undefined),
      async () => clock.advance(DAY_MS),
      () => mergeWrites(M, market, clock.now() - 23 * HOUR_MS, clock.now(), [[17, 903]], async () => void (await fresh())),
      () => retainMarket(retentionSvc, M, clock.now()),
    ];
    for (const step of steps) {
      await step();
      clock.advance(60_000);
      await fresh();
      // A warm instance answers the same.
      const now = clock.now();
      expect((await marketHistory(readSources(svc), M, from(), now, { withVolume: true })).text).toBe(await expected(market.latest, from(), dayOf(now), true));
    }
    const last = await fresh();
    expect(last).toContain(',901,');
    expect(last).toContain(',902,');
    expect(last).toContain(',903,');
  });

  it('a fresh instance reads intraday hours but the newest as one stored fragment; a late book into one of them is never served stale', async () => {
    const { clock, market, svc } = await hourly();
    await mergeWrites(M, market, clock.now(), clock.now(), [[16, 99]], async () => undefined);
    const now = clock.now();
    const from = intradayFrom(now, undefined);
    const first = await marketIntraday(readSources(svc), M, from, hourOf(now));
    const fresh = async () => {
      clearReadCaches();
      const src = readSources(svc);
      const fragments = src.fragments as NonNullable<ReadSources['fragments']>;
      const asked: string[] = [];
      const reads = counted(src.store);
      const out = await marketIntraday(
        {
          ...src,
          store: reads.store,
          fragments: {
            readFragment: (key, at) => {
              asked.push(key);
              return fragments.readFragment(key, at);
            },
            writeFragment: (...a) => fragments.writeFragment(...a),
          },
        },
        M,
        from,
        hourOf(now),
      );
      expect(out.text).toBe(await expectedIntraday(market.latest, from, hourOf(now)));
      return { text: out.text, asked, hours: [...reads.hours] };
    };
    const again = await fresh();
    expect(again.text).toBe(first.text);
    expect(again.asked).toHaveLength(2);
    expect(again.hours).toEqual([]);
    // A late book (read 5 hours ago) merged after the run was stored: the run is built again from its hours.
    const late = (hourOf(now) - 5) * HOUR_MS + 60_000;
    await mergeWrites(M, market, late, clock.now(), [[32, 77]], async () => undefined);
    const after = await fresh();
    expect(after.text).toContain(`[${hourOf(late)},77,1]`);
    expect(after.hours).toEqual([hourOf(late)]);
    // ...and stored again: the next fresh instance reads it as one fragment.
    expect((await fresh()).asked).toHaveLength(2);
  });

  it('a fragment that is not one this code wrote is ignored and the day is read from its pages', async () => {
    const { clock, market, svc } = await filled(6);
    const now = clock.now();
    const from = dayOf(now) - 5;
    const day = from + 1;
    await market.answers.writeFragment(`v1|${M}|d1c|${day}`, Buffer.from('not a fragment'), now + DAY_MS);
    clearReadCaches();
    const out = await marketHistory(readSources(svc), M, from, now, { withVolume: true });
    expect(out.text).toBe(await expected(market.latest, from, dayOf(now), true));
  });

  it('an answer written inside its envelope is byte for byte the envelope around the items, for any text around them', async () => {
    const { clock, svc } = await filled(4);
    const now = clock.now();
    const from = dayOf(now) - 3;
    const items = (await marketHistory(readSources(svc), M, from, now, { withVolume: true })).text;
    for (const around of [
      { head: '{"market":"m","items":', tail: ',"now":1}' },
      { head: '{"market":"märkt \u2603","items":', tail: ',"note":"\u00e9"}' },
    ]) {
      clearReadCaches();
      expect((await marketHistory(readSources(svc), M, from, now, { withVolume: true, around })).text).toBe(around.head + items + around.tail);
      const hours = await marketIntraday(readSources(svc), M, hourOf(now) - 30, hourOf(now));
      expect((await marketIntraday(readSources(svc), M, hourOf(now) - 30, hourOf(now), around)).text).toBe(around.head + hours.text + around.tail);
    }
  });

  it('packs and unpacks a period, and refuses a truncated or reordered one', () => {
    const data = Buffer.from('[1,2][3][4,5,6]');
    const p = { keys: Float64Array.from([3, 9, 2 ** 40]), ends: Int32Array.from([5, 8, 15]), data, seq: 0 };
    const back = unpackPeriod(packPeriod(p));
    expect(back && [Array.from(back.keys), Array.from(back.ends), back.data.toString()]).toEqual([[3, 9, 2 ** 40], [5, 8, 15], data.toString()]);
    const packed = packPeriod(p);
    expect(unpackPeriod(packed.subarray(0, packed.length - 1))).toBeNull();
    expect(unpackPeriod(packPeriod({ ...p, keys: Float64Array.from([9, 3, 10]) }))).toBeNull();
  });

  it('no stored, kept or read day ever changes a history answer (fast-check)', async () => {
    type Op =
      | { kind: 'merge'; prices: Array<[number, number]>; lateHours: number }
      | { kind: 'history'; days: number; volume: boolean; fresh: boolean }
      | { kind: 'intraday'; hours: number; fresh: boolean }
      | { kind: 'compact' }
      | { kind: 'retain' }
      | { kind: 'advance'; ms: number };
    const opArb: fc.Arbitrary<Op> = fc.oneof(
      {
        weight: 4,
        arbitrary: fc.record({
          kind: fc.constant('merge' as const),
          prices: fc.array(fc.tuple(fc.constantFrom(...KEYS), fc.integer({ min: 1, max: 999 })), { minLength: 1, maxLength: 4 }),
          lateHours: fc.constantFrom(0, 0, 1, 3, 20, 23),
        }),
      },
      {
        weight: 5,
        arbitrary: fc.record({
          kind: fc.constant('history' as const),
          days: fc.constantFrom(1, 3, 30, 90, 200),
          volume: fc.boolean(),
          fresh: fc.boolean(),
        }),
      },
      {
        weight: 4,
        arbitrary: fc.record({ kind: fc.constant('intraday' as const), hours: fc.constantFrom(2, 24, 60), fresh: fc.boolean() }),
      },
      { weight: 1, arbitrary: fc.constant({ kind: 'compact' as const }) },
      { weight: 1, arbitrary: fc.constant({ kind: 'retain' as const }) },
      {
        weight: 3,
        arbitrary: fc.record({
          kind: fc.constant('advance' as const),
          ms: fc.constantFrom(60_000, 11 * 60_000, HOUR_MS, 5 * HOUR_MS, DAY_MS, 2 * DAY_MS, 31 * DAY_MS, 60 * DAY_MS),
        }),
      },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 4, maxLength: 30 }), async (ops) => {
        clearReadCaches();
        const clock = new ManualClock(START);
        const market = memoryMarket(clock);
        const svc = { clock, market } as unknown as Services;
        const retentionSvc = { ...svc, uploads: { quarantinedBefore: async () => [] }, log: () => undefined } as unknown as Services;
        for (const op of ops) {
          if (op.kind === 'advance') clock.advance(op.ms);
          else if (op.kind === 'compact') await compactHistories(svc, M, dayOf(clock.now()));
          else if (op.kind === 'retain') await retainMarket(retentionSvc, M, clock.now());
          else if (op.kind === 'merge') {
            const now = clock.now();
            await mergeWrites(M, market, Math.max(START, now - op.lateHours * HOUR_MS), now, op.prices, async () => undefined);
            clock.advance(60_000);
          } else if (op.kind === 'intraday') {
            if (op.fresh) clearReadCaches();
            const now = clock.now();
            const from = intradayFrom(now, hourOf(now) - op.hours);
            const out = await marketIntraday(readSources(svc), M, from, hourOf(now));
            expect(out.text).toBe(await expectedIntraday(market.latest, from, hourOf(now)));
          } else {
            if (op.fresh) clearReadCaches();
            const now = clock.now();
            const from = historyFrom(now, 90, dayOf(now) - op.days);
            const src: ReadSources = readSources(svc);
            const out = await marketHistory(src, M, from, now, { withVolume: op.volume });
            expect(out.text).toBe(await expected(market.latest, from, dayOf(now), op.volume));
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});
