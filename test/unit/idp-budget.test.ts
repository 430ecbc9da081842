/**
 * The deployment-wide budget of API key verifications (shared/auth/idp-budget.ts, issue 23 point 4): keys
 * never verified before get at most their share of a window, keys verified before the rest, however many
 * containers ask and in whatever order their writes land; each window starts afresh.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeyCheckMeter, keyCheckMeter } from '../../shared/auth/idp-budget';
import { type KeyCheckBudget, keyCheckBudget } from '../../shared/domain/flood-limits';
import type { IdentityPort } from '../../shared/ports/identity';
import { MemoryIdentity } from '../../shared/store/memory/identity';

const T0 = Date.UTC(2026, 10, 2, 12, 0, 0);
const BUDGET: KeyCheckBudget = { windowMs: 10_000, perWindow: 40, newKeysPerWindow: 25 };

/** A counter store whose writes land when the scheduler says, counting them. */
function scheduledStore(s: fc.Scheduler): Pick<IdentityPort, 'reserveCount'> & { writes: number } {
  const store = new MemoryIdentity();
  return {
    writes: 0,
    async reserveCount(id, now, n, below, windowMs) {
      this.writes++;
      const got = await s.schedule(store.reserveCount(id, now, n, below, windowMs));
      return s.schedule(Promise.resolve(got));
    },
  };
}

describe('identity provider key-check budget', () => {
  it('sizes the budget below the provider’s quota: 40 per 10 s on a development instance (100), ten times that in production (1000)', () => {
    for (const env of ['dev', 'preview'] as const) expect(keyCheckBudget(env)).toEqual(BUDGET);
    expect(keyCheckBudget('production')).toEqual({ windowMs: 10_000, perWindow: 400, newKeysPerWindow: 250 });
    // Two back-to-back windows stay under the quota of any 10 s.
    expect(2 * keyCheckBudget('dev').perWindow).toBeLessThan(100);
    expect(2 * keyCheckBudget('production').perWindow).toBeLessThan(1000);
  });

  it('gives new keys at most their share and keys verified before the rest, over any containers and interleavings', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.integer({ min: 1, max: 30 }),
        fc.array(fc.record({ container: fc.nat(), seen: fc.boolean() }), { minLength: 1, maxLength: 200 }),
        async (s, containers, asks) => {
          const store = scheduledStore(s);
          const meters = Array.from({ length: containers }, () => new KeyCheckMeter(store));
          const granted = { seen: 0, fresh: 0 };
          const refused = { seen: 0, fresh: 0 };
          await s.waitFor(
            Promise.all(
              asks.map(({ container, seen }, i) =>
                s.schedule(Promise.resolve()).then(async () => {
                  const ok = await meters[container % containers].take(BUDGET, seen, T0 + i);
                  (ok ? granted : refused)[seen ? 'seen' : 'fresh']++;
                }),
              ),
            ),
          );
          const total = granted.seen + granted.fresh;
          expect(granted.fresh).toBeLessThanOrEqual(BUDGET.newKeysPerWindow);
          expect(total).toBeLessThanOrEqual(BUDGET.perWindow);
          // Refused only when the share asked for was spent.
          if (refused.fresh > 0) expect(total).toBeGreaterThanOrEqual(BUDGET.newKeysPerWindow);
          if (refused.seen > 0) expect(total).toBe(BUDGET.perWindow);
          // One write a grant, and at most one refused write per share and container in the window.
          expect(store.writes).toBeLessThanOrEqual(total + 2 * containers);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('keeps the reserved share for keys verified before while new keys flood, and starts afresh each window', async () => {
    // Five containers on one table.
    const shared = new MemoryIdentity();
    const containers = Array.from({ length: 5 }, () => new KeyCheckMeter(shared));
    const take = (i: number, seen: boolean, at = T0) => containers[i % containers.length].take(BUDGET, seen, at);
    const flood = await Promise.all(Array.from({ length: 100 }, (_, i) => take(i, false)));
    expect(flood.filter(Boolean)).toHaveLength(25);
    const known = await Promise.all(Array.from({ length: 20 }, (_, i) => take(i, true)));
    expect(known.filter(Boolean)).toHaveLength(15);
    expect(await take(0, false, T0 + 9_999)).toBe(false);
    expect(await take(0, false, T0 + 10_000)).toBe(true);
    expect(await take(1, true, T0 + 10_000)).toBe(true);
  });

  it('keeps one meter per counter store', () => {
    const a = new MemoryIdentity();
    expect(keyCheckMeter(a)).toBe(keyCheckMeter(a));
    expect(keyCheckMeter(a)).not.toBe(keyCheckMeter(new MemoryIdentity()));
  });
});
