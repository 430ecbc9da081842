/** Contributor window and contribution listing rules (spec: "Contributor window", Limits). Pure. */
import { DAY_MS, HOUR_MS } from '../clock';

export const CONTRIBUTOR_WINDOW_MS = 14 * DAY_MS;
/** The window end is written to the identity provider at most once an hour. */
export const CLAIM_EVERY_MS = HOUR_MS;
export const CONTRIBUTIONS_BACK_MS = 30 * DAY_MS;
export const CONTRIBUTIONS_MAX = 1000;
export const SCANS_WINDOW_MS = 7 * DAY_MS;

/** One upload as its uploader sees it in `GET /api/v1/contributions`. */
export interface ContributionRecord {
  market: string;
  at: number;
  kind: 'scan' | 'book';
  items: number;
  complete: boolean;
  credited: boolean;
  reason?: string;
}

/** Window end after a credited upload: max(current end, now + 14 days). */
export const windowEnd = (current: number | null | undefined, now: number): number => Math.max(current ?? 0, now + CONTRIBUTOR_WINDOW_MS);

/** Whether the window end must be written to the identity provider: first credit, or last write at least an hour ago. */
export const claimDue = (lastClaimAt: number | null | undefined, now: number): boolean =>
  lastClaimAt === null || lastClaimAt === undefined || now - lastClaimAt >= CLAIM_EVERY_MS;

/** `from` of the contributions listing: Unix ms, default now − 30 days, clamped to 30 days back; null when malformed. */
export function contributionsFrom(raw: string | undefined, now: number): number | null {
  const floor = now - CONTRIBUTIONS_BACK_MS;
  if (raw === undefined || raw === '') return floor;
  if (!/^\d{1,16}$/.test(raw)) return null;
  const from = Number(raw);
  if (!Number.isSafeInteger(from)) return null;
  return Math.max(from, floor);
}

/** The contributor window end shown to the account: the stored window is the truth, else the claim. */
export const contributorUntil = (stored: number | null | undefined, claim: number | null | undefined): number | null => stored ?? claim ?? null;
