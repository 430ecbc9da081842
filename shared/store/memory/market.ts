/**
 * In-memory fake of the market port (unit tests); test/contract/market.contract.test.ts holds it to the
 * DynamoDB adapter. Pages are kept by key shard in the same encodings the table holds (shared/page-format/page-codec.ts),
 * so a shard rewrite, a shard's missing keys and what the codecs keep behave as in the table.
 */
import { randomBytes } from 'node:crypto';
import { type Clock, DAY_MS, dayOf, HOUR_MS, hourOf } from '../../clock';
import type { Candle, CandlePage, CandleRes } from '../../domain/candles';
import { type CapScope, isCap, newCap } from '../../domain/caps';
import { type FilesState, filesStateOf, type SealRes } from '../../domain/files-state';
import type { RowTable } from '../../domain/merge';
import type { VolumePage } from '../../domain/volume-estimate';
import { type CandleCloses, decodeCandlePartsCloses, decodeShardCloses, type ShardCloses } from '../../page-format/page-closes';
import {
  type CandleParts,
  decodeCandleParts,
  decodeCandles,
  decodeHistory,
  decodeRows,
  decodeVolume,
  decodeVolumeOf,
  encodeCandleParts,
  encodeCandles,
  encodeHistory,
  encodeRowShards,
  encodeRows,
  encodeVolume,
} from '../../page-format/page-codec';
import { HISTORY_SHARDS, PAGE_SHARDS, ROW_SHARDS, shardOf, shardsTouched, splitShards } from '../../page-format/shard-layout';
import { type ChangeSink, filesMove } from '../../ports/changes';
import {
  type AnswerStore,
  type BookLogEntry,
  type BookLogPort,
  type DayCapKind,
  type DayFold,
  emptyMarketMeta,
  type FilesStatePort,
  type HistoryPage,
  type MarketCaps,
  type MarketMeta,
  type MarketPages,
  type MarketPort,
  type MergeFailuresPort,
  type MergeLogPort,
  type MergeRecord,
  type PendingMerge,
  type PeriodKind,
  type RetentionMark,
  type RetentionPort,
  type ScanLogEntry,
  type ScanLogPort,
  type StoredHistoryShard,
  type VolumeShard,
} from '../../ports/market';
import { BOOK_LOG_KEEP_MS } from '../book-log';
import { MERGE_RECORD_TTL_MS } from '../merge-log';
import { SCAN_LOG_KEEP_MS } from '../scan-log';
import { type Item, MemoryTable } from './memory-table';

const copy = <T>(v: T): T => structuredClone(v);
const live = (ttlMs: number, now: number): boolean => ttlMs > now;
const pad = (n: number): string => String(n).padStart(16, '0');

/** Partition names of the fake's table (its own; nothing outside this module reads them). */
const P = {
  rows: (m: string) => `rows|${m}`,
  candles: (m: string, res: CandleRes, period: number) => `candles|${m}|${res}|${period}`,
  volume: (m: string, day: number) => `volume|${m}|${day}`,
  history: (m: string) => `history|${m}`,
  folds: (m: string, hour: number) => `folds|${m}|${hour}`,
};

export class MemoryPages implements MarketPages {
  constructor(
    private readonly t: MemoryTable,
    private readonly meta_: Map<string, MarketMeta>,
    private readonly marks: Map<string, number>,
  ) {}

  async meta(market: string): Promise<MarketMeta> {
    return copy(this.meta_.get(market) ?? emptyMarketMeta(market));
  }

  async commitMeta(next: Pick<MarketMeta, 'market'> & Partial<MarketMeta>, expectedSeq: number): Promise<boolean> {
    const stored = this.meta_.get(next.market);
    if ((stored?.seq ?? 0) !== expectedSeq) return false;
    const fields = Object.fromEntries(Object.entries(next).filter(([, v]) => v !== undefined));
    this.meta_.set(next.market, { ...(stored ?? emptyMarketMeta(next.market)), ...copy(fields) });
    return true;
  }

  async markPending(market: string, pending: PendingMerge): Promise<boolean> {
    const stored = this.meta_.get(market);
    if ((stored?.seq ?? 0) !== pending.seq - 1) return false;
    this.meta_.set(market, { ...(stored ?? emptyMarketMeta(market)), pending: copy(pending) });
    return true;
  }

  async rows(market: string): Promise<RowTable> {
    const out: RowTable = new Map();
    for (const item of this.t.query(P.rows(market))) decodeRows(item.d as Uint8Array, out);
    return out;
  }

  async rowShards(market: string, shards: readonly number[]): Promise<Map<number, RowTable>> {
    const out = new Map<number, RowTable>();
    for (const s of shards) {
      const item = this.t.get(P.rows(market), pad(s));
      if (item) out.set(s, decodeRows(item.d as Uint8Array));
    }
    return out;
  }

  async rowsOf(market: string, keys: readonly number[]): Promise<RowTable> {
    const wanted = new Set(keys);
    const out: RowTable = new Map();
    for (const s of new Set(keys.map((k) => shardOf(k, ROW_SHARDS)))) {
      const item = this.t.get(P.rows(market), pad(s));
      if (item) for (const [k, v] of decodeRows(item.d as Uint8Array)) if (wanted.has(k)) out.set(k, v);
    }
    return out;
  }

  async writeRows(market: string, rows: RowTable, changedKeys: Iterable<number>): Promise<void> {
    for (const [s, d] of encodeRowShards(rows, ROW_SHARDS, shardsTouched(changedKeys, ROW_SHARDS))) this.t.put(P.rows(market), pad(s), { d });
  }

  async candlePage(market: string, res: CandleRes, period: number): Promise<CandlePage> {
    const page: CandlePage = new Map();
    for (const item of this.t.query(P.candles(market, res, period))) decodeCandleParts(item as unknown as CandleParts, page);
    return page;
  }

  async candleCloses(market: string, res: CandleRes, period: number): Promise<CandleCloses[]> {
    return this.t.query(P.candles(market, res, period)).map((item) => decodeCandlePartsCloses(item as unknown as CandleParts));
  }

  async candleClosesOfShard(market: string, res: CandleRes, periods: readonly number[], shard: number): Promise<ShardCloses> {
    const items: Array<readonly [number, CandleParts]> = [];
    for (const period of periods) {
      const item = this.t.get(P.candles(market, res, period), pad(shard));
      if (item) items.push([period, item as unknown as CandleParts]);
    }
    return decodeShardCloses(items);
  }

  async candlesOf(market: string, res: CandleRes, periods: readonly number[], keys: readonly number[]): Promise<Map<number, Map<number, Candle>>> {
    const wanted = new Set(keys);
    const shards = [...new Set(keys.map((k) => shardOf(k, PAGE_SHARDS)))];
    const out = new Map<number, Map<number, Candle>>();
    for (const period of periods) {
      for (const s of shards) {
        const item = this.t.get(P.candles(market, res, period), pad(s));
        if (!item) continue;
        const into = out.get(period) ?? new Map<number, Candle>();
        for (const [k, c] of decodeCandleParts(item as unknown as CandleParts).page) if (wanted.has(k)) into.set(k, c);
        out.set(period, into);
      }
    }
    return out;
  }

  async candleShards(
    market: string,
    res: CandleRes,
    wanted: ReadonlyArray<{ period: number; shard: number }>,
  ): Promise<Array<{ period: number; shard: number; page: CandlePage }>> {
    return wanted.flatMap((w) => {
      const item = this.t.get(P.candles(market, res, w.period), pad(w.shard));
      return item ? [{ period: w.period, shard: w.shard, page: decodeCandleParts(item as unknown as CandleParts).page }] : [];
    });
  }

  async writeCandlePage(market: string, res: CandleRes, period: number, start: number, page: CandlePage, changedKeys: Iterable<number>): Promise<void> {
    for (const [s, { c, d }] of encodeCandleParts(page, start, PAGE_SHARDS, shardsTouched(changedKeys, PAGE_SHARDS)))
      this.t.put(P.candles(market, res, period), pad(s), { c, d });
  }

  /** Tests only (not in the port): stores a candle page shard as given, e.g. in the layout before the head split. */
  putStoredCandleShard(market: string, res: CandleRes, period: number, shard: number, item: CandleParts): void {
    this.t.put(P.candles(market, res, period), pad(shard), { ...item });
  }

  async volumePage(market: string, day: number): Promise<VolumePage> {
    const page: VolumePage = new Map();
    for (const item of this.t.query(P.volume(market, day))) decodeVolume(item.d as Uint8Array, page);
    return page;
  }

  async volumeOf(market: string, days: readonly number[], keys: readonly number[]): Promise<Map<number, VolumePage>> {
    const wanted = new Set(keys);
    const shards = [...new Set(keys.map((k) => shardOf(k, PAGE_SHARDS)))];
    const out = new Map<number, VolumePage>();
    for (const day of days) {
      for (const s of shards) {
        const item = this.t.get(P.volume(market, day), pad(s));
        if (!item) continue;
        out.set(day, decodeVolumeOf(item.d as Uint8Array, wanted, out.get(day) ?? new Map()));
      }
    }
    return out;
  }

  async volumeShardsOf(
    market: string,
    wanted: ReadonlyArray<{ day: number; shard: number }>,
  ): Promise<Array<{ day: number; shard: number; page: VolumePage }>> {
    return wanted.flatMap(({ day, shard }) => {
      const item = this.t.get(P.volume(market, day), pad(shard));
      return item ? [{ day, shard, page: decodeVolume(item.d as Uint8Array) }] : [];
    });
  }

  async volumeShards(market: string, day: number): Promise<Map<number, VolumeShard>> {
    const out = new Map<number, VolumeShard>();
    for (const item of this.t.query(P.volume(market, day)))
      out.set(Number(item.sk), { page: decodeVolume(item.d as Uint8Array), bookAt: typeof item.b === 'number' ? item.b : null });
    return out;
  }

  async writeVolumeShards(market: string, day: number, shards: ReadonlyMap<number, VolumeShard>): Promise<void> {
    for (const [s, v] of shards)
      this.t.put(P.volume(market, day), pad(s), { d: encodeVolume(v.page, PAGE_SHARDS), ...(v.bookAt === null ? {} : { b: v.bookAt }) });
  }

  async historyOf(market: string, key: number | readonly number[]): Promise<HistoryPage> {
    const keys = typeof key === 'number' ? [key] : key;
    if (keys.length === 0) return new Map();
    const item = this.t.get(P.history(market), pad(shardOf(keys[0], HISTORY_SHARDS)));
    return item ? decodeHistory(item.d as Uint8Array) : new Map();
  }

  async historyShardBytes(market: string, shard: number): Promise<Uint8Array[]> {
    return (await this.historyShard(market, shard)).parts;
  }

  /** A shard is one item here (never split): `keys` changes nothing. */
  async historyShard(market: string, shard: number, _keys?: readonly number[]): Promise<StoredHistoryShard> {
    const item = this.t.get(P.history(market), pad(shard));
    return { parts: item ? [item.d as Uint8Array] : [], through: typeof item?.through === 'number' ? item.through : null };
  }

  async histories(market: string): Promise<Map<number, HistoryPage>> {
    return new Map(this.t.query(P.history(market)).map((item) => [Number(item.sk), decodeHistory(item.d as Uint8Array)]));
  }

  async writeHistories(market: string, pages: ReadonlyMap<number, HistoryPage>, through?: number): Promise<void> {
    for (const [s, page] of pages)
      this.t.put(P.history(market), pad(s), { d: encodeHistory(page, HISTORY_SHARDS), ...(through === undefined ? {} : { through }) });
  }

  async historyMark(market: string): Promise<number | null> {
    return this.marks.get(market) ?? null;
  }

  async putHistoryMark(market: string, through: number, _at: number): Promise<void> {
    this.marks.set(market, through);
  }

  async dayFolds(market: string, hour: number, shards: readonly number[], now: number): Promise<Map<number, DayFold>> {
    const out = new Map<number, DayFold>();
    for (const s of shards) {
      const item = this.t.get(P.folds(market, hour), pad(s));
      if (item && live(Number(item.expires), now)) out.set(s, { page: decodeCandles(item.d as Uint8Array).page, seq: Number(item.seq) });
    }
    return out;
  }

  async writeDayFolds(market: string, hour: number, folds: ReadonlyMap<number, CandlePage>, seq: number): Promise<void> {
    const start = dayOf(hour * HOUR_MS) * DAY_MS;
    // As the table's ttl: whole seconds after the day ends plus an hour.
    const expires = Math.ceil((start + 25 * HOUR_MS) / 1000) * 1000;
    for (const [s, page] of folds) this.t.put(P.folds(market, hour), pad(s), { d: encodeCandles(page, start, PAGE_SHARDS), seq, expires });
  }

  /** Retention: deletes one period's pages. */
  deletePartition(pk: string): number {
    return this.t.deletePartition(pk);
  }

  /** Retention: the row shards rewritten from `rows` (only those holding `keys`). */
  rewriteRows(market: string, rows: RowTable, keys: readonly number[]): void {
    const split = splitShards(rows, ROW_SHARDS);
    for (const s of shardsTouched(keys, ROW_SHARDS)) this.t.put(P.rows(market), pad(s), { d: encodeRows(split[s], ROW_SHARDS) });
  }
}

/** Entries kept until `expires` (ms), in a sorted partition of the fake's table. */
const liveItems = (items: Item[], now: number): Item[] => items.filter((i) => live(Number(i.expires), now));
const strip = <T>(item: Item): T => {
  const { sk: _sk, expires: _e, ...rest } = item;
  return rest as T;
};

function memoryMergeLog(t: MemoryTable, changes?: ChangeSink): MergeLogPort {
  return {
    async put(record: MergeRecord) {
      // A redelivered merge writes the same record again: only the first write is news.
      if (!t.get(`merges|${record.market}`, pad(record.seq))) changes?.publish({ type: 'merged', record: copy(record) });
      t.put(`merges|${record.market}`, pad(record.seq), { ...record, expires: Math.ceil((record.mergedAt + MERGE_RECORD_TTL_MS) / 1000) * 1000 });
    },
    async after(market, afterSeq, now) {
      return liveItems(t.query(`merges|${market}`, { after: pad(afterSeq) }), now).map((i) => strip<MergeRecord>(i));
    },
    async newestCheckpoint(market, now) {
      const found = liveItems(t.query(`merges|${market}`, { reverse: true }), now).find((i) => i.checkpointPath !== undefined);
      return found ? strip<MergeRecord>(found) : null;
    },
  };
}

function memoryScanLog(t: MemoryTable, clock: Clock): ScanLogPort {
  return {
    async put(e: ScanLogEntry, id: string) {
      t.put(`scans|${e.market}`, `${pad(e.at)}#${id}`, { ...e, expires: Math.ceil((Math.max(e.at, e.mergedAt) + SCAN_LOG_KEEP_MS) / 1000) * 1000 });
    },
    async between(market, fromAt, toAt) {
      if (fromAt > toAt) return [];
      const items = t.query(`scans|${market}`, { from: pad(Math.max(0, fromAt)), to: `${pad(Math.max(0, toAt))}#~` });
      return liveItems(items, clock.now()).map((i) => strip<ScanLogEntry>(i));
    },
  };
}

function memoryBookLog(t: MemoryTable, clock: Clock): BookLogPort {
  const expires = (e: BookLogEntry) => Math.ceil((Math.max(e.at, e.mergedAt) + BOOK_LOG_KEEP_MS) / 1000) * 1000;
  return {
    async put(e) {
      t.put(`books|${e.market}`, pad(e.at), { ...e, expires: expires(e) });
    },
    async between(market, fromAt, toAt) {
      if (fromAt > toAt) return [];
      const items = t.query(`books|${market}`, { from: pad(Math.max(0, fromAt)), to: pad(Math.max(0, toAt)), reverse: true });
      return liveItems(items, clock.now()).map((i) => strip<BookLogEntry>(i));
    },
    async get(market, at) {
      const item = t.get(`books|${market}`, pad(at));
      return item && live(Number(item.expires), clock.now()) ? strip<BookLogEntry>(item) : null;
    },
  };
}

function memoryRetention(pages: MemoryPages, meta: Map<string, MarketMeta>): RetentionPort {
  const marks = new Map<string, RetentionMark>();
  return {
    async mark(market) {
      return copy(marks.get(market) ?? null);
    },
    async putMark(market, mark) {
      marks.set(market, copy(mark));
    },
    async deletePeriod(market, kind: PeriodKind, period) {
      return pages.deletePartition(kind === 'volume' ? P.volume(market, period) : P.candles(market, kind, period));
    },
    async rewriteRowsIfUnchanged(market, rows, deletedKeys, seq) {
      const m = meta.get(market);
      if (!m || m.seq !== seq || (m.pending !== undefined && m.pending !== null)) return false;
      pages.rewriteRows(market, rows, deletedKeys);
      meta.set(market, { ...m, rowsRev: (m.rowsRev ?? 0) + 1 });
      return true;
    },
  };
}

function memoryFailures(): MergeFailuresPort {
  const counts = new Map<string, number>();
  return {
    async count(market, uploadId) {
      const key = `${market}|${uploadId}`;
      const n = (counts.get(key) ?? 0) + 1;
      counts.set(key, n);
      return n;
    },
  };
}

const capNumber = (s: CapScope): number => (s.kind === 'change' || s.kind === 'checkpoint' ? s.seq : s.kind === 'book' ? s.at : s.day);

/** Caps by scope, made once (the table's cap items also expire; a fake run never lives that long). */
class MemoryCaps implements MarketCaps {
  private readonly caps = new Map<string, string>();
  private readonly id = (s: CapScope) => `${s.market}|${s.kind}|${capNumber(s)}`;

  async get(scope: CapScope): Promise<string | null> {
    return this.caps.get(this.id(scope)) ?? null;
  }

  async create(scope: CapScope): Promise<string> {
    const id = this.id(scope);
    let cap = this.caps.get(id);
    if (!isCap(cap)) {
      cap = newCap((n) => randomBytes(n));
      this.caps.set(id, cap);
    }
    return cap;
  }

  async dayCaps(market: string, kind: DayCapKind, fromDay: number, toDay: number): Promise<Map<number, string>> {
    const out = new Map<number, string>();
    for (let day = Math.max(0, fromDay); day <= toDay; day++) {
      const cap = this.caps.get(`${market}|${kind}|${day}`);
      if (cap) out.set(day, cap);
    }
    return out;
  }

  async ensureDay(market: string, day: number): Promise<{ m1: string; h1: string }> {
    return { m1: await this.create({ kind: 'm1', market, day }), h1: await this.create({ kind: 'h1', market, day }) };
  }
}

function memoryFilesState(changes?: ChangeSink): FilesStatePort {
  const items = new Map<string, Record<string, unknown>>();
  return {
    async get(market): Promise<FilesState> {
      return filesStateOf(market, copy(items.get(market)));
    },
    async advanceSealed(market, res: SealRes, previous, next, paths) {
      const item = items.get(market) ?? {};
      if (previous === null ? item[res] !== undefined : item[res] !== previous) return false;
      items.set(market, { ...item, ...copy(paths), [res]: next, market });
      const event = filesMove(filesStateOf(market, item), filesStateOf(market, items.get(market)));
      if (event) changes?.publish(event);
      return true;
    },
    async recordSnapshotHour(market, hour) {
      const item = items.get(market) ?? {};
      if (typeof item.snapHour === 'number' && item.snapHour >= hour) return;
      items.set(market, { ...item, snapHour: hour, market });
    },
  };
}

function memoryAnswers(): AnswerStore {
  const bodies = new Map<string, { body: string; expires: number }>();
  const spilled = new Map<string, { path: string; expires: number }>();
  const fragments = new Map<string, { data: Uint8Array; expires: number }>();
  const hourEnd = (now: number) => (hourOf(now) + 1) * HOUR_MS;
  return {
    async read(hash, now) {
      const found = bodies.get(hash);
      return found && live(found.expires, now) ? found.body : null;
    },
    async write(hash, body, now) {
      bodies.set(hash, { body, expires: hourEnd(now) });
    },
    async spilledFile(key, now) {
      const found = spilled.get(key);
      return found && live(found.expires, now) ? found.path : null;
    },
    async recordSpilledFile(key, path, now) {
      const found = spilled.get(key);
      if (found && live(found.expires, now)) return found.path;
      spilled.set(key, { path, expires: hourEnd(now) });
      return path;
    },
    async readFragment(key, now) {
      const found = fragments.get(key);
      return found && live(found.expires, now) ? Uint8Array.from(found.data) : null;
    },
    async writeFragment(key, data, expiresAt) {
      fragments.set(key, { data: Uint8Array.from(data), expires: expiresAt });
    },
  };
}

/**
 * Every part of the market port over one in-memory store; `clock` decides which log entries have expired;
 * `changes` hears new merge records and sealed periods that moved (the table's stream carries both).
 */
export function memoryMarket(clock: Clock, scope = `memory-${randomBytes(4).toString('hex')}`, changes?: ChangeSink): MarketPort {
  const t = new MemoryTable();
  const meta = new Map<string, MarketMeta>();
  const pages = new MemoryPages(t, meta, new Map());
  return {
    scope,
    pages,
    latest: pages,
    merges: memoryMergeLog(t, changes),
    scans: memoryScanLog(t, clock),
    books: memoryBookLog(t, clock),
    retention: memoryRetention(pages, meta),
    failures: memoryFailures(),
    caps: new MemoryCaps(),
    filesState: memoryFilesState(changes),
    answers: memoryAnswers(),
  };
}
