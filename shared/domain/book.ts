import { type DomainError, ValidationError } from '../errors';
import { isItemKey } from './item-key';
import { parseMarket } from './market';

/** Spec BookEntry `[key, price, stack, band, n]`; price 0 means bid only. */
export type BookEntry = [key: number, price: number, stack: number, band: number, n: number];

/** Spec book upload body. */
export interface Book {
  market: string;
  at: number;
  complete: boolean;
  auctions: number;
  entries: BookEntry[];
  via?: string;
}

export const MAX_BOOK_ENTRIES = 200_000;
/** Spec Limits: book `at` window, 24 h behind to 5 min ahead of the server clock (inclusive, DESIGN: boundaries). */
export const BOOK_WINDOW_BEHIND_MS = 24 * 3_600_000;
export const BOOK_WINDOW_AHEAD_MS = 5 * 60_000;

/** The earliest time a market's data can carry: its first merged book may have been read 24 h before that merge. */
export const earliestDataAt = (firstMergeAt: number): number => firstMergeAt - BOOK_WINDOW_BEHIND_MS;

const MAX_PRICE = Number.MAX_SAFE_INTEGER;
const MAX_INT31 = 2_147_483_647;
const VIA = /^[A-Za-z0-9_.:-]{1,64}$/;

const bad = (message: string): DomainError => new ValidationError('bad_book', message);

/** Spec book body: parses JSON text, a non-JSON body is 400 `bad_book`. */
export function decodeBookJson(text: string | Buffer): unknown {
  try {
    return JSON.parse(typeof text === 'string' ? text : text.toString('utf8'));
  } catch {
    throw bad('body is not JSON');
  }
}

/**
 * The `via` field as sent (undefined when absent), read before validation so the route can apply the
 * partner check (403 `not_partner`) ahead of body rules, as the DESIGN's check order wants.
 */
export function viaField(value: unknown): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as { via?: unknown }).via : undefined;
}

/** Spec book body and BookEntry rules: 400 `bad_market`, then `bad_via`, then `bad_book` (parses then validates). */
export function parseBook(text: string | Buffer, now: number): Book {
  return validateBook(decodeBookJson(text), now);
}

/**
 * Spec book body and BookEntry rules on an already parsed value. Market first (400 `bad_market`, a path-level
 * check in the DESIGN's order), then `via` (400 `bad_via`), then every other field (400 `bad_book`).
 * Entries are checked in one tight pass with no per-entry allocation: 200000 of them must cost little more
 * than the JSON.parse that produced them.
 */
export function validateBook(value: unknown, now: number): Book {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad('body must be a JSON object');
  const body = value as Record<string, unknown>;
  const market = parseMarket(body.market);
  const via = body.via;
  if (via !== undefined && (typeof via !== 'string' || !VIA.test(via))) {
    throw new ValidationError('bad_via', 'via must be 1..64 characters of A-Z a-z 0-9 _ . : -');
  }
  const { at, complete, auctions, entries } = body;
  if (typeof at !== 'number' || !Number.isSafeInteger(at)) throw bad('at must be an integer (Unix ms)');
  if (at < now - BOOK_WINDOW_BEHIND_MS || at > now + BOOK_WINDOW_AHEAD_MS) {
    throw bad('at is outside the clock window (24 h behind to 5 min ahead of the server clock)');
  }
  if (typeof complete !== 'boolean') throw bad('complete must be a boolean');
  if (typeof auctions !== 'number' || !Number.isSafeInteger(auctions) || auctions < 0) throw bad('auctions must be an integer >= 0');
  if (!Array.isArray(entries)) throw bad('entries must be an array');
  if (entries.length > MAX_BOOK_ENTRIES) throw bad(`entries must hold at most ${MAX_BOOK_ENTRIES} entries`);
  const sum = checkEntries(entries);
  if (sum !== auctions) throw bad(`auctions (${auctions}) must equal the sum of n over entries (${sum})`);
  const book: Book = { market, at, complete, auctions, entries: entries as BookEntry[] };
  if (via !== undefined) book.via = via as string;
  return book;
}

/** Validates every entry and their order; returns the sum of `n`. */
function checkEntries(entries: unknown[]): number {
  let sum = 0;
  // NaN equals nothing, so the first entry's key is always validated and never out of order.
  let pKey = Number.NaN;
  let pPrice = -1;
  let pStack = -1;
  let pBand = -1;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    if (!Array.isArray(e) || e.length !== 5) throw bad(`entries[${i}] must be [key, price, stack, band, n]`);
    const key = e[0];
    const price = e[1];
    const stack = e[2];
    const band = e[3];
    const n = e[4];
    // A key repeats across its entries; validate it only when it changes (the common case is cheap).
    if (key !== pKey && !isItemKey(key)) throw bad(`entries[${i}]: invalid item key`);
    if (typeof price !== 'number' || !Number.isInteger(price) || price < 0 || price > MAX_PRICE) {
      throw bad(`entries[${i}]: price must be an integer 0..2^53-1`);
    }
    if (typeof stack !== 'number' || !Number.isInteger(stack) || stack < 1 || stack > MAX_INT31) {
      throw bad(`entries[${i}]: stack must be an integer 1..2^31-1`);
    }
    if (typeof band !== 'number' || !Number.isInteger(band) || band < 0 || band > 4) throw bad(`entries[${i}]: band must be an integer 0..4`);
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_INT31) throw bad(`entries[${i}]: n must be an integer 1..2^31-1`);
    const k = key as number;
    if (k < pKey || (k === pKey && (price < pPrice || (price === pPrice && (stack < pStack || (stack === pStack && band <= pBand)))))) {
      throw bad(`entries[${i}] must be unique and ascending by (key, price, stack, band)`);
    }
    pKey = k;
    pPrice = price;
    pStack = stack;
    pBand = band;
    sum += n;
  }
  return sum;
}
