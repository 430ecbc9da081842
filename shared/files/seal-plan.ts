/**
 * Which candle periods a seal run writes (spec files-and-live: "Candle blocks"): every period from the
 * market's first merge on, once it is over plus `SEAL_GRACE_MS`, empty or not, each once. Pure.
 */
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../clock';
import { BLOCK_MS } from '../domain/file-paths';
import type { SealRes } from '../domain/files-state';

/** Candle seal grace (spec Limits): a period is written 5 minutes after it ends. */
export const SEAL_GRACE_MS = 5 * MINUTE_MS;

/** Length of a sealed period: a 10-minute block, an hour, a UTC day. */
export const SEAL_PERIOD_MS: Record<SealRes, number> = { m1: BLOCK_MS, h1: HOUR_MS, d1: DAY_MS };

/**
 * How long the longest-kept file of a period lives (spec Limits: m1 3 days, h1c 15 days, d1/d1c/volume
 * 2 days). A catch-up skips periods whose files retention would delete at once.
 */
export const SEAL_KEEP_MS: Record<SealRes, number> = { m1: 3 * DAY_MS, h1: 15 * DAY_MS, d1: 2 * DAY_MS };

/** A timestamp's period number of a resolution (block, hour, day). */
export const periodOfRes = (res: SealRes, ms: number): number => Math.floor(ms / SEAL_PERIOD_MS[res]);
/** A period's start in Unix ms (the `start` of a `sealed` message). */
export const periodStartOf = (res: SealRes, period: number): number => period * SEAL_PERIOD_MS[res];

export interface SealRange {
  /** First period to write. */
  first: number;
  /** Last period to write (inclusive); the new `sealed` value. */
  last: number;
}

/**
 * The periods to write now, or null when none is due: after the sealed one (or from the first merge's
 * period), up to the newest period that ended at least the grace before `now`.
 */
export function periodsToSeal(res: SealRes, sealed: number | null, firstMergeAt: number | null, now: number): SealRange | null {
  if (firstMergeAt === null) return null;
  const len = SEAL_PERIOD_MS[res];
  const last = Math.floor((now - SEAL_GRACE_MS) / len) - 1;
  let first = sealed === null ? periodOfRes(res, firstMergeAt) : sealed + 1;
  // A period whose files would already be past retention is not worth writing (after a long outage).
  const oldestKept = Math.ceil((now - SEAL_KEEP_MS[res]) / len) - 1;
  if (first < oldestKept) first = oldestKept;
  return first <= last ? { first, last } : null;
}
