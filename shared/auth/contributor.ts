/**
 * The contributor window (spec: "Contributor window") and the account's contribution records
 * (`GET /api/v1/contributions`, `scans7d` of `/me`). Called by the upload path on every accepted upload.
 */
import { CLAIM_EVERY_MS, CONTRIBUTIONS_MAX, type ContributionRecord, SCANS_WINDOW_MS, windowEnd } from '../domain/contributor';
import type { Services } from '../services';
import { mergePublicMetadata } from './idp';

export type { ContributionRecord } from '../domain/contributor';

/**
 * Extends the account's window after a credited upload: end = max(current, now + 14 days). On the first
 * credit, or when the last claim write is at least an hour old, the end is merged into the provider's public
 * metadata as `contributorUntil`. A failed claim write is logged and retried on the next credit; the stored
 * window stays the truth. `claimWritten` tells the caller to tell the account's live sockets.
 */
export async function extendContributorWindow(
  svc: Pick<Services, 'config' | 'identity' | 'log'>,
  userId: string,
  now: number,
): Promise<{ until: number; claimWritten: boolean }> {
  const profile = await svc.identity.getProfile(userId);
  // The current end is the later of the stored window and a claim the provider holds from elsewhere (e.g. set
  // by an admin): the window never moves back, and the claim write below must not lower it.
  const current = Math.max(profile.windowUntil ?? 0, profile.claims?.contributorUntil ?? 0) || null;
  const until = await svc.identity.raiseWindow(userId, windowEnd(current, now));
  const slot = await svc.identity.takeClaimSlot(userId, now, now - CLAIM_EVERY_MS);
  if (!slot.won) return { until, claimWritten: false };
  try {
    await mergePublicMetadata(svc, userId, { contributorUntil: until });
    return { until, claimWritten: true };
  } catch (err) {
    svc.log('warn', 'contributor claim write failed; retried on the next credit', { error: err instanceof Error ? err.message : String(err) });
    await svc.identity.releaseClaimSlot(userId, now, slot.previous);
    return { until, claimWritten: false };
  }
}

/** The stored window end, or null before the first credit. */
export async function storedContributorUntil(svc: Pick<Services, 'identity'>, userId: string): Promise<number | null> {
  return (await svc.identity.getProfile(userId)).windowUntil;
}

/**
 * Records one of the account's uploads as received now. Pass a stable `id` (e.g. the upload's idempotency
 * key) so a retried upload at the same instant is not listed twice.
 */
export async function recordContribution(svc: Pick<Services, 'clock' | 'identity'>, userId: string, record: ContributionRecord, id?: string): Promise<void> {
  await svc.identity.putContribution(userId, record, svc.clock.now(), id);
}

/** The account's uploads received at or after `from` (already clamped by the caller), newest first, at most 1000. */
export function listContributions(svc: Pick<Services, 'identity'>, userId: string, from: number, now: number): Promise<ContributionRecord[]> {
  return svc.identity.queryContributions(userId, from, now, CONTRIBUTIONS_MAX);
}

/** Credited uploads of the account in the last 7 days. */
export function scans7d(svc: Pick<Services, 'identity'>, userId: string, now: number): Promise<number> {
  return svc.identity.countCredited(userId, now - SCANS_WINDOW_MS, now);
}
