/**
 * Item data (spec api.md: Item data): the generated item file's validation, its merge with the catalogue's
 * accepted names, the search index and the rebuild rule of merged files. Pure: values in, values out.
 */
import { en } from 'zod/locales';
// zod/mini: the items and snapshot functions parse only this file (zod's classic API would weigh on their cold start).
import * as z from 'zod/mini';
import { ValidationError } from '../errors';
import { isItemKey, isVariantKey, KEY_BASE, splitKey } from './item-key';

/** An item record: generated fields (`n` … `bt`) plus the catalogue's `fi` and `fl` (spec: Item fields). */
export interface ItemRecord {
  n?: string;
  q?: number;
  il?: number;
  c?: number;
  sc?: number;
  ic?: string;
  sell?: number;
  buy?: number;
  st?: number;
  rs?: boolean;
  bt?: number[];
  fi?: number;
  fl?: number;
}

/** A suffix or pet key's own name (spec: `variants: {<key>: {n, q, fi?}}`). */
export interface VariantRecord {
  n: string;
  q: number;
  fi?: number;
}

export interface GeneratedItemFile {
  v: 1;
  build: string;
  source: string;
  suffixes: Record<string, string>;
  statNames: Record<string, string>;
  bonusLists: Record<string, [number, Array<[number, number]>]>;
  bonusTrees: Record<string, number[]>;
  items: Record<string, ItemRecord>;
}

/** The generated file merged with the catalogue (spec: "Merged with the catalogue, additional fields"). */
export interface MergedItemFile extends GeneratedItemFile {
  variants: Record<string, VariantRecord>;
  /** `changed`: newest accepted-name change the merge includes (Unix ms, null before any); `named`: keys named by the catalogue. */
  catalogue: { changed: number | null; named: number };
}

/** Either file: the pointer may name generated-only files (`hash` null). */
export type ItemFile = GeneratedItemFile | MergedItemFile;

/** `[key, name, quality, icon, class, subclass]` (spec: Search index). */
export type SearchEntry = [key: number, name: string, quality: number, icon: string | number, cls: number | null, sub: number | null];

export interface SearchIndex {
  v: 1;
  build: string;
  items: SearchEntry[];
}

/** The catalogue's leading name of a key with the newest upload of that name (see item-catalogue.ts). */
export interface CatalogueLeader {
  key: number;
  n: string;
  /** Accounts whose latest report gives this name. */
  accounts: number;
  q: number;
  fi: number;
  fl: number;
}

// ── Build names ─────────────────────────────────────────────────────────────────────────

/**
 * A build name is one path segment (`items/v1/<build>/`) of 1..64 safe characters; one ending in
 * `-<16 hex>` is refused because it would read back as a merged directory `<build>-<hash>`.
 */
export function isBuildName(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(value) && !/-[0-9a-f]{16}$/.test(value);
}

// ── Validation of the generated file ───────────────────────────────────────────────────

const ID_TEXT = /^(0|-?[1-9][0-9]{0,9})$/;
const ICON_NAME = /^[a-z0-9_-][a-z0-9_.-]{0,127}$/;
const int = z.number().check(z.int());
const idKey = z.string().check(z.regex(ID_TEXT, 'ids are integers'));

// The messages are zod's English ones, as the classic API (which sets them on import) words them: zod/mini sets none.
z.config(en());

const Envelope = z.object({
  v: z.literal(1),
  build: z.string().check(z.refine(isBuildName, 'build must be 1..64 characters of A-Z a-z 0-9 . _ - (one path segment)')),
  source: z.string().check(z.maxLength(500)),
  suffixes: z.record(idKey, z.string()),
  statNames: z.record(idKey, z.string()),
  bonusLists: z.record(idKey, z.tuple([int, z.array(z.tuple([int, int]))])),
  bonusTrees: z.record(idKey, z.array(int)),
  items: z.record(z.string(), z.unknown()),
});

const isInt = (v: unknown, min: number, max = Number.MAX_SAFE_INTEGER): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max;

/** One item record: known fields copied when well-typed, anything else refused (a hand-written pass: files hold ~100k items). */
function itemRecord(id: string, raw: unknown): ItemRecord {
  const bad = (field: string): never => {
    throw new ValidationError('bad_request', `items.${id}.${field} is invalid`);
  };
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return bad('(record)');
  const r = raw as Record<string, unknown>;
  const out: ItemRecord = {};
  if (r.n !== undefined) out.n = typeof r.n === 'string' && r.n.length > 0 && r.n.length <= 200 ? r.n : bad('n');
  if (r.q !== undefined) out.q = isInt(r.q, 0, 10) ? r.q : bad('q');
  if (r.il !== undefined) out.il = isInt(r.il, 0) ? r.il : bad('il');
  if (r.c !== undefined) out.c = isInt(r.c, 0) ? r.c : bad('c');
  if (r.sc !== undefined) out.sc = isInt(r.sc, 0) ? r.sc : bad('sc');
  if (r.ic !== undefined) out.ic = typeof r.ic === 'string' && ICON_NAME.test(r.ic) ? r.ic : bad('ic');
  if (r.sell !== undefined) out.sell = isInt(r.sell, 0) ? r.sell : bad('sell');
  if (r.buy !== undefined) out.buy = isInt(r.buy, 0) ? r.buy : bad('buy');
  if (r.st !== undefined) out.st = isInt(r.st, 1) ? r.st : bad('st');
  if (r.rs !== undefined) out.rs = typeof r.rs === 'boolean' ? r.rs : bad('rs');
  if (r.bt !== undefined) out.bt = Array.isArray(r.bt) && r.bt.every((t) => isInt(t, 0)) ? [...(r.bt as number[])] : bad('bt');
  return out;
}

/**
 * Spec Item data, generated item file `{v: 1, build, source, suffixes, statNames, bonusLists, bonusTrees, items}`:
 * the validated file (item ids 1..2^31-1, fields typed as the spec lists them), or 400 `bad_request`.
 */
export function parseGeneratedItemFile(value: unknown): GeneratedItemFile {
  const env = Envelope.safeParse(value);
  if (!env.success) {
    const issue = env.error.issues[0];
    throw new ValidationError('bad_request', `${issue.path.join('.') || 'file'}: ${issue.message}`);
  }
  const items: Record<string, ItemRecord> = {};
  const ids = Object.keys(env.data.items)
    .map((id) => {
      const n = Number(id);
      if (!/^[1-9][0-9]{0,9}$/.test(id) || !isItemKey(n) || n >= KEY_BASE) throw new ValidationError('bad_request', `items: ${id} is not an item id`);
      return n;
    })
    .sort((a, b) => a - b);
  for (const id of ids) items[id] = itemRecord(String(id), env.data.items[id]);
  return { ...env.data, v: 1, items };
}

// ── Merge with the catalogue ───────────────────────────────────────────────────────────

const hasName = (r: ItemRecord | undefined): boolean => typeof r?.n === 'string' && r.n.length > 0;

/** Whether a key has a row in some market (what GET /api/v1/items/unknown asks apps to name). */
export type ObservedKey = (key: number) => boolean;

/**
 * Spec Catalogue upload rules, naming: the leading name is accepted when at least two accounts gave it, or
 * one did and the generated data has no name for the key (variant and pet keys never have one).
 *
 * Deviation for abuse resistance (issue 23 point 1): one account's name counts only for a key that has a row
 * in some market (`observed`), the keys `/api/v1/items/unknown` lists. Otherwise one account could put any
 * number of never-observed keys into the public item data; its reports are kept and merged by the first
 * rebuild after the key's first row.
 */
export function isAcceptedName(leader: Pick<CatalogueLeader, 'key' | 'accounts'>, generated: GeneratedItemFile, observed: ObservedKey): boolean {
  if (leader.accounts >= 2) return true;
  if (leader.accounts < 1) return false;
  return (isVariantKey(leader.key) || !hasName(generated.items[leader.key])) && observed(leader.key);
}

/**
 * Spec Catalogue upload rules, merge: a plain key absent from generated items is added as `{n, q, fi?, fl}`;
 * a generated entry receives only the fields it lacks (`n`, `q`, `fi` when it has no `ic`, `fl`); variant
 * and pet keys go under `variants`; generated fields win. Only accepted names count (see `isAcceptedName`).
 */
export function mergeItems(generated: GeneratedItemFile, leaders: Iterable<CatalogueLeader>, changed: number | null, observed: ObservedKey): MergedItemFile {
  const items: Record<string, ItemRecord> = {};
  for (const [id, rec] of Object.entries(generated.items)) items[id] = { ...rec };
  const variants: Record<string, VariantRecord> = {};
  let named = 0;
  const sorted = [...leaders].filter((l) => isAcceptedName(l, generated, observed)).sort((a, b) => a.key - b.key);
  for (const l of sorted) {
    const fi = l.fi > 0 ? l.fi : undefined;
    if (isVariantKey(l.key)) {
      variants[l.key] = fi === undefined ? { n: l.n, q: l.q } : { n: l.n, q: l.q, fi };
      named++;
      continue;
    }
    const rec = items[l.key];
    if (!rec) {
      items[l.key] = fi === undefined ? { n: l.n, q: l.q, fl: l.fl } : { n: l.n, q: l.q, fi, fl: l.fl };
      named++;
      continue;
    }
    if (!hasName(rec)) {
      rec.n = l.n;
      named++;
    }
    if (rec.q === undefined) rec.q = l.q;
    if (rec.ic === undefined && rec.fi === undefined && fi !== undefined) rec.fi = fi;
    if (rec.fl === undefined) rec.fl = l.fl;
  }
  return { ...generated, items, variants, catalogue: { changed, named } };
}

// ── Reading a key ──────────────────────────────────────────────────────────────────────

/** Spec GET /api/v1/items/:key: the record of the key's item id and, for suffix or pet keys, the key's own name. */
export function itemOfKey(file: ItemFile, key: number): { item: ItemRecord | null; variant?: VariantRecord } {
  const item = file.items[splitKey(key).item] ?? null;
  if (!isVariantKey(key)) return { item };
  const variant = 'variants' in file ? file.variants[key] : undefined;
  return variant ? { item, variant } : { item };
}

/** The name a key goes by: a variant's own name for suffix and pet keys, else the item's; null when it has none. */
export function nameOfKey(file: ItemFile | null, key: number): string | null {
  if (!file) return null;
  const { item, variant } = itemOfKey(file, key);
  if (isVariantKey(key)) return variant?.n ?? null;
  return hasName(item ?? undefined) ? (item as ItemRecord).n! : null;
}

/** Spec GET /api/v1/items/unknown: keys with a row and no name, ascending and distinct. */
export function unknownKeys(file: ItemFile | null, keysWithRows: Iterable<number>): number[] {
  const out = new Set<number>();
  for (const k of keysWithRows) if (nameOfKey(file, k) === null) out.add(k);
  return [...out].sort((a, b) => a - b);
}

// ── Search index ───────────────────────────────────────────────────────────────────────

const iconOf = (r: { ic?: string; fi?: number } | undefined): string | number => r?.ic ?? r?.fi ?? 0;

/** Name order of the search index: case-insensitive (code units of the lower-cased name, locale-free), then key. */
export function compareSearchEntries(a: SearchEntry, b: SearchEntry): number {
  const x = a[1].toLowerCase();
  const y = b[1].toLowerCase();
  if (x !== y) return x < y ? -1 : 1;
  return a[0] - b[0];
}

/**
 * Spec Search index `{v: 1, build, items: [key, name, quality, icon, class, subclass][]}`: every named key
 * (variants with their base item's class and subclass and, lacking their own, its icon), sorted by name
 * case-insensitively, then key. `icon` is the icon name, else the icon file id, else 0; a missing quality is 0.
 */
export function buildSearchIndex(file: ItemFile): SearchIndex {
  const items: SearchEntry[] = [];
  for (const [id, rec] of Object.entries(file.items)) {
    if (hasName(rec)) items.push([Number(id), rec.n!, rec.q ?? 0, iconOf(rec), rec.c ?? null, rec.sc ?? null]);
  }
  if ('variants' in file) {
    for (const [key, v] of Object.entries(file.variants)) {
      const base = file.items[splitKey(Number(key)).item];
      items.push([Number(key), v.n, v.q, v.fi ?? iconOf(base), base?.c ?? null, base?.sc ?? null]);
    }
  }
  items.sort(compareSearchEntries);
  return { v: 1, build: file.build, items };
}

// ── Rebuild rule ───────────────────────────────────────────────────────────────────────

/** Merged files are rebuilt at most this often after a name change (spec Limits: merged item files). */
export const REBUILD_AFTER_MS = 600_000;

export interface MergedState {
  /** Hash of the build's merged files, null while they are missing. */
  hash: string | null;
  /** Service time the merged files were built. */
  mergedAt: number | null;
  /** The catalogue's name revision (count of accepted-name changes) those files include. */
  revision: number;
}

/**
 * Spec Catalogue upload rules: merged files are rebuilt when missing, or when an accepted name changed since
 * the last build (the catalogue's name revision moved on) and that build is at least 10 minutes old.
 */
export function needsRebuild(state: MergedState, revision: number, now: number): boolean {
  if (state.hash === null || state.mergedAt === null) return true;
  return revision > state.revision && now - state.mergedAt >= REBUILD_AFTER_MS;
}
