/**
 * Capabilities: the unguessable path segment that protects paid files, its scopes, and which caps a caller
 * is given (spec files-and-live: Authentication "capability rule", "Caps object").
 */
import { DAY_MS, HOUR_MS } from '../clock';
import { BLOCK_MS, type FileRef } from './file-paths';
import type { Feature, Limits } from './roles';

/** 16 random bytes = 128 bits (spec Limits: capability length). */
export const CAP_BYTES = 16;
export const CAP_PATTERN = /^[A-Za-z0-9_-]{22}$/;

/** Days of minute-block caps handed out (today included) and of capped hour copies (spec: Caps object). */
export const M1_CAP_DAYS = 3;
export const H1_CAP_DAYS = 15;

/** A new cap: 22 base64url characters from 16 bytes of a secure source, e.g. `crypto.randomBytes` (capability rule 1). */
export function newCap(randomBytes: (n: number) => Uint8Array): string {
  const bytes = randomBytes(CAP_BYTES);
  if (bytes.length !== CAP_BYTES) throw new RangeError(`a cap needs ${CAP_BYTES} random bytes`);
  return Buffer.from(bytes).toString('base64url');
}

/** True for 22 base64url characters, the shape of every cap (capability rule 1). */
export const isCap = (value: unknown): value is string => typeof value === 'string' && CAP_PATTERN.test(value);

/**
 * One cap per scope (capability rule 3): a live change or checkpoint, a book, a full day file and a volume
 * file each have their own; minute blocks and capped hour copies share one per (market, UTC day).
 */
export type CapScope =
  | { kind: 'change'; market: string; seq: number }
  | { kind: 'checkpoint'; market: string; seq: number }
  | { kind: 'm1'; market: string; day: number }
  | { kind: 'h1'; market: string; day: number }
  | { kind: 'd1'; market: string; day: number }
  | { kind: 'book'; market: string; at: number }
  | { kind: 'volume'; market: string; day: number };

/** The scope whose cap a capability path carries, or null for public paths (capability rule 3). */
export function capScopeOf(ref: FileRef): CapScope | null {
  switch (ref.kind) {
    case 'change':
    case 'checkpoint':
      return { kind: ref.kind, market: ref.market, seq: ref.seq };
    case 'm1':
      return { kind: 'm1', market: ref.market, day: Math.floor((ref.block * BLOCK_MS) / DAY_MS) };
    case 'h1c':
      return { kind: 'h1', market: ref.market, day: Math.floor((ref.hour * HOUR_MS) / DAY_MS) };
    case 'd1c':
      return { kind: 'd1', market: ref.market, day: ref.day };
    case 'volume':
      return { kind: 'volume', market: ref.market, day: ref.day };
    case 'book':
      return { kind: 'book', market: ref.market, at: ref.at };
    default:
      return null;
  }
}

/** Where caps are kept per market; the storage adapter implements it. */
export interface CapStore {
  /** The scope's cap, or null when none was made. */
  get(scope: CapScope): Promise<string | null>;
  /** The scope's cap, made once when it has none; when two makers race, the stored one wins and both answer it. */
  create(scope: CapScope): Promise<string>;
}

const scopeId = (s: CapScope): string => {
  const n = s.kind === 'change' || s.kind === 'checkpoint' ? s.seq : s.kind === 'book' ? s.at : s.day;
  return `${s.market}|${s.kind}|${n}`;
};

/** An in-memory CapStore: the reference model for tests and the pure parts of the local runtime. */
export class MemoryCapStore implements CapStore {
  private readonly caps = new Map<string, string>();

  constructor(private readonly randomBytes: (n: number) => Uint8Array) {}

  async get(scope: CapScope): Promise<string | null> {
    return this.caps.get(scopeId(scope)) ?? null;
  }

  async create(scope: CapScope): Promise<string> {
    const id = scopeId(scope);
    let cap = this.caps.get(id);
    if (cap === undefined) {
      cap = newCap(this.randomBytes);
      this.caps.set(id, cap);
    }
    return cap;
  }
}

/** The days whose day-scoped caps exist at `today`: made when the day begins (spec: Caps object, rule 3). */
export function capDays(today: number): { m1: number[]; h1: number[] } {
  const span = (n: number) => Array.from({ length: n }, (_, i) => today - n + 1 + i);
  return { m1: span(M1_CAP_DAYS), h1: span(H1_CAP_DAYS) };
}

/** `Caps` = `{m1?: {<day>: cap}, h1?: {<day>: cap}, d1?: url, volume?: url}` (spec: Caps object). */
export interface Caps {
  m1?: Record<string, string>;
  h1?: Record<string, string>;
  d1?: string;
  volume?: string;
}

/** What a market has made so far; `d1Url` and `volumeUrl` are absent until their first file exists. */
export interface CapState {
  m1DayCaps: ReadonlyMap<number, string>;
  h1DayCaps: ReadonlyMap<number, string>;
  d1Url?: string;
  volumeUrl?: string;
}

export interface CapHolder {
  features: readonly Feature[];
  limits: Pick<Limits, 'historyDays'>;
}

/**
 * The caller's Caps (spec: Caps object; capability rule 2): `m1` with `candles.minute` (3 days), `h1` and
 * `d1` with `historyDays` above 7 (15 days; `d1` once the file exists), `volume` with `depth` once it exists.
 */
export function capsFor(caller: CapHolder, state: CapState, today: number): Caps {
  const days = capDays(today);
  const pick = (caps: ReadonlyMap<number, string>, wanted: number[]): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const d of wanted) {
      const cap = caps.get(d);
      if (cap !== undefined) out[d] = cap;
    }
    return out;
  };
  const caps: Caps = {};
  const longHistory = caller.limits.historyDays > 7;
  if (caller.features.includes('candles.minute')) caps.m1 = pick(state.m1DayCaps, days.m1);
  if (longHistory) caps.h1 = pick(state.h1DayCaps, days.h1);
  if (longHistory && state.d1Url !== undefined) caps.d1 = state.d1Url;
  if (caller.features.includes('depth') && state.volumeUrl !== undefined) caps.volume = state.volumeUrl;
  return caps;
}
