/**
 * Every path the file host publishes, the headers each file is written with, and how long each prefix is
 * kept (spec files-and-live: "Resources and their fields", "Caching", Limits "Retention of …").
 * Paths are relative to `cdnBase`; API answers and live messages carry absolute URLs (`fileUrl`).
 */
import { DAY_MS, HOUR_MS } from '../clock';

/** A candle block is 10 minutes: `block = floor(ms / 600000)`. */
export const BLOCK_MS = 600_000;

/** `block = floor(ms / 600000)` (spec: Resources and their fields, notation). */
export const blockOf = (ms: number): number => Math.floor(ms / BLOCK_MS);

// ── Public files ──────────────────────────────────────────────────────────────────────────

/** `snap/v1/<market>/<hour>.json.gz`: the immutable hourly snapshot (spec: Public files). */
export const snapshotPath = (market: string, hour: number): string => `snap/v1/${market}/${hour}.json.gz`;

/** `snap/v1/<market>/latest.json`: the snapshot pointer, 60 s (spec: Public files). */
export const snapshotLatestPath = (market: string): string => `snap/v1/${market}/latest.json`;

/** `recent/v1/<market>/<hour>.json.gz`: the immutable recent-changes file (spec: Public files). */
export const recentPath = (market: string, hour: number): string => `recent/v1/${market}/${hour}.json.gz`;

/** `recent/v1/<market>/latest.json`: the recent-changes pointer, 60 s (spec: Public files). */
export const recentLatestPath = (market: string): string => `recent/v1/${market}/latest.json`;

export interface ItemFilePaths {
  items: string;
  search: string;
}

/** `items/v1/<build>/…` (generated only) or `items/v1/<build>-<hash>/…` (merged with the catalogue) (spec: Public files). */
export function itemFilePaths(build: string, hash: string | null = null): ItemFilePaths {
  if (!BUILD.test(build)) throw new RangeError('a build is one path segment');
  if (hash !== null && !HASH.test(hash)) throw new RangeError('hash is 16 lowercase hex digits');
  const dir = hash === null ? `items/v1/${build}` : `items/v1/${build}-${hash}`;
  return { items: `${dir}/items.json.gz`, search: `${dir}/search.json.gz` };
}

/** `items/v1/current.json`: the item data pointer, 300 s (spec: Versioning). */
export const ITEMS_CURRENT_PATH = 'items/v1/current.json';

/** `icons/<name>.webp` (spec: Public files). */
export const iconPath = (name: string): string => `icons/${name}.webp`;

/** `icons/id/<fileID>.webp` (spec: Public files). */
export const iconIdPath = (fileId: number): string => `icons/id/${fileId}.webp`;

/** `candles/v1/h1/<market>/<hour>.json.gz`: a finished hour's public candle file (spec: Public files). */
export const hourCandlesPath = (market: string, hour: number): string => `candles/v1/h1/${market}/${hour}.json.gz`;

/** `candles/v1/d1/<market>/<day>.json.gz`: the public 7-day day candle file (spec: Public files). */
export const dayCandlesPath = (market: string, day: number): string => `candles/v1/d1/${market}/${day}.json.gz`;

// ── Capability files ──────────────────────────────────────────────────────────────────────

/** `live/v1/<market>/<seq>-<cap>.json.gz`: a change file (spec: Capability files). */
export const changePath = (market: string, seq: number, cap: string): string => `live/v1/${market}/${seq}-${checkCap(cap)}.json.gz`;

/** `live/v1/<market>/c<seq>-<cap>.json.gz`: a checkpoint (spec: Capability files). */
export const checkpointPath = (market: string, seq: number, cap: string): string => `live/v1/${market}/c${seq}-${checkCap(cap)}.json.gz`;

/** `candles/v1/m1/<market>/<cap>/<block>.json.gz`: a minute candle block (spec: Capability files). */
export const minuteBlockPath = (market: string, cap: string, block: number): string => `candles/v1/m1/${market}/${checkCap(cap)}/${block}.json.gz`;

/** `candles/v1/h1c/<market>/<cap>/<hour>.json.gz`: a capped hour copy (spec: Capability files). */
export const cappedHourPath = (market: string, cap: string, hour: number): string => `candles/v1/h1c/${market}/${checkCap(cap)}/${hour}.json.gz`;

/** `candles/v1/d1c/<market>/<cap>/<day>.json.gz`: the full 90-day day candle file (spec: Capability files). */
export const fullDayCandlesPath = (market: string, cap: string, day: number): string => `candles/v1/d1c/${market}/${checkCap(cap)}/${day}.json.gz`;

/** `volume/v1/<market>/<cap>/<day>.json.gz`: the 90-day volume estimate file (spec: Capability files). */
export const volumePath = (market: string, cap: string, day: number): string => `volume/v1/${market}/${checkCap(cap)}/${day}.json.gz`;

/** `books/v1/<market>/<at>-<cap>.json.gz`: a stored order book (spec: Capability files). */
export const bookPath = (market: string, at: number, cap: string): string => `books/v1/${market}/${at}-${checkCap(cap)}.json.gz`;

/** `{cdn_base}` + path: the absolute URL of a file in API answers and live messages (spec: What the service does). */
export function fileUrl(cdnBase: string, path: string): string {
  return `${cdnBase.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

// ── Reading a path back ───────────────────────────────────────────────────────────────────

export type FileRef =
  | { kind: 'snapshot'; market: string; hour: number }
  | { kind: 'snapshotLatest'; market: string }
  | { kind: 'recent'; market: string; hour: number }
  | { kind: 'recentLatest'; market: string }
  | { kind: 'items'; build: string; hash: string | null; file: 'items' | 'search' }
  | { kind: 'itemsCurrent' }
  | { kind: 'icon'; name: string }
  | { kind: 'iconId'; fileId: number }
  | { kind: 'h1'; market: string; hour: number }
  | { kind: 'd1'; market: string; day: number }
  | { kind: 'change'; market: string; seq: number; cap: string }
  | { kind: 'checkpoint'; market: string; seq: number; cap: string }
  | { kind: 'm1'; market: string; cap: string; block: number }
  | { kind: 'h1c'; market: string; cap: string; hour: number }
  | { kind: 'd1c'; market: string; cap: string; day: number }
  | { kind: 'volume'; market: string; cap: string; day: number }
  | { kind: 'book'; market: string; at: number; cap: string };

const CAP_TEXT = '[A-Za-z0-9_-]{22}';
const CAP = new RegExp(`^${CAP_TEXT}$`);
const BUILD = /^[^/]+$/;
const HASH = /^[0-9a-f]{16}$/;
const M = '([^/]+)';
const N = '(0|[1-9][0-9]*)';
const C = `(${CAP_TEXT})`;

function checkCap(cap: string): string {
  if (!CAP.test(cap)) throw new RangeError('a cap is 22 base64url characters');
  return cap;
}

type Reader = [RegExp, (m: RegExpMatchArray) => FileRef];

const num = Number;
const READERS: Reader[] = [
  [new RegExp(`^snap/v1/${M}/latest\\.json$`), (m) => ({ kind: 'snapshotLatest', market: m[1] })],
  [new RegExp(`^snap/v1/${M}/${N}\\.json\\.gz$`), (m) => ({ kind: 'snapshot', market: m[1], hour: num(m[2]) })],
  [new RegExp(`^recent/v1/${M}/latest\\.json$`), (m) => ({ kind: 'recentLatest', market: m[1] })],
  [new RegExp(`^recent/v1/${M}/${N}\\.json\\.gz$`), (m) => ({ kind: 'recent', market: m[1], hour: num(m[2]) })],
  [/^items\/v1\/current\.json$/, () => ({ kind: 'itemsCurrent' })],
  [
    /^items\/v1\/([^/]+?)(?:-([0-9a-f]{16}))?\/(items|search)\.json\.gz$/,
    (m) => ({ kind: 'items', build: m[1], hash: m[2] ?? null, file: m[3] as 'items' | 'search' }),
  ],
  [/^icons\/id\/(0|[1-9][0-9]*)\.webp$/, (m) => ({ kind: 'iconId', fileId: num(m[1]) })],
  [/^icons\/([^/]+)\.webp$/, (m) => ({ kind: 'icon', name: m[1] })],
  [new RegExp(`^candles/v1/h1/${M}/${N}\\.json\\.gz$`), (m) => ({ kind: 'h1', market: m[1], hour: num(m[2]) })],
  [new RegExp(`^candles/v1/d1/${M}/${N}\\.json\\.gz$`), (m) => ({ kind: 'd1', market: m[1], day: num(m[2]) })],
  [new RegExp(`^live/v1/${M}/c${N}-${C}\\.json\\.gz$`), (m) => ({ kind: 'checkpoint', market: m[1], seq: num(m[2]), cap: m[3] })],
  [new RegExp(`^live/v1/${M}/${N}-${C}\\.json\\.gz$`), (m) => ({ kind: 'change', market: m[1], seq: num(m[2]), cap: m[3] })],
  [new RegExp(`^candles/v1/m1/${M}/${C}/${N}\\.json\\.gz$`), (m) => ({ kind: 'm1', market: m[1], cap: m[2], block: num(m[3]) })],
  [new RegExp(`^candles/v1/h1c/${M}/${C}/${N}\\.json\\.gz$`), (m) => ({ kind: 'h1c', market: m[1], cap: m[2], hour: num(m[3]) })],
  [new RegExp(`^candles/v1/d1c/${M}/${C}/${N}\\.json\\.gz$`), (m) => ({ kind: 'd1c', market: m[1], cap: m[2], day: num(m[3]) })],
  [new RegExp(`^volume/v1/${M}/${C}/${N}\\.json\\.gz$`), (m) => ({ kind: 'volume', market: m[1], cap: m[2], day: num(m[3]) })],
  [new RegExp(`^books/v1/${M}/${N}-${C}\\.json\\.gz$`), (m) => ({ kind: 'book', market: m[1], at: num(m[2]), cap: m[3] })],
];

/** Reads a path built by this module back into its parts, or null for anything else (spec: Resources and their fields). */
export function parseFilePath(path: string): FileRef | null {
  for (const [pattern, read] of READERS) {
    const m = path.match(pattern);
    if (m) return read(m);
  }
  return null;
}

// ── Headers ───────────────────────────────────────────────────────────────────────────────

export const IMMUTABLE = 'public, max-age=31536000, immutable';
export const POINTER_60 = 'public, max-age=60';
export const POINTER_300 = 'public, max-age=300';
/** Generated item files are not immutable (a build can be published again); they live as long as the pointer. */
export const GENERATED_ITEMS = POINTER_300;

export interface FileHeaders {
  contentType: string;
  contentEncoding?: 'gzip';
  cacheControl: string;
}

/** The headers a file is written with: gzip for `.json.gz`, immutable or the pointer's ttl (spec: Caching). */
export function fileHeaders(path: string): FileHeaders {
  const ref = parseFilePath(path);
  if (!ref) throw new RangeError(`not a published file path: ${path}`);
  if (ref.kind === 'icon' || ref.kind === 'iconId') return { contentType: 'image/webp', cacheControl: IMMUTABLE };
  const headers: FileHeaders = { contentType: 'application/json', cacheControl: cacheControlOf(ref) };
  if (path.endsWith('.json.gz')) headers.contentEncoding = 'gzip';
  return headers;
}

function cacheControlOf(ref: FileRef): string {
  switch (ref.kind) {
    case 'snapshotLatest':
    case 'recentLatest':
      return POINTER_60;
    case 'itemsCurrent':
      return POINTER_300;
    case 'items':
      return ref.hash === null ? GENERATED_ITEMS : IMMUTABLE;
    default:
      return IMMUTABLE;
  }
}

// ── Retention ─────────────────────────────────────────────────────────────────────────────

export interface RetentionRule {
  prefix: string;
  ms: number;
}

/** How long each prefix is kept (spec Limits; DESIGN: snapshot files 7 days, recent files 8). Others are kept. */
export const RETENTION: readonly RetentionRule[] = [
  { prefix: 'live/', ms: 3 * DAY_MS },
  { prefix: 'books/', ms: 30 * DAY_MS },
  { prefix: 'candles/v1/m1/', ms: 3 * DAY_MS },
  { prefix: 'candles/v1/h1/', ms: 8 * DAY_MS },
  { prefix: 'candles/v1/h1c/', ms: 15 * DAY_MS },
  { prefix: 'candles/v1/d1/', ms: 2 * DAY_MS },
  { prefix: 'candles/v1/d1c/', ms: 2 * DAY_MS },
  { prefix: 'snap/', ms: 7 * DAY_MS },
  { prefix: 'recent/', ms: 8 * DAY_MS },
  { prefix: 'volume/', ms: 2 * DAY_MS },
];

/** The retention of a path's prefix in ms, or null when the file is kept (pointers, items, icons). */
export function retentionOf(path: string): number | null {
  const ref = parseFilePath(path);
  if (!ref || ref.kind === 'snapshotLatest' || ref.kind === 'recentLatest') return null;
  return RETENTION.find((r) => path.startsWith(r.prefix))?.ms ?? null;
}

/**
 * The time a file's age counts from: the end of the period it holds (it is written once the period is
 * over), the instant it is "as of" (snapshot, recent, book), or null when the path names no time (live
 * files: the caller's `lastModified` decides).
 */
export function fileTime(ref: FileRef): number | null {
  switch (ref.kind) {
    case 'snapshot':
    case 'recent':
      return ref.hour * HOUR_MS;
    case 'h1':
    case 'h1c':
      return (ref.hour + 1) * HOUR_MS;
    case 'm1':
      return (ref.block + 1) * BLOCK_MS;
    case 'd1':
    case 'd1c':
    case 'volume':
      return (ref.day + 1) * DAY_MS;
    case 'book':
      return ref.at;
    default:
      return null;
  }
}

export interface StoredFile {
  key: string;
  /** When it was written, on the service clock; needed for paths that name no time (live files). */
  lastModified?: number;
}

/** The keys retention deletes at `now`: files older than their prefix's retention (spec: Limits, Retention of …). */
export function expiredFiles(files: readonly StoredFile[], now: number): string[] {
  const out: string[] = [];
  for (const f of files) {
    const keep = retentionOf(f.key);
    if (keep === null) continue;
    const ref = parseFilePath(f.key) as FileRef;
    const time = fileTime(ref) ?? f.lastModified;
    if (time !== undefined && now - time > keep) out.push(f.key);
  }
  return out;
}
