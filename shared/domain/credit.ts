import { DAY_MS, HOUR_MS } from '../clock';
import type { Scan } from './derived-scan';

/** Spec Limits: credit thresholds. */
export const CONSENSUS_AGE_MS = 2 * HOUR_MS;
export const CONSENSUS_MIN_ITEMS = 20;
export const CONSENSUS_MAX_LOG = Math.LN2;
export const MIN_ITEMS = 100;
export const CREDIT_EVERY_MS = 300_000;
export const QUARANTINE_MS = 7 * DAY_MS;

export type CreditReason = 'disagrees' | 'incomplete' | 'too_small' | 'too_soon_credit';

/** The credit rules' verdict: whether the upload merges, whether it earns credit, and why not. */
export interface CreditOutcome {
  merge: boolean;
  credited: boolean;
  reason?: CreditReason;
}

/** A market row as consensus sees it: its price, reading time and the reader's opaque account hash. */
export interface Reading {
  price: number | null;
  at: number;
  reader: string;
}

export interface CreditInput {
  /** The upload's derived scan (`complete` is the book's flag). */
  scan: Scan;
  /** The uploading account's opaque hash (the partner's for `via` uploads). */
  account: string;
  /** The market's current rows by item key. */
  rows: ReadonlyMap<number, Reading>;
  /** Market items listed with a reading in the last day (see `listedInLastDay`). */
  listedLastDay: number;
  /** Server time of the account's last credited upload of this market, or null. */
  lastCreditedAt: number | null;
  /** Server clock. */
  now: number;
}

/**
 * Spec Uploads, credit rules in the spec's order: `disagrees` (not merged, quarantined), `incomplete`,
 * `too_small`, `too_soon_credit` (merged, not credited); otherwise merged and credited.
 */
export function judgeUpload(input: CreditInput): CreditOutcome {
  if (disagrees(input.scan, input.rows, input.account, input.now)) return { merge: false, credited: false, reason: 'disagrees' };
  if (!input.scan.complete) return { merge: true, credited: false, reason: 'incomplete' };
  if (tooSmall(input.scan.items.length, input.listedLastDay)) return { merge: true, credited: false, reason: 'too_small' };
  if (input.lastCreditedAt !== null && input.now - input.lastCreditedAt < CREDIT_EVERY_MS) {
    return { merge: true, credited: false, reason: 'too_soon_credit' };
  }
  return { merge: true, credited: true };
}

/**
 * Spec credit rule 1: readings by other accounts (rows with a price, read at most 2 hours before the server
 * clock, whose newest reading was made by another account) exist for at least 20 of the upload's items, and
 * the lower median of |ln(price / reading)| over them exceeds ln 2. A row's reading time is its `at`.
 */
export function disagrees(scan: Scan, rows: ReadonlyMap<number, Reading>, account: string, now: number): boolean {
  const oldest = now - CONSENSUS_AGE_MS;
  const logs: number[] = [];
  for (const [key, price] of scan.items) {
    const row = rows.get(key);
    if (row === undefined || row.price === null || row.price <= 0 || row.at < oldest || row.reader === account) continue;
    logs.push(Math.abs(Math.log(price / row.price)));
  }
  if (logs.length < CONSENSUS_MIN_ITEMS) return false;
  logs.sort((a, b) => a - b);
  return logs[(logs.length - 1) >> 1] > CONSENSUS_MAX_LOG;
}

/**
 * Spec credit rule 3: fewer than 100 keys and, when the market has items listed with a reading in the last
 * day, also fewer than a quarter of them; with no such items only the 100 keys count.
 */
export function tooSmall(keys: number, listedLastDay: number): boolean {
  if (keys >= MIN_ITEMS) return false;
  return listedLastDay === 0 || keys * 4 < listedLastDay;
}

/** Spec credit rule 3's base: the market's rows with a price whose reading is at most a day old. */
export function listedInLastDay(rows: Iterable<Reading>, now: number): number {
  const oldest = now - DAY_MS;
  let n = 0;
  for (const row of rows) if (row.price !== null && row.at >= oldest) n++;
  return n;
}
