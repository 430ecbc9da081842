import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ReplayClock } from '../../lib/local/background/replay-clock';
import { demoClockStart, REPLAY_DAYS, replaySteps } from '../../lib/local/demo/demo';
import { DAY_MS, HOUR_MS } from '../../shared/clock';

const TARGET = Date.UTC(2026, 10, 20, 14, 37, 12);

/** Issue 15, point 2: the demo back-fills a week so anonymous readers (the hourly view) see prices at once. */
describe('demo replay', () => {
  afterEach(() => vi.useRealTimers());

  it('starts at the beginning of the day a week before, or just after the last run', () => {
    const dir = mkdtempSync(join(tmpdir(), 'demo-state-'));
    try {
      const weekAgo = Date.UTC(2026, 10, 20 - REPLAY_DAYS);
      expect(demoClockStart(dir, TARGET)).toBe(weekAgo);
      expect(demoClockStart(':memory:', TARGET)).toBe(weekAgo);
      const state = (lastAt: number) => writeFileSync(join(dir, 'demo.json'), JSON.stringify({ v: 1, userId: 'user_x', keys: Array(16).fill('ak_x'), lastAt }));
      state(TARGET - 3 * HOUR_MS);
      expect(demoClockStart(dir, TARGET)).toBe(TARGET - 3 * HOUR_MS + 1);
      state(TARGET - 30 * DAY_MS);
      expect(demoClockStart(dir, TARGET)).toBe(weekAgo);
      writeFileSync(join(dir, 'demo.json'), 'not json');
      expect(demoClockStart(dir, TARGET)).toBe(weekAgo);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('uploads before the current hour: every 2 hours through the last day, every 12 hours before, back to the start', () => {
    const from = Date.UTC(2026, 10, 20 - REPLAY_DAYS);
    const steps = replaySteps(from, TARGET);
    const cut = Math.floor(TARGET / HOUR_MS) * HOUR_MS;
    expect(steps.every((t) => t < cut && t >= from)).toBe(true);
    expect(steps).toEqual([...steps].sort((a, b) => a - b));
    const lastDay = steps.filter((t) => t > TARGET - DAY_MS);
    expect(lastDay).toHaveLength(12);
    for (let i = 1; i < lastDay.length; i++) expect(lastDay[i] - lastDay[i - 1]).toBe(2 * HOUR_MS);
    const older = steps.filter((t) => t <= TARGET - DAY_MS);
    for (let i = 1; i < older.length; i++) expect(older[i] - older[i - 1]).toBe(12 * HOUR_MS);
    // every one of the 7 days before today and today has books
    const days = new Set(steps.map((t) => Math.floor(t / DAY_MS)));
    for (let d = Math.floor(TARGET / DAY_MS) - REPLAY_DAYS; d <= Math.floor(TARGET / DAY_MS); d++) expect(days.has(d)).toBe(true);
    expect(steps[0] - from).toBeLessThan(12 * HOUR_MS);
    expect(steps.length).toBeLessThanOrEqual(26);
  });

  it('replays nothing when the last run was within the hour', () => {
    expect(replaySteps(TARGET - 20 * 60_000, TARGET)).toEqual([]);
  });

  it('moves only forward, never past the system clock, then follows it', () => {
    vi.useFakeTimers({ now: TARGET });
    const clock = new ReplayClock(TARGET - DAY_MS);
    expect(clock.replaying).toBe(true);
    expect(clock.now()).toBe(TARGET - DAY_MS);
    expect(clock.set(TARGET - HOUR_MS)).toBe(TARGET - HOUR_MS);
    expect(clock.set(TARGET - 2 * HOUR_MS)).toBe(TARGET - HOUR_MS);
    expect(clock.set(TARGET + HOUR_MS)).toBe(TARGET);
    clock.release();
    vi.setSystemTime(TARGET + 5000);
    expect(clock.replaying).toBe(false);
    expect(clock.now()).toBe(TARGET + 5000);
    expect(new ReplayClock(TARGET + DAY_MS).now()).toBe(TARGET + 5000);
  });
});
