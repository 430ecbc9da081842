import { ValidationError } from '../errors';

/** 2^31: the item id range and the multiplier of `v` in a key. */
export const KEY_BASE = 2147483648;
export const PET_OFFSET = 65536;
const MAX_ITEM = KEY_BASE - 1;
const MAX_SUFFIX_V = 65535;
const MAX_PET_V = 4194303;

export interface KeyParts {
  item: number;
  v: number;
}

/** Splits a key into item id and variant `v` (spec: Item key). */
export const splitKey = (key: number): KeyParts => ({ item: key % KEY_BASE, v: Math.floor(key / KEY_BASE) });

/** True when `key` is a valid item key: a safe positive integer, item 1..2^31-1, v in 0..65535 or 65537..4194303. */
export function isItemKey(key: unknown): key is number {
  if (typeof key !== 'number' || !Number.isSafeInteger(key) || key < 1) return false;
  const { item, v } = splitKey(key);
  if (item < 1 || item > MAX_ITEM) return false;
  return v <= MAX_SUFFIX_V || (v > PET_OFFSET && v <= MAX_PET_V);
}

/** v for a suffix id s: 0 for none, 2s for s > 0, 2|s|-1 for s < 0. */
export function suffixV(suffix: number): number {
  if (!Number.isInteger(suffix) || suffix < -32768 || suffix > 32767) throw new RangeError('suffix out of range');
  if (suffix === 0) return 0;
  return suffix > 0 ? 2 * suffix : 2 * -suffix - 1;
}

/** The key of an item with an optional suffix id. */
export function itemKey(item: number, suffix = 0): number {
  return item + KEY_BASE * suffixV(suffix);
}

/** The key of a caged battle pet of a species >= 1. */
export function petKey(item: number, species: number): number {
  if (!Number.isInteger(species) || species < 1 || species > MAX_PET_V - PET_OFFSET) throw new RangeError('species out of range');
  return item + KEY_BASE * (PET_OFFSET + species);
}

export const isPetKey = (key: number): boolean => splitKey(key).v > PET_OFFSET;
export const isVariantKey = (key: number): boolean => splitKey(key).v !== 0;

const KEY_TEXT = /^[0-9]{1,16}$/;

/** Parses an item key from a path segment (up to 16 digits) or 400 `bad_item`. */
export function parseItemKey(text: string | undefined): number {
  if (text === undefined || !KEY_TEXT.test(text)) throw new ValidationError('bad_item', 'invalid item key');
  const key = Number(text);
  if (!isItemKey(key)) throw new ValidationError('bad_item', 'invalid item key');
  return key;
}

/** Keys sort by v, then item; for valid keys that is plain numeric order. */
export const compareKeys = (a: number, b: number): number => a - b;
