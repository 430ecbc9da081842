/**
 * Issue 24.7: the live client reconnects with backoff (exponential, capped, with jitter) and a fresh token
 * from its callback, and keeps its table and the gap rule across sockets: after a reconnect it fetches only
 * the change files it missed (spec files-and-live: Catching up). Against a fake socket and a fake file host.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { backoffDelay } from '../../shared/client/backoff';
import { LiveClient, type LiveClientOptions, type OpenSocket, type SocketEvents } from '../../shared/client/live-client';
import type { AuctionRow } from '../../shared/files/documents';

const MARKET = 'forever.normal.alliance.us';
const BASE = 'http://svc.test';

interface FakeConnection {
  url: string;
  headers: Record<string, string>;
  on: SocketEvents;
  sent: string[];
  closedByClient: number | null;
}

/** Sockets the client opens, driven by the test: it plays the server's messages and closes. */
class FakeSockets {
  readonly opened: FakeConnection[] = [];
  private waiters: Array<() => void> = [];

  readonly open: OpenSocket = (url, headers, on) => {
    const conn: FakeConnection = { url, headers, on, sent: [], closedByClient: null };
    this.opened.push(conn);
    for (const w of this.waiters.splice(0)) w();
    return {
      send: (text) => conn.sent.push(text),
      close: (code = 1000) => {
        conn.closedByClient = code;
        queueMicrotask(() => on.close(code, ''));
      },
    };
  };

  /** The n-th socket opened (0-based), once it is. */
  async nth(n: number, timeoutMs = 2000): Promise<FakeConnection> {
    const deadline = Date.now() + timeoutMs;
    while (this.opened.length <= n) {
      if (Date.now() > deadline) throw new Error(`socket ${n} never opened (${this.opened.length} opened)`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 20);
      });
    }
    return this.opened[n];
  }
}

/** The market as the file host has it: change file `seq` sets item `seq` to price `seq * 10`. */
const rowOf = (seq: number): AuctionRow => [seq, seq * 10, 1, seq * 1000];
const changeUrl = (seq: number) => `${BASE}/cdn/live/v1/${MARKET}/${seq}-cap${seq}.json`;

class FakeHost {
  readonly requests: string[] = [];
  readonly fetch: typeof fetch = async (input) => {
    const url = String(input);
    this.requests.push(url);
    const m = url.match(/\/(\d+)-cap\d+\.json$/);
    if (!m) return Response.json({ error: 'not_found' }, { status: 404 });
    const seq = Number(m[1]);
    return Response.json({ v: 1, market: MARKET, seq, at: seq * 1000, rows: [rowOf(seq)] });
  };
}

function hello(seq: number, features = ['live', 'prices.live']) {
  const changes = Array.from({ length: seq }, (_, i) => [i + 1, changeUrl(i + 1)]);
  return JSON.stringify({
    t: 'hello',
    market: MARKET,
    seq,
    at: seq * 1000,
    checkpoint: null,
    changes,
    sealed: { m1: null, h1: null, d1: null },
    caps: {},
    roles: ['free'],
    features,
    now: 1,
  });
}

const clients: LiveClient[] = [];
afterEach(() => {
  for (const c of clients.splice(0)) c.close();
});

function setup(extra: Partial<LiveClientOptions> = {}) {
  const sockets = new FakeSockets();
  const host = new FakeHost();
  let issued = 0;
  const tokens: string[] = [];
  const c = new LiveClient({
    base: BASE,
    market: MARKET,
    getToken: async () => {
      tokens.push(`svc_dev_${++issued}`);
      return tokens.at(-1)!;
    },
    openSocket: sockets.open,
    fetch: host.fetch,
    table: new Map(),
    have: 0,
    reconnect: { initialDelayMs: 10, maxDelayMs: 40, random: () => 0 },
    ...extra,
  });
  clients.push(c);
  const delays: number[] = [];
  c.on('reconnecting', (e: { delayMs: number }) => delays.push(e.delayMs));
  return { c, sockets, host, tokens, delays };
}

const settleFor = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('reconnect backoff', () => {
  it('grows exponentially from the first delay, is capped, and jitters within the upper half', () => {
    const opts = { initialDelayMs: 500, maxDelayMs: 30_000, factor: 2 };
    expect([0, 1, 2, 3].map((a) => backoffDelay(a, 1, opts))).toEqual([500, 1000, 2000, 4000]);
    expect([0, 1, 2, 3].map((a) => backoffDelay(a, 0, opts))).toEqual([250, 500, 1000, 2000]);
    expect(backoffDelay(3, 0.5, opts)).toBe(3000);
    expect(backoffDelay(20, 1, opts)).toBe(30_000);
    expect(backoffDelay(20, 0, opts)).toBe(15_000);
    for (let a = 0; a < 40; a++) {
      const d = backoffDelay(a, Math.random(), opts);
      expect(d).toBeGreaterThanOrEqual(Math.min(30_000, 500 * 2 ** a) / 2);
      expect(d).toBeLessThanOrEqual(Math.min(30_000, 500 * 2 ** a));
    }
    // The defaults: 500 ms first, 30 s at most.
    expect(backoffDelay(0, 1)).toBe(500);
    expect(backoffDelay(30, 1)).toBe(30_000);
  });
});

describe('live client reconnecting', () => {
  it('reconnects after the server drops it, with backoff and a fresh token per attempt, fetching only the changes it missed', async () => {
    const { c, sockets, host, tokens, delays } = setup();
    const connected = c.connect();
    const first = await sockets.nth(0);
    first.on.message(hello(2));
    await connected;
    await c.waitForSeq(2);
    expect(first.headers.authorization).toBe('Bearer svc_dev_1');

    // The server drops the socket; three attempts fail before a hello, the fourth gets one with seqs 3..5.
    first.on.close(1001, 'going away');
    for (let n = 1; n <= 3; n++) (await sockets.nth(n)).on.close(1006, '');
    const reconnected = new Promise((resolve) => c.once('reconnected', resolve));
    const fifth = await sockets.nth(4);
    fifth.on.message(hello(5));
    await reconnected;
    await c.waitForSeq(5);

    // Exponential from 10 ms, capped at 40 ms, jitter drawn at 0 (half the ceiling).
    expect(delays).toEqual([5, 10, 20, 20]);
    expect(sockets.opened.map((s) => s.headers.authorization)).toEqual(tokens.map((t) => `Bearer ${t}`));
    expect(tokens).toHaveLength(5);
    expect(c.reconnects).toBe(1);
    expect(c.closed).toBeNull();
    // The gap rule across sockets: 1 and 2 once before the drop, then only 3..5; never the table or files route.
    expect(host.requests).toEqual([1, 2, 3, 4, 5].map(changeUrl));
    expect(c.fetched).toMatchObject({ files: 0, table: 0 });
    expect([...c.table.values()].sort((a, b) => a[0] - b[0])).toEqual([1, 2, 3, 4, 5].map(rowOf));
  });

  it('reconnects at once after a 4401 (credential expired) with a fresh token, and resets the backoff after a hello', async () => {
    const { c, sockets, tokens, delays } = setup();
    const connected = c.connect();
    (await sockets.nth(0)).on.message(hello(0));
    await connected;

    (await sockets.nth(0)).on.close(4401, 'credential expired');
    (await sockets.nth(1)).on.message(hello(0));
    await settleFor(5);
    (await sockets.nth(1)).on.close(4401, 'credential expired');
    (await sockets.nth(2)).on.message(hello(0));
    await settleFor(5);

    expect(delays).toEqual([5, 5]);
    expect(tokens).toEqual(['svc_dev_1', 'svc_dev_2', 'svc_dev_3']);
    expect(sockets.opened[2].headers.authorization).toBe('Bearer svc_dev_3');
    expect(c.reconnects).toBe(2);
  });

  it('renews the open socket with a fresh token from the callback', async () => {
    const { c, sockets } = setup();
    const connected = c.connect();
    const s = await sockets.nth(0);
    s.on.message(hello(0));
    await connected;

    const renewed = c.renew();
    await settleFor(1);
    expect(s.sent.map((t) => JSON.parse(t))).toEqual([{ t: 'auth', token: 'svc_dev_2' }]);
    s.on.message(JSON.stringify({ t: 'auth', until: 99 }));
    await expect(renewed).resolves.toEqual({ t: 'auth', until: 99 });
  });

  it('does not reconnect after close(), after a 4403 (live lost), or once a refusal cannot be mended', async () => {
    const closedByUs = setup();
    let connected = closedByUs.c.connect();
    (await closedByUs.sockets.nth(0)).on.message(hello(0));
    await connected;
    closedByUs.c.close();

    const lostLive = setup();
    connected = lostLive.c.connect();
    (await lostLive.sockets.nth(0)).on.message(hello(0));
    await connected;
    (await lostLive.sockets.nth(0)).on.close(4403, 'forbidden');

    const refused = setup();
    const gaveUp = new Promise((resolve) => refused.c.once('gave-up', resolve));
    connected = refused.c.connect();
    (await refused.sockets.nth(0)).on.message(hello(0));
    await connected;
    (await refused.sockets.nth(0)).on.close(1001, 'going away');
    // A 401 is mended by a fresh token: retried. A 403 is not.
    (await refused.sockets.nth(1)).on.refused(401, '{"error":"unauthenticated"}');
    (await refused.sockets.nth(2)).on.refused(403, '{"error":"forbidden"}');
    await expect(gaveUp).resolves.toMatchObject({ status: 403 });

    await settleFor(100);
    expect(closedByUs.sockets.opened).toHaveLength(1);
    expect(closedByUs.delays).toEqual([]);
    expect(lostLive.sockets.opened).toHaveLength(1);
    expect(lostLive.c.closed).toEqual({ code: 4403, reason: 'forbidden' });
    expect(refused.sockets.opened).toHaveLength(3);
  });

  it('stops a pending reconnect when closed during the backoff', async () => {
    const { c, sockets } = setup({ reconnect: { initialDelayMs: 50, maxDelayMs: 50, random: () => 1 } });
    const connected = c.connect();
    (await sockets.nth(0)).on.message(hello(0));
    await connected;
    (await sockets.nth(0)).on.close(1006, '');
    c.close();
    await settleFor(120);
    expect(sockets.opened).toHaveLength(1);
  });

  it('stays closed without the reconnect option, as before', async () => {
    const { c, sockets } = setup({ reconnect: undefined });
    const connected = c.connect();
    (await sockets.nth(0)).on.message(hello(0));
    await connected;
    (await sockets.nth(0)).on.close(1001, 'going away');
    await settleFor(50);
    expect(sockets.opened).toHaveLength(1);
    expect(c.closed).toEqual({ code: 1001, reason: 'going away' });
  });
});
