import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toAuctionRow } from '../../shared/domain/merge';
import { MarketStore } from '../../shared/store/market-store';
import { LiveClient } from '../support/live-client';
import { DEFAULT_START, type Local, startLocal } from '../support/local';
import { MINUTE, uploaderKey } from '../support/market-books';
import { alertStates, mergeState } from '../support/merge-state';
import { browserKeys, type PushReceiver, startPushReceiver } from '../support/push-receiver';

/**
 * Integration (issue 10, point 2): a merge crashed after its k-th write (the local `mergeCrashAfter` fault:
 * that write lands, nothing after it does, the invocation throws) is completed exactly once by its
 * redelivery, for every k from 1 to the writes a clean merge makes. Two markets get the same books; one
 * merges clean, the other crashes every merge at the next k. After each merge both must hold the same
 * state: dense seqs, rows, candles, volume, change files matching the rows, logs and alert state; over the
 * whole run each socket gets one `ah` per seq and one `alert` per firing, each owner one push per firing.
 */
type Entry = [key: number, price: number, stack: number, band: number, n: number];

const CLEAN = 'forever.normal.alliance.us';
const CRASHY = 'forever.pvp.alliance.us';
/** The item both owners' alerts watch: below 1000 on even steps, above 40000 on odd ones. */
const X = 1000;
const T0 = DEFAULT_START + 5 * MINUTE;
/** Books 30 minutes apart: each replaces the current book (volume), each alert may fire again every other step. */
const STEP = 30 * MINUTE;

/** Step `i`'s complete book: 40 keys, some gone each step, prices, stacks and bands moving. */
function book(market: string, i: number): { market: string; at: number; complete: boolean; auctions: number; entries: Entry[] } {
  const entries: Entry[] = [];
  for (let key = X; key < X + 40; key++) {
    if (key !== X && (key + i) % 7 === 0) continue;
    const price = key === X ? (i % 2 === 0 ? 500 : 50_000) : 10_000 + key + (i % 3) * 10;
    entries.push([key, price, 1 + (key % 5), 1 + ((key + i) % 4), 1 + ((key * (i + 1)) % 3)]);
  }
  return { market, at: T0 + i * STEP, complete: true, auctions: entries.reduce((s, e) => s + e[4], 0), entries };
}

describe('a merge crashed after any of its writes', () => {
  let local: Local;
  let rx: PushReceiver;
  let uploader: string;
  const owners: Record<string, { token: string; socket: LiveClient; push: string }> = {};

  async function merge(market: string, i: number): Promise<void> {
    const res = await local.api('POST', '/api/v1/ah/books', { token: uploader, body: book(market, i) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await local.settle();
  }

  beforeAll(async () => {
    [local, rx] = await Promise.all([startLocal({ clockStart: T0 }), startPushReceiver()]);
    uploader = await uploaderKey(local);
    for (const market of [CLEAN, CRASHY]) {
      const u = await local.user({ plan: 'premium' });
      const token = await local.session(u.id, { expiresIn: 30 * 86_400 });
      for (const [kind, value] of [
        ['below', 1000],
        ['above', 40_000],
      ] as const) {
        expect((await local.api('POST', '/api/v1/market/alerts', { token, body: { market, item: X, kind, value } })).status).toBe(200);
      }
      const push = `/push/${market}`;
      const sub = { subscription: { endpoint: `${rx.base}${push}`, keys: browserKeys().keys } };
      expect((await local.api('PUT', '/api/v1/push/subscription', { token, body: sub })).status).toBe(200);
      const socket = new LiveClient({ base: local.base, market, token });
      await socket.connect();
      owners[market] = { token, socket, push };
    }
  });
  afterAll(async () => {
    for (const o of Object.values(owners)) o.socket.close();
    await Promise.all([local.close(), rx.close()]);
  });

  it('is completed exactly once by its redelivery, for every k up to the writes of a clean merge', async () => {
    // Merge 1 of both markets runs clean; every later merge replaces the current book.
    for (const market of [CLEAN, CRASHY]) await merge(market, 0);
    let writes = 0;
    for (let i = 1, k = 1; k === 1 || k <= writes; i++, k++) {
      await local.setClock(T0 + i * STEP);
      await merge(CLEAN, i);
      const clean = (await local.faults({})) as { mergeWrites: number };
      if (k === 1) writes = clean.mergeWrites;
      expect(clean.mergeWrites, `writes of clean merge ${i + 1}`).toBe(writes);

      expect(await local.faults({ mergeCrashAfter: k })).toMatchObject({ merge: 'crash-once', mergeCrashAfter: k, mergeCrashes: k - 1 });
      await merge(CRASHY, i);
      expect(await local.faults({}), `the crash after write ${k}`).toMatchObject({ merge: 'none', mergeCrashAfter: null, mergeCrashes: k });

      const at = T0 + i * STEP;
      const [a, b] = await Promise.all([mergeState(local, CLEAN, at), mergeState(local, CRASHY, at)]);
      expect(b, `crash after write ${k} of ${writes}`).toEqual(a);
      expect(b.meta.seq).toBe(i + 1);
      expect(await alertStates(local, owners[CRASHY].token)).toEqual(await alertStates(local, owners[CLEAN].token));
    }
    // Pending, rows, change file, 3 candle pages, volume, merge record, scan and book logs, the owner's claims,
    // a fired and a re-armed alert, the seq commit: every kind of write is in the sweep.
    expect(writes).toBe(14);
    expect(local.runtime.queues.deadLetters).toEqual([]);
    const merges = writes + 1;

    const store = new MarketStore(local.runtime.operator.ddb, local.runtime.operator.config.tableName);
    for (const market of [CLEAN, CRASHY]) {
      const { socket, push } = owners[market];
      await socket.waitForSeq(merges);
      const ah = socket.messages.filter((m) => m.t === 'ah').map((m) => (m as { seq: number }).seq);
      expect(ah, `${market}: one ah per seq`).toEqual(Array.from({ length: merges }, (_, j) => j + 1));
      // Every merge fires one of the two alerts (below on even steps, above on odd ones).
      expect(
        socket.messages.filter((m) => m.t === 'alert'),
        `${market}: one alert per firing`,
      ).toHaveLength(merges);
      expect(
        rx.received.filter((r) => r.path === push),
        `${market}: one push per firing`,
      ).toHaveLength(merges);
      // The client kept its table from the change files alone: they hold exactly the rows the merges changed.
      const rows = [...(await store.rows(market))].map(([key, row]) => toAuctionRow(key, row)).sort((p, q) => p[0] - q[0]);
      expect([...socket.table.values()].sort((p, q) => p[0] - q[0])).toEqual(rows);
    }
  }, 300_000);
});

describe('the first merge (a checkpoint seq) crashed after any of its writes', () => {
  const MARKETS = [
    'forever.normal.alliance.us',
    'forever.normal.horde.us',
    'forever.pvp.alliance.us',
    'forever.pvp.horde.us',
    'forever.rp.alliance.us',
    'forever.rp.horde.us',
  ];

  /** One runtime: merges book 0 into each market, crashing market j after write `crashes[j]` (null: clean); answers their states. */
  async function run(crashes: Array<number | null>): Promise<Array<{ writes: number; state: unknown }>> {
    const local = await startLocal({ clockStart: T0 - MINUTE });
    try {
      const uploader = await uploaderKey(local);
      const out: Array<{ writes: number; state: unknown }> = [];
      for (const [j, k] of crashes.entries()) {
        const market = MARKETS[j];
        const u = await local.user({ plan: 'premium' });
        const token = await local.session(u.id, { expiresIn: 86_400 });
        expect((await local.api('POST', '/api/v1/market/alerts', { token, body: { market, item: X, kind: 'below', value: 1000 } })).status).toBe(200);
        await local.setClock(T0);
        await local.faults(k === null ? { merge: 'none' } : { mergeCrashAfter: k });
        expect((await local.api('POST', '/api/v1/ah/books', { token: uploader, body: book(market, 0) })).status).toBe(200);
        await local.settle();
        const { mergeWrites, mergeCrashes } = (await local.faults({})) as { mergeWrites: number; mergeCrashes: number };
        expect(mergeCrashes, `the crash after write ${k}`).toBe(crashes.slice(0, j + 1).filter((c) => c !== null).length);
        expect(local.runtime.queues.deadLetters).toEqual([]);
        out.push({ writes: mergeWrites, state: { ...(await mergeState(local, market, T0)), alerts: await alertStates(local, token) } });
      }
      return out;
    } finally {
      await local.close();
    }
  }

  it('is completed exactly once by its redelivery: change file, checkpoint and all', async () => {
    const [clean] = await run([null]);
    // Pending, change file, checkpoint, rows, 3 candle pages, merge record, logs, claims, the fired alert, commit.
    expect(clean.writes).toBe(13);
    const ks = Array.from({ length: clean.writes }, (_, i) => i + 1);
    for (let from = 0; from < ks.length; from += MARKETS.length) {
      const batch = ks.slice(from, from + MARKETS.length);
      for (const [j, crashed] of (await run(batch)).entries()) expect(crashed.state, `first merge crashed after write ${batch[j]}`).toEqual(clean.state);
    }
    expect((clean.state as { checkpoints: unknown[] }).checkpoints).toHaveLength(1);
  }, 300_000);
});
