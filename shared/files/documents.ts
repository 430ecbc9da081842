/**
 * Bodies of the published files, each with `v: 1` (spec files-and-live: Resources and their fields,
 * Versioning; api.md: Hourly snapshot, AuctionRow, Candle). Pure: inputs in, JSON-ready objects out;
 * lists ascending by key, candles ascending by `t`.
 */
import { DAY_MS, HOUR_MS } from '../clock';
import type { Candle } from '../domain/candles';
import { BLOCK_MS } from '../domain/file-paths';
import type { AuctionRow } from '../domain/merge';

export type { AuctionRow, Candle };

/** `[t, open, high, low, close, quantity]` (api.md: Candle on the wire). */
export type WireCandle = [t: number, open: number, high: number, low: number, close: number, quantity: number];

/** `[day, listed, sold, expired]` (api.md: Volume estimate). */
export type VolumeEstimate = [day: number, listed: number, sold: number, expired: number];

/** `[day, close, quantity]`: a daily close in the hourly snapshot's `days`. */
export type DayClose = [day: number, close: number, quantity: number];

/** A candle on the wire, starting at `t` Unix ms (api.md: Candle). */
export const wireCandle = (t: number, c: Candle): WireCandle => [t, c.open, c.high, c.low, c.close, c.quantity];

const rowsByKey = (rows: readonly AuctionRow[]): AuctionRow[] => [...rows].sort((a, b) => a[0] - b[0]);
const entries = <T>(m: ReadonlyMap<number, T>): [number, T][] => [...m.entries()].sort((a, b) => a[0] - b[0]);

/** 30 days: the hourly view keeps every key whose reading is at most this much older than `at`. */
export const HOURLY_VIEW_MS = 30 * DAY_MS;

// ── Hourly snapshot and pointers ─────────────────────────────────────────────────────────

export interface HourlySnapshot {
  v: 1;
  market: string;
  at: number;
  scan: number | null;
  rows: AuctionRow[];
  days: [number, DayClose[]][];
  now: number;
}

export interface HourlySnapshotInput {
  market: string;
  hour: number;
  scan: number | null;
  /** The market's rows as of the hour's start (the freshness rule already applied). */
  rows: readonly AuctionRow[];
  days: ReadonlyMap<number, readonly DayClose[]>;
  now: number;
}

/** The hourly snapshot `{v, market, at, scan, rows, days, now}`; rows older than 30 days before `at` are left out (api.md: Hourly snapshot). */
export function hourlySnapshotDoc(input: HourlySnapshotInput): HourlySnapshot {
  const at = input.hour * HOUR_MS;
  const rows = rowsByKey(input.rows.filter((r) => at - r[3] <= HOURLY_VIEW_MS));
  const days: [number, DayClose[]][] = entries(input.days)
    .filter(([, list]) => list.length > 0)
    .map(([key, list]) => [key, [...list].sort((a, b) => a[0] - b[0])]);
  return { v: 1, market: input.market, at, scan: input.scan, rows, days, now: input.now };
}

export interface LatestPointer {
  v: 1;
  market: string;
  hour: number;
  at: number;
  path: string;
}

/** The `latest.json` pointer `{v: 1, market, hour, at, path}` of snapshots and recent changes (spec: Public files). */
export const latestPointerDoc = (market: string, hour: number, path: string): LatestPointer => ({ v: 1, market, hour, at: hour * HOUR_MS, path });

export interface ItemsCurrent {
  v: 1;
  build: string;
  hash: string | null;
  items: string;
  search: string;
  at: number;
}

/** The item pointer `{v: 1, build, hash, items, search, at}`; `hash` null for generated-only files (spec: Public files). */
export const itemsCurrentDoc = (build: string, hash: string | null, paths: { items: string; search: string }, at: number): ItemsCurrent => ({
  v: 1,
  build,
  hash,
  items: paths.items,
  search: paths.search,
  at,
});

// ── Candle files ─────────────────────────────────────────────────────────────────────────

export interface HourCandlesFile {
  v: 1;
  market: string;
  res: 'h1';
  t: number;
  items: [number, WireCandle][];
}

/** The hour file `{v: 1, market, res: "h1", t, items: [key, candle][]}`, public or capped copy (spec: Public files; DESIGN: h1 entries). */
export function hourCandlesDoc(market: string, hour: number, candles: ReadonlyMap<number, Candle>): HourCandlesFile {
  const t = hour * HOUR_MS;
  return { v: 1, market, res: 'h1', t, items: entries(candles).map(([key, c]) => [key, wireCandle(t, c)]) };
}

export interface DayCandlesFile {
  v: 1;
  market: string;
  res: 'd1';
  t: number;
  days: 7 | 90;
  items: [number, WireCandle[]][];
}

/** Day candles per item: `[day, candle]` pairs. */
export type DayCandles = ReadonlyMap<number, readonly (readonly [day: number, candle: Candle])[]>;

/** The day file of days `day-6 … day` (public, `days: 7`) or `day-89 … day` (capped, `days: 90`) (spec: Public files, Capability files). */
export function dayCandlesDoc(market: string, day: number, days: 7 | 90, candles: DayCandles): DayCandlesFile {
  const first = day - days + 1;
  const items: [number, WireCandle[]][] = [];
  for (const [key, list] of entries(candles)) {
    const inWindow = list.filter(([d]) => d >= first && d <= day).sort((a, b) => a[0] - b[0]);
    if (inWindow.length > 0) items.push([key, inWindow.map(([d, c]) => wireCandle(d * DAY_MS, c))]);
  }
  return { v: 1, market, res: 'd1', t: day * DAY_MS, days, items };
}

export interface MinuteBlockFile {
  v: 1;
  market: string;
  res: 'm1';
  t: number;
  items: [number, WireCandle[]][];
}

/** Minute candles per item: `[minute, candle]` pairs (minute = floor(ms / 60000)). */
export type MinuteCandles = ReadonlyMap<number, readonly (readonly [minute: number, candle: Candle])[]>;

/** The minute block `{v: 1, market, res: "m1", t, items: [key, candles][]}` of the block's 10 minutes, per item with any (spec: Capability files). */
export function minuteBlockDoc(market: string, block: number, candles: MinuteCandles): MinuteBlockFile {
  const t = block * BLOCK_MS;
  const first = t / 60_000;
  const last = first + BLOCK_MS / 60_000 - 1;
  const items: [number, WireCandle[]][] = [];
  for (const [key, list] of entries(candles)) {
    const inBlock = list.filter(([m]) => m >= first && m <= last).sort((a, b) => a[0] - b[0]);
    if (inBlock.length > 0) items.push([key, inBlock.map(([m, c]) => wireCandle(m * 60_000, c))]);
  }
  return { v: 1, market, res: 'm1', t, items };
}

// ── Live files ───────────────────────────────────────────────────────────────────────────

export interface ChangeFile {
  v: 1;
  market: string;
  seq: number;
  at: number;
  rows: AuctionRow[];
}

/** A change file `{v: 1, market, seq, at, rows}`: the rows merge `seq` changed; `at` the market's newest scan (spec: Capability files). */
export const changeDoc = (market: string, seq: number, at: number, rows: readonly AuctionRow[]): ChangeFile => ({
  v: 1,
  market,
  seq,
  at,
  rows: rowsByKey(rows),
});

/** A checkpoint `{v: 1, market, seq, at, rows}` with the whole table after merge `seq` (spec: Capability files). */
export const checkpointDoc = (market: string, seq: number, at: number, table: readonly AuctionRow[]): ChangeFile => changeDoc(market, seq, at, table);

export const CHECKPOINT_EVERY = 50;
/** A checkpoint follows merge 1 and every merge whose seq is a multiple of 50 (spec: Sequence numbers). */
export const isCheckpointSeq = (seq: number): boolean => seq === 1 || (seq > 0 && seq % CHECKPOINT_EVERY === 0);

// ── Depth files ──────────────────────────────────────────────────────────────────────────

export interface VolumeFile {
  v: 1;
  market: string;
  t: number;
  days: 90;
  items: [number, VolumeEstimate[]][];
}

/** The volume file `{v: 1, market, t, days: 90, items: [key, [day, listed, sold, expired][]][]}` of days `day-89 … day` (spec: Capability files). */
export function volumeDoc(market: string, day: number, estimates: ReadonlyMap<number, readonly VolumeEstimate[]>): VolumeFile {
  const first = day - 89;
  const items: [number, VolumeEstimate[]][] = [];
  for (const [key, list] of entries(estimates)) {
    const inWindow = list.filter((e) => e[0] >= first && e[0] <= day).sort((a, b) => a[0] - b[0]);
    if (inWindow.length > 0) items.push([key, inWindow.map((e) => [e[0], e[1], e[2], e[3]])]);
  }
  return { v: 1, market, t: day * DAY_MS, days: 90, items };
}

/** `[key, price, stack, band, n]` (api.md: BookEntry). */
export type BookEntry = [key: number, price: number, stack: number, band: number, n: number];

export interface BookFile {
  v: 1;
  market: string;
  at: number;
  complete: boolean;
  auctions: number;
  entries: BookEntry[];
}

/** The book file: the stored book `{market, at, complete, auctions, entries}` plus `v: 1`; `via` stays out (spec: Capability files, Versioning). */
export const bookDoc = (book: { market: string; at: number; complete: boolean; auctions: number; entries: BookEntry[] }): BookFile => ({
  v: 1,
  market: book.market,
  at: book.at,
  complete: book.complete,
  auctions: book.auctions,
  entries: book.entries,
});
