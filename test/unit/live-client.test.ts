import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import WsPackageSocket, { type WebSocket, WebSocketServer } from 'ws';
import { LiveClient as SharedLiveClient } from '../../shared/client/live-client';
import { newCap } from '../../shared/domain/caps';
import { changePath, checkpointPath, fileUrl } from '../../shared/domain/file-paths';
import { type AuctionRow, changeDoc, checkpointDoc, isCheckpointSeq } from '../../shared/files/documents';
import { LiveClient, type LiveMessage, LiveUpgradeError } from '../support/live-client';

const MARKET = 'forever.normal.alliance.us';
const GOOD = 'svc_dev_good';
const LIVE_FEATURES = ['live', 'prices.live'];

interface FakeOptions {
  features?: string[];
  /** Change files that exist but are never announced (in hello or the files route), as if expired. */
  hidden?: Set<number>;
  /** Change files answered 500. */
  broken?: Set<number>;
}

/** A tiny stand-in for the service: a market whose merges write change files and checkpoints, the file host, the files and table routes, and the socket. */
class FakeService {
  readonly requests: string[] = [];
  readonly sockets: WebSocket[] = [];
  readonly received: unknown[] = [];
  readonly table = new Map<number, AuctionRow>();
  readonly tables = new Map<number, AuctionRow[]>();
  seq = 0;
  base = '';
  private readonly files = new Map<string, Buffer>();
  private readonly changes = new Map<number, string>();
  private readonly checkpoints: { seq: number; url: string }[] = [];
  private readonly server: Server;

  /** Listens to the HTTP server (e.g. its upgrades). */
  on(event: 'upgrade', listener: (req: IncomingMessage) => void): void {
    this.server.on(event, listener);
  }
  private readonly wss = new WebSocketServer({ noServer: true });
  private cap = 0;

  constructor(readonly opts: FakeOptions = {}) {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      this.requests.push(url.pathname);
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (url.pathname.startsWith('/cdn/')) {
        const body = this.files.get(url.pathname.slice(5));
        const seq = Number(url.pathname.match(/\/(\d+)-/)?.[1]);
        if (!body) return json(404, { error: 'not_found' });
        const isCheckpoint = /\/c\d+-[^/]+$/.test(url.pathname);
        if (this.opts.broken?.has(seq) && !isCheckpoint) return json(500, { error: 'internal' });
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        return res.end(body);
      }
      if (req.headers.authorization !== `Bearer ${GOOD}`) return json(401, { error: 'unauthenticated' });
      if (url.pathname === `/api/v1/ah/${MARKET}/files`) return json(200, { market: MARKET, live: this.liveState() });
      if (url.pathname === `/api/v1/ah/${MARKET}`) return json(200, { market: MARKET, rows: [...this.table.values()], seq: this.seq, now: 1 });
      return json(404, { error: 'not_found' });
    });
    this.server.on('upgrade', (req, socket, head) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const token = req.headers.authorization?.replace(/^Bearer /, '') ?? url.searchParams.get('token');
      if (token !== GOOD) {
        socket.end('HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\n\r\n{"error":"unauthenticated"}');
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => {
        this.sockets.push(ws);
        ws.on('message', (data) => {
          const msg = JSON.parse(data.toString());
          this.received.push(msg);
          if (msg.t === 'auth') ws.send(JSON.stringify(msg.token === GOOD ? { t: 'auth', until: 99 } : { t: 'error', error: 'unauthenticated' }));
        });
        ws.send(JSON.stringify(this.hello()));
      });
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const ws of this.sockets) ws.terminate();
    this.wss.close();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }

  private nextCap(): string {
    this.cap++;
    return newCap((n) => Buffer.alloc(n, this.cap));
  }

  private put(path: string, body: unknown): string {
    this.files.set(path, gzipSync(JSON.stringify(body)));
    return fileUrl(`${this.base}/cdn`, path);
  }

  /** One merge: the next seq, its change file, a checkpoint after 1 and every 50th; `announce` sends `ah`. */
  merge(rows: AuctionRow[], announce = true): number {
    const seq = ++this.seq;
    for (const r of rows) this.table.set(r[0], r);
    this.tables.set(
      seq,
      [...this.table.values()].sort((a, b) => a[0] - b[0]),
    );
    const url = this.put(changePath(MARKET, seq, this.nextCap()), changeDoc(MARKET, seq, seq * 1000, rows));
    if (!this.opts.hidden?.has(seq)) this.changes.set(seq, url);
    if (isCheckpointSeq(seq)) {
      const cpUrl = this.put(checkpointPath(MARKET, seq, this.nextCap()), checkpointDoc(MARKET, seq, seq * 1000, [...this.table.values()]));
      this.checkpoints.push({ seq, url: cpUrl });
    }
    if (announce) this.broadcast({ t: 'ah', market: MARKET, seq, at: seq * 1000, url: this.canLive() ? url : undefined });
    return seq;
  }

  broadcast(msg: unknown): void {
    for (const ws of this.sockets) ws.send(JSON.stringify(msg));
  }

  private canLive(): boolean {
    return (this.opts.features ?? LIVE_FEATURES).includes('prices.live');
  }

  private liveState() {
    const checkpoint = this.checkpoints.at(-1) ?? null;
    const after = checkpoint?.seq ?? 0;
    const changes = [...this.changes].filter(([s]) => s > after).sort((a, b) => a[0] - b[0]);
    return { seq: this.seq, at: this.seq * 1000, checkpoint, changes };
  }

  private hello() {
    const live = this.canLive() ? this.liveState() : { checkpoint: null, changes: [] };
    const features = this.opts.features ?? LIVE_FEATURES;
    return {
      t: 'hello',
      market: MARKET,
      seq: this.seq,
      at: this.seq * 1000,
      ...live,
      sealed: { m1: null, h1: null, d1: null },
      caps: {},
      roles: ['free'],
      features,
      now: 1,
    };
  }

  /** How often a path under the file host was requested. */
  fileRequests(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const r of this.requests.filter((p) => p.startsWith('/cdn/'))) counts.set(r, (counts.get(r) ?? 0) + 1);
    return counts;
  }
}

const row = (key: number, price: number | null, at: number): AuctionRow => [key, price, price === null ? 0 : 1, at];

let service: FakeService;
let clients: LiveClient[] = [];

async function startService(opts?: FakeOptions): Promise<FakeService> {
  service = new FakeService(opts);
  await service.start();
  return service;
}

function client(extra: Partial<ConstructorParameters<typeof LiveClient>[0]> = {}): LiveClient {
  const c = new LiveClient({ base: service.base, market: MARKET, token: GOOD, ...extra });
  clients.push(c);
  return c;
}

const sortedRows = (m: Map<number, AuctionRow>) => [...m.values()].sort((a, b) => a[0] - b[0]);
const expectNoFileTwice = () => expect([...service.fileRequests().values()].every((n) => n === 1)).toBe(true);

afterEach(async () => {
  for (const c of clients) c.close();
  clients = [];
  await service?.stop();
});

describe('live client', () => {
  it('catches up from the checkpoint and changes named in hello', async () => {
    await startService();
    service.merge([row(1, 100, 1000), row(2, 200, 1000)], false);
    service.merge([row(1, 110, 2000)], false);
    service.merge([row(3, 300, 3000), row(2, null, 3000)], false);
    const c = client();

    const hello = await c.connect();
    await c.waitForSeq(3);

    expect(hello.seq).toBe(3);
    expect(c.fetched.checkpoint).toHaveLength(1);
    expect(c.fetched.change).toHaveLength(2);
    expect(c.fetched.files + c.fetched.table).toBe(0);
    expect(sortedRows(c.table)).toEqual(service.tables.get(3));
    expectNoFileTwice();
  });

  it('applies a notice of exactly have+1 with one fetch, and a repeated notice with none', async () => {
    await startService();
    service.merge([row(1, 100, 1000)], false);
    const c = client();
    await c.connect();
    await c.waitForSeq(1);

    service.merge([row(1, 90, 2000)]);
    await c.waitForSeq(2);
    const since = c.messages.length;
    service.broadcast({ t: 'ah', market: MARKET, seq: 2, at: 2000, url: c.fetched.change[0] });
    await c.waitForMessage((m) => m.t === 'ah' && m.seq === 2, { since });
    await c.idle();

    expect(c.fetched.change).toHaveLength(1);
    expect(c.fetched.files + c.fetched.table).toBe(0);
    expect(c.table.get(1)).toEqual(row(1, 90, 2000));
    expectNoFileTwice();
  });

  it('asks the files route when a notice skips a seq, then fetches only what it missed', async () => {
    await startService();
    service.merge([row(1, 100, 1000)], false);
    const c = client();
    await c.connect();
    await c.waitForSeq(1);

    service.merge([row(2, 50, 2000)], false);
    service.merge([row(3, 70, 3000)]);
    await c.waitForSeq(3);

    expect(c.fetched.files).toBe(1);
    expect(c.fetched.table).toBe(0);
    expect(c.fetched.change).toHaveLength(2);
    expect(sortedRows(c.table)).toEqual(service.tables.get(3));
    expectNoFileTwice();
  });

  it('loads the table when the files route cannot close the gap, never guessing a path', async () => {
    await startService({ hidden: new Set([2]) });
    service.merge([row(1, 100, 1000)], false);
    const c = client();
    await c.connect();
    await c.waitForSeq(1);

    service.merge([row(2, 50, 2000)], false);
    service.merge([row(3, 70, 3000)]);
    await c.waitForSeq(3);

    expect(c.fetched.files).toBe(1);
    expect(c.fetched.table).toBe(1);
    expect(c.fetched.change).toEqual([]);
    expect(service.requests.filter((p) => p.includes('/2-'))).toEqual([]);
    expect(sortedRows(c.table)).toEqual(service.tables.get(3));

    service.merge([row(4, 1, 4000)]);
    await c.waitForSeq(4);
    expect(c.fetched.change).toHaveLength(1);
  });

  it('goes through the newest checkpoint when more than 50 merges behind', async () => {
    await startService();
    for (let i = 1; i <= 60; i++) service.merge([row((i % 7) + 1, i, i * 1000)], false);
    const seeded = new Map((service.tables.get(5) ?? []).map((r) => [r[0], r] as [number, AuctionRow]));
    const behind = client({ table: seeded, have: 5 });
    const fresh = client();

    await behind.connect();
    await fresh.connect();
    await behind.waitForSeq(60);
    await fresh.waitForSeq(60);

    for (const c of [behind, fresh]) {
      expect(c.fetched.checkpoint).toEqual([expect.stringContaining('/c50-')]);
      expect(c.fetched.change).toHaveLength(10);
      expect(c.fetched.files + c.fetched.table).toBe(0);
      expect(sortedRows(c.table)).toEqual(service.tables.get(60));
    }
  });

  it('recovers through the files route and the table when a change file fails, without fetching it twice', async () => {
    await startService({ broken: new Set([2]) });
    service.merge([row(1, 100, 1000)], false);
    const c = client();
    await c.connect();
    await c.waitForSeq(1);

    service.merge([row(1, 80, 2000)]);
    await c.waitForSeq(2);

    expect(c.fetched.change).toHaveLength(1);
    expect(c.fetched.files).toBe(1);
    expect(c.fetched.table).toBe(1);
    expect(c.table.get(1)).toEqual(row(1, 80, 2000));
    expectNoFileTwice();
  });

  it('loads the table once per target and then waits for the next notice', async () => {
    await startService();
    service.merge([row(1, 100, 1000)], false);
    const c = client();
    await c.connect();
    await c.waitForSeq(1);

    const since = c.messages.length;
    service.broadcast({ t: 'ah', market: MARKET, seq: 9, at: 9000 });
    await c.waitForMessage((m) => m.t === 'ah', { since });
    await c.idle();

    expect(c.fetched.files).toBe(1);
    expect(c.fetched.table).toBe(1);
    expect(c.have).toBe(1);
  });

  it('fetches nothing for a caller without prices.live', async () => {
    await startService({ features: ['live'] });
    service.merge([row(1, 100, 1000)], false);
    const c = client();
    const hello = await c.connect();

    service.merge([row(1, 90, 2000)]);
    const ah = await c.waitForMessage((m) => m.t === 'ah');
    await c.idle();

    expect(hello.checkpoint).toBeNull();
    expect(ah).toMatchObject({ t: 'ah', seq: 2 });
    expect(c.have).toBeNull();
    expect(service.requests.filter((p) => p.startsWith('/cdn/') || p.startsWith('/api/'))).toEqual([]);
  });

  it('sends the token in the query when asked and is refused with the upgrade status for a bad one', async () => {
    await startService();
    const byQuery = client({ tokenIn: 'query' });
    await expect(byQuery.connect()).resolves.toMatchObject({ t: 'hello', market: MARKET });

    const refused = client({ token: 'bad' });
    const err = await refused.connect().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LiveUpgradeError);
    expect((err as LiveUpgradeError).status).toBe(401);
  });

  it('re-authenticates and keeps sealed, roles and alert messages', async () => {
    await startService();
    const c = client();
    await c.connect();

    await expect(c.auth(GOOD)).resolves.toEqual({ t: 'auth', until: 99 });
    await expect(c.auth('bad')).rejects.toThrow('unauthenticated');
    service.broadcast({ t: 'sealed', market: MARKET, res: 'h1', start: 3_600_000, url: `${service.base}/cdn/candles/v1/h1/${MARKET}/1.json.gz` });
    service.broadcast({ t: 'roles', roles: ['free', 'premium'], features: [...LIVE_FEATURES, 'candles.minute'] });
    service.broadcast({ t: 'alert', alert: { id: 'a1' } });
    await c.waitForMessage((m: LiveMessage) => m.t === 'alert');

    expect(service.received).toEqual([
      { t: 'auth', token: GOOD },
      { t: 'auth', token: 'bad' },
    ]);
    expect(c.sealed).toEqual({ m1: null, h1: 3_600_000, d1: null });
    expect(c.features).toContain('candles.minute');
    expect(c.roles).toEqual(['free', 'premium']);
  });

  it('reports the close code the server sends', async () => {
    await startService();
    const c = client();
    await c.connect();

    for (const ws of service.sockets) ws.close(4401, 'credential expired');

    await expect(c.waitForClose()).resolves.toEqual({ code: 4401, reason: 'credential expired' });
  });
});

/**
 * Issue 24.7: the shared client with nothing passed in runs where the app runs: on the platform's WebSocket
 * (browsers, Node 22), on Node 20 (no global WebSocket) through the `ws` package loaded lazily, and with a
 * platform `fetch` that must be called unbound (a browser's throws "Illegal invocation" otherwise).
 */
describe('live client on the platform it finds', () => {
  const saved = { WebSocket: (globalThis as { WebSocket?: unknown }).WebSocket, fetch: globalThis.fetch };
  afterEach(() => {
    (globalThis as { WebSocket?: unknown }).WebSocket = saved.WebSocket;
    globalThis.fetch = saved.fetch;
  });
  const plain = (extra: Partial<ConstructorParameters<typeof SharedLiveClient>[0]> = {}) => {
    const c = new SharedLiveClient({ base: service.base, market: MARKET, token: GOOD, ...extra });
    clients.push(c as LiveClient);
    return c;
  };

  it('opens its socket with the ws package, loaded lazily, where there is no global WebSocket (Node 20), sending the token as a header', async () => {
    await startService();
    service.merge([row(1, 100, 1000)], false);
    delete (globalThis as { WebSocket?: unknown }).WebSocket;
    const seen: string[] = [];
    service.on('upgrade', (req) => seen.push(`${req.url} ${req.headers.authorization}`));

    const c = plain();
    const hello = await c.connect();
    await c.waitForSeq(1);

    expect(hello.seq).toBe(1);
    expect(seen).toEqual([`/api/v1/live?market=${MARKET} Bearer ${GOOD}`]);
    expect(sortedRows(c.table)).toEqual(service.tables.get(1));
  });

  it("uses the platform's WebSocket when there is one, with the token in the query (it cannot send headers)", async () => {
    await startService();
    const urls: string[] = [];
    /** A stand-in for the platform's WebSocket: the browser surface (onmessage, onclose, onerror) over a ws socket. */
    class PlatformWebSocket {
      onmessage: ((e: { data: unknown }) => void) | null = null;
      onclose: ((e: { code: number; reason: string }) => void) | null = null;
      onerror: ((e: unknown) => void) | null = null;
      private readonly ws: WsPackageSocket;
      constructor(url: string) {
        if (arguments.length !== 1) throw new Error('the platform socket takes a URL only');
        urls.push(url);
        this.ws = new WsPackageSocket(url);
        this.ws.on('message', (data) => this.onmessage?.({ data: data.toString() }));
        this.ws.on('close', (code, reason) => this.onclose?.({ code, reason: reason.toString() }));
        this.ws.on('error', (err) => this.onerror?.(err));
      }
      send(text: string) {
        this.ws.send(text);
      }
      close(code?: number) {
        this.ws.close(code);
      }
    }
    (globalThis as { WebSocket?: unknown }).WebSocket = PlatformWebSocket;

    const c = plain();
    await c.connect();

    expect(urls).toEqual([`${service.base.replace('http', 'ws')}/api/v1/live?market=${MARKET}&token=${GOOD}`]);
    expect(c.hello?.market).toBe(MARKET);
  });

  it('calls the platform fetch unbound, as a browser requires', async () => {
    await startService();
    service.merge([row(1, 100, 1000)], false);
    service.merge([row(2, 200, 2000)], false);
    globalThis.fetch = function (this: unknown, ...args: Parameters<typeof fetch>) {
      if (this !== undefined && this !== globalThis) throw new TypeError('Illegal invocation');
      return saved.fetch(...args);
    } as typeof fetch;

    const c = client();
    await c.connect();
    await c.waitForSeq(2);

    expect(c.errors).toEqual([]);
    expect(sortedRows(c.table)).toEqual(service.tables.get(2));
  });
});
