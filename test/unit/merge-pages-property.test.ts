/**
 * The pages a merge keeps for the next merge of its market on the same instance (issue 27 point 2,
 * shared/market/merge-pages.ts) never change what a merge writes: over random sequences of merges by two
 * instances of the merge function sharing one store, merges that fail part-way (after some pages, or at the
 * seq commit) and are received again by either instance, retention runs and clock moves, every page (rows,
 * hour and day candles, volume shards), META's seq and every change file equal those of the same sequence run
 * cache-less (each merge attempt on an instance that has merged nothing). The in-memory fake store is the
 * storage; the merges are the production `mergeBook`.
 */
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAY_MS, dayOf, ManualClock, MINUTE_MS } from '../../shared/clock';
import type { Book, BookEntry } from '../../shared/domain/book';
import { periodOf } from '../../shared/domain/candles';
import { retainMarket } from '../../shared/market/market-retention';
import { mergeBook } from '../../shared/market/merge-book';
import type { MarketPages, MarketPort } from '../../shared/ports/market';
import { MemoryFiles } from '../../shared/store/memory/files';
import { MemoryIdentity } from '../../shared/store/memory/identity';
import { memoryMarket } from '../../shared/store/memory/market';
import { MemoryQueues } from '../../shared/store/memory/queues';
import { MemorySettings } from '../../shared/store/memory/settings';
import { storeBookFile } from '../../shared/upload/book-storage';

const M = 'forever.pvp.horde.us';
/** Keys over several row and page shards. */
const KEYS = [16, 32, 528, 17, 33, 7, 1030];
const START = Date.UTC(2026, 10, 2, 6);

type Reads = { rows: number; pages: number };
type Fault = null | 'candles' | 'volume' | 'commit';
type Op =
  | { kind: 'merge'; by: 0 | 1; entries: Array<[number, number, number, number]>; complete: boolean; fault: Fault; againBy: 0 | 1 }
  | { kind: 'retain' }
  | { kind: 'advance'; ms: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('merge' as const),
      by: fc.constantFrom<0 | 1>(0, 0, 0, 1),
      entries: fc.array(fc.tuple(fc.constantFrom(...KEYS), fc.integer({ min: 0, max: 99 }), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 3 })), {
        minLength: 0,
        maxLength: 10,
      }),
      complete: fc.constantFrom(true, true, true, false),
      fault: fc.constantFrom<Fault>(null, null, null, null, 'candles', 'volume', 'commit'),
      againBy: fc.constantFrom<0 | 1>(0, 1),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: 'retain' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.constantFrom(7 * MINUTE_MS, 3 * 3_600_000, DAY_MS, 31 * DAY_MS) }) },
);

/** A book as the upload stores it: entries ascending by key, then price (0: bid only). */
function bookOf(at: number, entries: Array<[number, number, number, number]>, complete: boolean): Book {
  const list: BookEntry[] = entries.map(([key, price, stack, n]) => [key, price, stack, 0, n]);
  list.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return { market: M, at, complete, auctions: list.reduce((s, e) => s + e[4], 0), entries: list };
}

/** One merge function instance over the shared store (its own object: what the kept pages are kept by), with a fault to inject. */
function instance(pages: MarketPages, fault: { next: Fault }, reads: Reads): MarketPages {
  const inst = Object.create(pages) as MarketPages;
  const failing = (name: 'writeCandlePage' | 'writeVolumeShards' | 'commitMeta', on: Fault) =>
    async function (this: MarketPages, ...args: unknown[]) {
      if (fault.next === on) {
        fault.next = null;
        throw new Error(`injected failure in ${name}`);
      }
      return (pages[name] as (...a: unknown[]) => Promise<unknown>).apply(this, args);
    };
  inst.writeCandlePage = failing('writeCandlePage', 'candles') as MarketPages['writeCandlePage'];
  inst.writeVolumeShards = failing('writeVolumeShards', 'volume') as MarketPages['writeVolumeShards'];
  inst.commitMeta = failing('commitMeta', 'commit') as MarketPages['commitMeta'];
  for (const name of ['rows', 'candlePage', 'volumeShards'] as const) {
    const read = pages[name] as (...a: unknown[]) => Promise<unknown>;
    (inst as unknown as Record<string, unknown>)[name] = function (this: MarketPages, ...args: unknown[]) {
      reads.pages++;
      if (name === 'rows') reads.rows++;
      return read.apply(this, args);
    };
  }
  return inst;
}

/** One deployment: a store, its files, and merge instances (kept for reuse, or new for every attempt when `cacheless`). */
class World {
  readonly clock = new ManualClock(START);
  readonly market: MarketPort = memoryMarket(this.clock, `world-${Math.random()}`);
  readonly files = new MemoryFiles(this.clock);
  readonly fault = { next: null as Fault };
  private readonly instances: MarketPages[];
  /** Page reads of the merges' instances. */
  readonly reads: Reads = { rows: 0, pages: 0 };
  /** mergeBook calls. */
  attempts = 0;
  readonly periods = new Set<string>();
  readonly days = new Set<number>();
  readonly base = {
    clock: this.clock,
    queues: new MemoryQueues(this.clock),
    settings: new MemorySettings(),
    identity: new MemoryIdentity(),
    files: this.files,
    log: () => {},
  };

  constructor(private readonly cacheless: boolean) {
    this.instances = [0, 1].map(() => instance(this.market.latest, this.fault, this.reads));
  }

  svc(by: 0 | 1) {
    const latest = this.cacheless ? instance(this.market.latest, this.fault, this.reads) : this.instances[by];
    return { ...this.base, config: {} as never, market: { ...this.market, latest } };
  }

  /** Merge attempts that took the table from kept pages instead of the store. */
  get warmMerges(): number {
    return this.attempts - this.reads.rows;
  }

  private merge(by: 0 | 1, msg: Parameters<typeof mergeBook>[1]) {
    this.attempts++;
    return mergeBook(this.svc(by), msg);
  }

  async run(op: Op, i: number): Promise<void> {
    if (op.kind === 'advance') this.clock.set(this.clock.now() + op.ms);
    else if (op.kind === 'retain')
      await retainMarket(
        { ...this.base, market: this.market, uploads: { quarantinedBefore: async () => [] } } as unknown as Parameters<typeof retainMarket>[0],
        M,
        this.clock.now(),
      );
    else {
      const book = bookOf(this.clock.now() - MINUTE_MS, op.entries, op.complete);
      const bookPath = await storeBookFile(this.svc(op.by), book);
      const msg = { v: 1, kind: 'book', market: M, uploadId: `u${i}`, bookPath, at: book.at, uploader: 'a1b2c3d4e5f60718', credited: true } as const;
      for (const res of ['h1', 'd1'] as const) this.periods.add(`${res}|${periodOf(res, book.at)}`);
      this.days.add(dayOf(book.at));
      if (op.fault) {
        this.fault.next = op.fault;
        const failed = await this.merge(op.by, msg).then(
          () => false,
          () => true,
        );
        // A fault the merge never reached (no candles or no volume to write) leaves a plain merge.
        if (!failed) expect(this.fault.next).toBe(op.fault);
        this.fault.next = null;
        if (failed) expect((await this.merge(op.againBy, msg)).merged).toBe(true);
      } else expect((await this.merge(op.by, msg)).merged).toBe(true);
      this.clock.set(this.clock.now() + 7 * MINUTE_MS);
    }
  }

  /** Everything the merges left that answers and files are made of. */
  async state() {
    const store = this.market.latest;
    const meta = await store.meta(M);
    const candles: Record<string, unknown> = {};
    for (const key of [...this.periods].sort()) {
      const [res, period] = key.split('|');
      candles[key] = [...(await store.candlePage(M, res as 'h1' | 'd1', Number(period)))].sort((a, b) => a[0] - b[0]);
    }
    const volume: Record<number, unknown> = {};
    for (const day of [...this.days].sort()) volume[day] = [...(await store.volumeShards(M, day))].sort((a, b) => a[0] - b[0]);
    const changes = [];
    for (const r of await this.market.merges.after(M, 0, this.clock.now())) {
      const file = await this.files.get(r.changePath);
      changes.push({ seq: r.seq, at: r.at, rows: file ? JSON.parse(gunzipSync(file).toString('utf8')).rows : null });
    }
    return {
      seq: meta.seq,
      newestScanAt: meta.newestScanAt,
      rowsRev: meta.rowsRev ?? 0,
      rows: [...(await store.rows(M))].sort((a, b) => a[0] - b[0]),
      candles,
      volume,
      changes,
    };
  }
}

describe('pages kept between merges', () => {
  it('a second merge on the same instance reads no row shard, hour or day page or volume shard from the store', async () => {
    const w = new World(false);
    const entries: Array<[number, number, number, number]> = KEYS.map((k, i) => [k, 10 + i, 1, 1]);
    await w.run({ kind: 'merge', by: 0, entries, complete: true, fault: null, againBy: 0 }, 0);
    await w.run({ kind: 'merge', by: 0, entries: entries.slice(2), complete: true, fault: null, againBy: 0 }, 1);
    const before = w.reads.pages;
    await w.run({ kind: 'merge', by: 0, entries: entries.slice(1), complete: true, fault: null, againBy: 0 }, 2);
    // Minute pages are read (a new minute each merge); rows, h1, d1 and the day's volume shards are not.
    expect(w.reads.pages - before).toBe(1);
  });

  it('a retention run between two merges of one instance: the second reads the rows retention rewrote', async () => {
    const entries: Array<[number, number, number, number]> = KEYS.map((k, i) => [k, 10 + i, 1, 1]);
    const ops: Op[] = [
      { kind: 'merge', by: 0, entries, complete: false, fault: null, againBy: 0 },
      { kind: 'advance', ms: 31 * DAY_MS },
      { kind: 'merge', by: 0, entries: entries.slice(0, 2), complete: false, fault: null, againBy: 0 },
      { kind: 'retain' },
      // Key 32 shares its row shard with 528, which retention deleted: the shard is written again.
      { kind: 'merge', by: 0, entries: [[32, 50, 1, 1]], complete: false, fault: null, againBy: 0 },
    ];
    const kept = new World(false);
    const fresh = new World(true);
    for (let i = 0; i < ops.length; i++) {
      await kept.run(ops[i], i);
      await fresh.run(ops[i], i);
    }
    const state = await kept.state();
    expect(state.rowsRev).toBe(1);
    expect(state.rows.map(([k]) => k).sort((x, y) => x - y)).toEqual([16, 32]);
    expect(state).toEqual(await fresh.state());
  });

  it('never changes a page, the seq or a change file (failed and redelivered merges, two instances, retention)', async () => {
    let warmUses = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 14 }), async (ops) => {
        const kept = new World(false);
        const fresh = new World(true);
        for (let i = 0; i < ops.length; i++) {
          await kept.run(ops[i], i);
          await fresh.run(ops[i], i);
          expect(await kept.state()).toEqual(await fresh.state());
        }
        // Count merges that used kept pages: the property must exercise them, not only cold merges.
        expect(fresh.warmMerges).toBe(0);
        warmUses += kept.warmMerges;
      }),
      { numRuns: 120, seed: 27 },
    );
    expect(warmUses).toBeGreaterThan(100);
  });
});
