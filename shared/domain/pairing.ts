/** Device pairing rules (spec: "Device pairing" state table). Pure: time and randomness are passed in. */
import { HOUR_MS, MINUTE_MS } from '../clock';

/** `A-Z2-9` without I, O, 0 and 1: 32 characters that cannot be misread. */
export const PAIR_CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
export const PAIR_CODE_LENGTH = 8;
/** A pairing (waiting or bound) expires 10 minutes after it was opened. */
export const PAIRING_VALID_MS = 10 * MINUTE_MS;
/** A bound device whose token was never collected is deleted after 2 hours. */
export const UNCOLLECTED_DEVICE_MS = 2 * HOUR_MS;
/** `lastSeen` is refreshed at most every 10 minutes. */
export const LAST_SEEN_EVERY_MS = 10 * MINUTE_MS;
/** The longest device name kept. */
export const DEVICE_NAME_MAX = 100;
export const DEFAULT_DEVICE_NAME = 'Desktop app';

export const DEVICE_TOKEN_PREFIX = 'svc_dev_';
const DEVICE_TOKEN_RE = /^svc_dev_[A-Za-z0-9_-]{43}$/;

export type PairingState = 'waiting' | 'bound' | 'paired';

export interface Pairing {
  pairId: string;
  name: string;
  created: number;
  expires: number;
  state: PairingState;
  userId?: string;
  deviceId?: string;
}

/** A new pairing code from a uniform random source (`randomInt(n)` in 0..n-1). */
export function newPairCode(randomInt: (n: number) => number): string {
  let code = '';
  for (let i = 0; i < PAIR_CODE_LENGTH; i++) code += PAIR_CODE_ALPHABET[randomInt(PAIR_CODE_ALPHABET.length)];
  return code;
}

/** The code as typed, with spaces and dashes dropped and letters upper-cased; null when it cannot be a code. */
export function normalizePairCode(input: unknown): string | null {
  if (typeof input !== 'string' || input.length > 64) return null;
  const code = input.replace(/[\s-]+/g, '').toUpperCase();
  if (code.length !== PAIR_CODE_LENGTH) return null;
  for (const ch of code) if (!PAIR_CODE_ALPHABET.includes(ch)) return null;
  return code;
}

/** Whether a bearer token has the device token's shape (`svc_dev_` + 43 base64url characters). */
export const isDeviceTokenShape = (token: string): boolean => DEVICE_TOKEN_RE.test(token);

export type PollOutcome = 'waiting' | 'collect' | 'gone';

/** What a poll of a pairing answers: waiting, the token (once, when bound), or 404 (expired, collected, unknown). */
export function pollOutcome(p: Pairing | null, now: number): PollOutcome {
  if (!p || now >= p.expires) return 'gone';
  if (p.state === 'waiting') return 'waiting';
  return p.state === 'bound' ? 'collect' : 'gone';
}

export type ConfirmOutcome = 'unknown' | 'expired' | 'bind' | 'same';

/** What confirming a code does for an account: bind it, answer the device it already bound, 404 or 410. */
export function confirmOutcome(p: Pairing | null, userId: string, now: number): ConfirmOutcome {
  if (!p) return 'unknown';
  // Another account's code is unknown to this one, expired or not: it must not learn the code exists.
  if (p.state !== 'waiting' && p.userId !== userId) return 'unknown';
  if (now >= p.expires) return 'expired';
  return p.state === 'waiting' ? 'bind' : 'same';
}

/** Whether a device's `lastSeen` is due for a refresh. */
export const lastSeenDue = (lastSeen: number | undefined, now: number): boolean => lastSeen === undefined || now - lastSeen >= LAST_SEEN_EVERY_MS;
