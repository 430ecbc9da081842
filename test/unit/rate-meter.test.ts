/**
 * The in-function rate meter (shared/auth/rate-meter.ts) against the spec's rule: `apiPerMinute` per caller,
 * beyond it 429. One container is exact whatever the interleaving of its requests' writes; requests spread
 * over C containers stay within the stated tolerance, (C - 1) x (batch - 1) past the limit, and none is
 * refused before the caller has made more than the limit.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { batchFor, RateMeter, type RequestCounter, rateMeter } from '../../shared/auth/rate-meter';
import { MemoryIdentity } from '../../shared/store/memory/identity';

const T0 = Date.UTC(2026, 10, 2, 12, 0, 0);
const LIMITS = [20, 60, 120, 300, 600] as const;

/** A shared counter whose writes complete when the fast-check scheduler says (any order), counting writes. */
function scheduledCounter(s: fc.Scheduler): RequestCounter & { writes: number } {
  const store = new MemoryIdentity();
  return {
    writes: 0,
    async countRequest(callerId, now, n = 1) {
      this.writes++;
      // Applied at a scheduled moment, answered at another: both reorder against other writes.
      const total = await s.schedule(store.countRequest(callerId, now, n));
      return s.schedule(Promise.resolve(total));
    },
  };
}

/** A meter on an in-memory counter that counts its writes. */
function counted(): { store: MemoryIdentity; meter: RateMeter; writes: () => number } {
  const store = new MemoryIdentity();
  let n = 0;
  const meter = new RateMeter({
    countRequest: (id, now, k) => {
      n++;
      return store.countRequest(id, now, k);
    },
  });
  return { store, meter, writes: () => n };
}

/** Runs `requests` over `meters` (request i on meters[plan[i] % C]) and answers how many were admitted. */
async function admitted(s: fc.Scheduler, meters: RateMeter[], plan: number[], limit: number): Promise<{ ok: number; refusedBelow: number }> {
  let ok = 0;
  let refusedBelow = 0;
  let started = 0;
  const runs = plan.map((c, i) =>
    s.schedule(Promise.resolve(i)).then(async () => {
      const position = ++started;
      const count = await meters[c % meters.length].count('user_1', T0 + i, limit);
      if (count <= limit) ok++;
      else if (position <= limit) refusedBelow++;
    }),
  );
  await s.waitFor(Promise.all(runs));
  return { ok, refusedBelow };
}

describe('rate meter', () => {
  it('batches of a tenth of the limit, 1 to 20', () => {
    expect(LIMITS.map(batchFor)).toEqual([2, 6, 12, 20, 20]);
    expect(batchFor(5)).toBe(1);
  });

  it('is exact in one container whatever the order its writes complete in', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.constantFrom(...LIMITS), fc.integer({ min: 1, max: 700 }), async (s, limit, n) => {
        const counter = scheduledCounter(s);
        const { ok } = await admitted(s, [new RateMeter(counter)], Array(n).fill(0), limit);
        expect(ok).toBe(Math.min(n, limit));
      }),
      { numRuns: 60 },
    );
  });

  it('over C containers admits at most (C - 1) x (batch - 1) past the limit and refuses none below it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.constantFrom(...LIMITS),
        fc.integer({ min: 2, max: 6 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 700 }),
        async (s, limit, containers, plan) => {
          const counter = scheduledCounter(s);
          const meters = Array.from({ length: containers }, () => new RateMeter(counter));
          const { ok, refusedBelow } = await admitted(s, meters, plan, limit);
          expect(refusedBelow).toBe(0);
          expect(ok).toBeGreaterThanOrEqual(Math.min(plan.length, limit));
          expect(ok).toBeLessThanOrEqual(limit + (containers - 1) * (batchFor(limit) - 1));
        },
      ),
      { numRuns: 100 },
    );
  });

  it('meets the bound in the worst case: containers that learned the count early admit their batch late', async () => {
    for (const limit of LIMITS) {
      const store = new MemoryIdentity();
      const meters = Array.from({ length: 4 }, () => new RateMeter(store));
      const batch = batchFor(limit);
      let ok = 0;
      const ask = async (m: RateMeter) => {
        if ((await m.count('user_1', T0, limit)) <= limit) ok++;
      };
      // Each container writes its first request; container 0 then uses the whole allowance and is refused.
      for (const m of meters) await ask(m);
      for (let i = 0; i < limit; i++) await ask(meters[0]);
      expect(ok).toBe(limit);
      // The others still believe the count is low: each admits a batch less one, then its write finds the truth.
      for (const m of meters.slice(1)) for (let i = 0; i < batch + 5; i++) await ask(m);
      expect(ok).toBe(limit + 3 * (batch - 1));
    }
  });

  it('writes a caller’s minute once, then once per batch: 100 sequential requests at 600 a minute are 5 writes', async () => {
    const { meter, writes } = counted();
    for (let i = 0; i < 100; i++) expect(await meter.count('user_1', T0 + i, 600)).toBe(i + 1);
    expect(writes()).toBe(5);
    // A new minute starts a new window (and a first write).
    expect(await meter.count('user_1', T0 + 60_000, 600)).toBe(1);
    expect(writes()).toBe(6);
  });

  it('refuses the rest of a minute without writing once the shared count is past the limit', async () => {
    const { store, meter, writes } = counted();
    // Another container already counted 70 of this minute.
    await store.countRequest('ip:1', T0, 70);
    expect(await meter.count('ip:1', T0, 60)).toBe(71);
    const before = writes();
    for (let i = 0; i < 10; i++) expect(await meter.count('ip:1', T0 + i, 60)).toBeGreaterThan(60);
    expect(writes()).toBe(before);
  });

  it('keeps one meter per counter store', () => {
    const a = new MemoryIdentity();
    expect(rateMeter(a)).toBe(rateMeter(a));
    expect(rateMeter(a)).not.toBe(rateMeter(new MemoryIdentity()));
  });
});
