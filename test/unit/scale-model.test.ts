/**
 * Issue 27 point 5: for 10× and 100× the cost scenario, name the first limit that breaks, with the figure where
 * it breaks. Hand-checked figures from the scenario (6 markets, 2000 sockets, 1 M API reads and 300 merges a
 * market a day) and AWS's default quotas.
 */
import { describe, expect, it } from 'vitest';
import { brokenLimits, checkLimits, type LimitCheck, nearestLimit, QUOTAS, type ScaleInputs } from '../../scripts/cost/scale';
import { SCENARIO } from '../../scripts/cost/scenario';
import { scaleTopology } from '../../scripts/cost/topology';

const INPUTS: ScaleInputs = {
  fanoutCpuMsPer1000: 50,
  metaReadUnits: 1,
  merges: [
    { keys: 20_000, cpuMs: 250, wallMs: 500, hottestKeyWriteUnits: 100, largestItemBytes: 30_000 },
    { keys: 100_000, cpuMs: 1200, wallMs: 2500, hottestKeyWriteUnits: 500, largestItemBytes: 150_000 },
  ],
};
const TOPO = scaleTopology();
const byId = (checks: LimitCheck[], id: string): LimitCheck => {
  const c = checks.find((x) => x.id === id);
  if (!c) throw new Error(`no check ${id}`);
  return c;
};

describe('scale model (scripts/cost/scale.ts)', () => {
  it('reads the fan-out size and the reserved concurrency from the manifest', () => {
    expect(TOPO.fanoutMemoryMb).toBe(1024);
    expect(TOPO.fanoutReservedConcurrency).toBe(10);
    expect(TOPO.mergeReservedConcurrency).toBe(10);
    expect(TOPO.reservedTotal).toBe(20);
  });

  it('breaks nothing at the scenario itself', () => {
    expect(brokenLimits(checkLimits(SCENARIO, INPUTS, TOPO, 1, 20_000))).toEqual([]);
  });

  it('names the WebSocket connect quota first at 100×: 2000 × f sockets back within 60 s reach 500/s at f = 15', () => {
    const broken = brokenLimits(checkLimits(SCENARIO, INPUTS, TOPO, 100, 100_000));
    expect(broken[0].id).toBe('ws.new_connections');
    expect(broken[0].breaksAt).toBeCloseTo(15, 6);
    expect(broken[0].demand).toBeCloseTo((2000 * 100) / 60, 6);
    expect(broken[0].capacity).toBe(QUOTAS.wsNewConnectionsPerSecond.value);
    // Sorted by where each breaks, all of them over capacity.
    for (let i = 1; i < broken.length; i++) expect(broken[i].breaksAt).toBeGreaterThanOrEqual(broken[i - 1].breaksAt);
    for (const c of broken) expect(c.demand).toBeGreaterThan(c.capacity);
  });

  it('breaks nothing at 10× with these inputs, and names the nearest limit with the factor where it breaks', () => {
    const checks = checkLimits(SCENARIO, INPUTS, TOPO, 10, 100_000);
    expect(brokenLimits(checks)).toEqual([]);
    const nearest = nearestLimit(checks);
    expect(nearest.id).toBe('ws.new_connections');
    expect(nearest.breaksAt).toBeCloseTo(15, 6);
  });

  it("prices a market's META reads: 1 M × f reads a day over 6 markets, 3× the average second, 1 RCU each", () => {
    const meta = byId(checkLimits(SCENARIO, INPUTS, TOPO, 100, 100_000), 'ddb.meta_rcu');
    expect(meta.demand).toBeCloseTo((100_000_000 / 86_400 / 6) * 3, 6);
    expect(meta.capacity).toBe(3000);
    expect(meta.demand).toBeLessThan(meta.capacity);
    expect(meta.breaksAt).toBeCloseTo((100 * 3000) / meta.demand, 6);
  });

  it('finds every growing limit at capacity exactly at its breaking factor', () => {
    for (const c of checkLimits(SCENARIO, INPUTS, TOPO, 100, 100_000)) {
      if (!Number.isFinite(c.breaksAt) || c.breaksAt === 0) continue;
      const at = byId(checkLimits(SCENARIO, INPUTS, TOPO, c.breaksAt, 100_000), c.id);
      expect(at.demand / at.capacity).toBeCloseTo(1, 9);
    }
  });

  it("times the fan-out on the fan-out's share of a vCPU: 333 × f sockets a market at 50 ms per 1000", () => {
    const t = byId(checkLimits(SCENARIO, INPUTS, TOPO, 100, 100_000), 'lambda.fanout_time');
    expect(t.demand).toBeCloseTo((50 * (200_000 / 6 / 1000)) / 1000 / (1024 / 1769), 6);
    expect(t.demand).toBeGreaterThan(t.capacity);
  });

  it('breaks on an item over 400 KB at any factor, and never extrapolates a market size it was not given', () => {
    const big: ScaleInputs = { ...INPUTS, merges: [{ keys: 100_000, cpuMs: 1, wallMs: 1, hottestKeyWriteUnits: 1, largestItemBytes: 401 * 1024 }] };
    const size = byId(checkLimits(SCENARIO, big, TOPO, 1, 100_000), 'ddb.item_size');
    expect(size.breaksAt).toBe(0);
    expect(brokenLimits(checkLimits(SCENARIO, big, TOPO, 1, 100_000))[0].id).toBe('ddb.item_size');
    expect(() => checkLimits(SCENARIO, INPUTS, TOPO, 10, 50_000)).toThrow(/no merge figures at 50000 keys/);
  });

  it('cites a source for every AWS quota it uses', () => {
    for (const q of Object.values(QUOTAS)) expect(q.source).toMatch(/^https:\/\/docs\.aws\.amazon\.com\//);
  });
});
