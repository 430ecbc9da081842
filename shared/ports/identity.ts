/**
 * The identity port: what the service keeps about callers. API key verdicts (by the key's hash), an account's
 * contribution records, device pairings, devices and device tokens (hashes only), missed pairing confirms, the
 * account profile (cached provider claims, the contributor window) and per-caller request counters (plain
 * counts and reservations below a bound).
 */

import type { ContributionRecord } from '../domain/contributor';
import type { Pairing } from '../domain/pairing';

/**
 * A verification result: the key's user and scopes, or a refusal; valid until `until` (service clock). Scopes
 * null only in verdicts cached before an empty list meant no feature: read as none.
 */
export type KeyVerdict = { ok: true; userId: string; scopes: string[] | null; until: number } | { ok: false; until: number };

export interface DeviceRecord {
  id: string;
  userId: string;
  name: string;
  created: number;
  lastSeen: number | null;
  /** The token was collected; until then the device is never listed and dies after 2 hours. */
  collected: boolean;
  tokenHash: string | null;
}

export interface DeviceTokenRecord {
  userId: string;
  deviceId: string;
  seen: number | null;
}

/** What a user's record at the identity provider says about roles (public metadata), plus the primary email. */
export interface UserClaims {
  email: string | null;
  plan: string | null;
  contributorUntil: number | null;
  grants: string[];
  withhold: string[];
  partner: boolean;
}

/** The user's claims as the identity provider last told them. */
export interface StoredClaims extends UserClaims {
  /** When they were read from the provider (service clock). */
  fetchedAt: number;
}

export interface Profile {
  claims: StoredClaims | null;
  /** The contributor window end (the truth; the provider's claim may lag). */
  windowUntil: number | null;
  /** When the window end was last written to the provider. */
  claimAt: number | null;
}

export interface IdentityPort {
  /** The cached verdict of a key, or null when none is cached or it has expired. */
  getKeyVerdict(keyHash: string, now: number): Promise<KeyVerdict | null>;
  /**
   * Caches a verdict until its `until`. An accepted key is also remembered as verified before for
   * `KEY_SEEN_MS` (domain/flood-limits.ts) after that, until a refusal of it replaces the record.
   */
  putKeyVerdict(keyHash: string, v: KeyVerdict): Promise<void>;
  /** Whether the provider accepted the key within the last `KEY_SEEN_MS` (its verdict may have lapsed). */
  wasKeyVerified(keyHash: string, now: number): Promise<boolean>;
  /** Stores a record received at `received`; the same `id` at the same time overwrites rather than doubles. */
  putContribution(userId: string, rec: ContributionRecord, received: number, id?: string): Promise<void>;
  /** Records received at or after `from`, newest first, at most `max`. */
  queryContributions(userId: string, from: number, now: number, max: number): Promise<ContributionRecord[]>;
  /** How many credited records were received at or after `from`. */
  countCredited(userId: string, from: number, now: number): Promise<number>;
  /** Stores a new waiting pairing and its code; false when the code is taken by a live pairing (pick another). */
  putPairing(p: Pairing, codeHash: string, now: number): Promise<boolean>;
  /** The pairing a code names, or null. */
  pairingByCode(codeHash: string, now: number): Promise<Pairing | null>;
  /** A pairing by id, or null. */
  getPairing(pairId: string, now: number): Promise<Pairing | null>;
  /** Binds a waiting, unexpired pairing to an account and creates its (not yet listed) device; false when it lost a race. */
  bindPairing(pairId: string, device: DeviceRecord, now: number, deleteAt: number): Promise<boolean>;
  /** Hands the token over once: the pairing becomes `paired`, the device listed, the token hash live; false when it lost a race. */
  collectPairing(p: Pairing, tokenHash: string, now: number): Promise<boolean>;
  /** A device of an account (collected or not), or null. */
  getDevice(userId: string, deviceId: string, now: number): Promise<DeviceRecord | null>;
  /** An account's collected devices (uncollected ones are never listed). */
  listDevices(userId: string, now: number): Promise<DeviceRecord[]>;
  /** Deletes a device and its token in one step, so the token stops working at once; false when there was none. */
  deleteDevice(device: DeviceRecord): Promise<boolean>;
  /** The device a token hash belongs to, or null (strongly consistent: a deleted device's token must fail at once). */
  deviceByToken(tokenHash: string): Promise<DeviceTokenRecord | null>;
  /** Records that a device was seen; conditional so concurrent requests write once and a deleted device is not revived. */
  touchDevice(token: DeviceTokenRecord, tokenHash: string, now: number, cutoff: number): Promise<void>;
  /**
   * Takes a place in the account's current window (`windowMs` from its first counted confirm, at most `limit`
   * places); answers the window's start, or null when the window is full.
   */
  takePairingPlace(userId: string, now: number, limit: number, windowMs: number): Promise<number | null>;
  /** Gives a place back to the window it was taken in (a confirm that bound a code was no miss). */
  returnPairingPlace(userId: string, windowStart: number): Promise<void>;
  /** Reads an account's profile (empty when none was stored). */
  getProfile(userId: string): Promise<Profile>;
  /** Stores freshly read claims; the window attributes are untouched (other writers own them). */
  putClaims(userId: string, claims: StoredClaims): Promise<void>;
  /** Raises the window end to `until` unless it is already later; answers the stored end. */
  raiseWindow(userId: string, until: number): Promise<number>;
  /**
   * Takes the right to write the claim now (first write, or the last one at or before `cutoff`); exactly one
   * concurrent caller wins. Answers the previous write time to give the slot back when the write fails.
   */
  takeClaimSlot(userId: string, now: number, cutoff: number): Promise<{ won: boolean; previous: number | null }>;
  /** Gives a claim slot back after a failed write, so the next credit tries again. */
  releaseClaimSlot(userId: string, taken: number, previous: number | null): Promise<void>;
  /** Counts `n` (default 1) requests of a caller in the current minute, atomically; answers the minute's count so far. */
  countRequest(callerId: string, now: number, n?: number): Promise<number>;
  /**
   * Adds `n` to a counter's window (the minute holding `now`, or the `windowMs` window) in one atomic step,
   * only while its count is below `below`; answers the new count, or null when it was already at or past
   * `below` (nothing added). Rate meters reserve places with it before spending them.
   */
  reserveCount(callerId: string, now: number, n: number, below: number, windowMs?: number): Promise<number | null>;
}
