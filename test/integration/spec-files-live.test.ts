/**
 * Black-box checks of spec files-and-live (and api.md "Live socket", the files route) over real HTTP and
 * WebSockets: exact paths, headers, document fields, message fields per role, upgrade statuses and closes.
 */
import { get } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { listFiles } from '../support/books';
import { pairDevice } from '../support/devices';
import { DEFAULT_START, type Local, startLocal } from '../support/local';
import { bookOf, DAY, HOUR, type Listing, MARKET, MINUTE, uploadAt, uploaderKey } from '../support/market-books';

const IMMUTABLE = 'public, max-age=31536000, immutable';
const CAP = '[A-Za-z0-9_-]{22}';
const D = Math.floor(DEFAULT_START / DAY);
const T0 = D * DAY;
const BLOCK = 10 * MINUTE;

// biome-ignore lint/suspicious/noExplicitAny: messages and documents are asserted field by field
type Json = any;

interface Socket {
  ws: WebSocket;
  messages: Json[];
  next(pred: (m: Json) => boolean, since?: number): Promise<Json>;
  closed: Promise<{ code: number }>;
}

function sockets(getLocal: () => Local) {
  const open: WebSocket[] = [];
  const connect = (token: string | undefined, query = `?market=${MARKET}`, headers: Record<string, string> = {}): Promise<Socket> => {
    const local = getLocal();
    const ws = new WebSocket(`${local.base.replace('http', 'ws')}/api/v1/live${query}`, {
      headers: token ? { authorization: `Bearer ${token}`, ...headers } : headers,
    });
    open.push(ws);
    const messages: Json[] = [];
    const waiters: Array<() => void> = [];
    ws.on('message', (d) => {
      messages.push(JSON.parse(d.toString()));
      for (const w of waiters.splice(0)) w();
    });
    const closed = new Promise<{ code: number }>((resolve) => ws.on('close', (code) => resolve({ code })));
    const next = (pred: (m: Json) => boolean, since = 0) =>
      new Promise<Json>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching message; got ${JSON.stringify(messages)}`)), 60_000);
        const check = () => {
          const hit = messages.slice(since).find(pred);
          if (hit) {
            clearTimeout(timer);
            resolve(hit);
          } else waiters.push(check);
        };
        check();
      });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve({ ws, messages, next, closed }));
      ws.once('unexpected-response', (_q, res) => reject(new Error(`refused ${res.statusCode}`)));
      ws.once('error', reject);
    });
  };
  const refusal = (token: string | undefined, query: string, headers: Record<string, string> = {}) => {
    const local = getLocal();
    const ws = new WebSocket(`${local.base.replace('http', 'ws')}/api/v1/live${query}`, {
      headers: token ? { authorization: `Bearer ${token}`, ...headers } : headers,
    });
    return new Promise<{ status: number; body: Json }>((resolve, reject) => {
      ws.on('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (d: Buffer) => {
          body += d.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(body || '{}') }));
      });
      ws.on('open', () => {
        ws.close();
        reject(new Error('the upgrade was accepted'));
      });
    });
  };
  const closeAll = () => {
    for (const ws of open) ws.terminate();
  };
  return { connect, refusal, closeAll };
}

const jwtExp = (token: string): number => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).exp;

/** The file host's answer as sent: bytes untouched (fetch would decompress them) and its headers. */
function raw(local: Local, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; buf: Buffer }> {
  return new Promise((resolve, reject) => {
    get(`${local.base}/cdn/${path}`, { headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') h.set(k, v);
        resolve({ status: res.statusCode ?? 0, headers: h, buf: Buffer.concat(parts) });
      });
    }).on('error', reject);
  });
}

/** A file as stored: gzip bytes for `.json.gz` (checked), parsed. */
async function stored(local: Local, path: string): Promise<{ headers: Headers; body: Json }> {
  const r = await raw(local, path);
  expect(r.status, path).toBe(200);
  const gz = r.buf[0] === 0x1f && r.buf[1] === 0x8b;
  expect(gz, path).toBe(path.endsWith('.json.gz'));
  return { headers: r.headers, body: JSON.parse((gz ? gunzipSync(r.buf) : r.buf).toString('utf8')) };
}

const pathOf = (local: Local, url: string): string => {
  expect(url.startsWith(`${local.base}/cdn/`), url).toBe(true);
  return url.slice(`${local.base}/cdn/`.length);
};

describe('spec files-and-live: live socket', () => {
  let local: Local;
  const s = sockets(() => local);
  let users: { free: { id: string; token: string }; contributor: { id: string; token: string }; premium: { id: string; token: string } };

  beforeAll(async () => {
    local = await startLocal();
    const now = await local.now();
    const mk = async (input: Record<string, unknown>) => {
      const u = await local.user(input);
      return { id: u.id, token: await local.session(u.id, { expiresIn: 30 * 86_400 }) };
    };
    users = {
      free: await mk({ plan: 'free' }),
      contributor: await mk({ plan: 'free', contributorUntil: now + 20 * DAY }),
      premium: await mk({ plan: 'premium' }),
    };
  });
  afterAll(async () => {
    s.closeAll();
    await local.close();
  });

  it('refuses upgrades: 401 for anonymous and bad credentials, 403 for an API key without live, 400 bad_market for an empty market', async () => {
    const u = await local.user({ plan: 'premium' });
    const noLive = await local.apiKey(u.id, ['api.read', 'prices.live']);
    expect(await s.refusal(noLive, `?market=${MARKET}`)).toMatchObject({ status: 403, body: { error: 'forbidden', feature: 'live' } });
    expect(await s.refusal(undefined, `?market=${MARKET}`, { cookie: '__session=garbage' })).toMatchObject({ status: 401, body: { error: 'unauthenticated' } });
    expect(await s.refusal(users.free.token, '?market=')).toMatchObject({ status: 400, body: { error: 'bad_market' } });
    expect(await s.refusal(users.free.token, '?market=FOREVER.NORMAL.ALLIANCE.US')).toMatchObject({ status: 400, body: { error: 'bad_market' } });
    const plain = await local.api('GET', `/api/v1/live?market=${MARKET}`, { token: users.free.token, headers: { connection: 'keep-alive' } });
    expect(plain).toMatchObject({ status: 426, body: { error: 'upgrade_required' } });
  });

  it('sends hello first and unasked, with exactly the spec fields, for session, device and API key sockets', async () => {
    const key = await local.apiKey(users.premium.id);
    const device = await pairDevice(local, users.contributor.id);
    const [free, contributor, premium, byKey, byDevice] = await Promise.all([
      s.connect(users.free.token),
      s.connect(users.contributor.token),
      s.connect(users.premium.token),
      s.connect(key),
      s.connect(device.token),
    ]);
    const now = await local.now();
    const fields = ['at', 'caps', 'changes', 'checkpoint', 'features', 'market', 'now', 'roles', 'sealed', 'seq', 't'];
    for (const c of [free, contributor, premium, byKey, byDevice]) {
      const hello = await c.next((m) => m.t === 'hello');
      expect(c.messages[0]).toBe(hello);
      expect(Object.keys(hello).sort()).toEqual(fields);
      expect(hello).toMatchObject({ market: MARKET, seq: 0, at: null, checkpoint: null, changes: [], sealed: { m1: null, h1: null, d1: null }, now });
      expect(hello.features).toContain('live');
    }
    const hf = free.messages[0];
    expect(hf.roles).toEqual(['free']);
    expect(hf.features).not.toContain('prices.live');
    expect(hf.caps).toEqual({});
    const hc = contributor.messages[0];
    expect(hc.roles).toEqual(expect.arrayContaining(['free', 'contributor']));
    expect(hc.features).toEqual(expect.arrayContaining(['prices.live', 'depth', 'books']));
    expect(Object.keys(hc.caps)).toEqual(['h1']);
    expect(byDevice.messages[0].caps).toEqual(hc.caps);
    const hp = premium.messages[0];
    expect(hp.roles).toEqual(expect.arrayContaining(['free', 'premium']));
    expect(hp.features).toContain('candles.minute');
    expect(Object.keys(hp.caps).sort()).toEqual(['h1', 'm1']);
    expect(hp.caps.m1).toEqual({ [D]: expect.stringMatching(new RegExp(`^${CAP}$`)) });
    expect(byKey.messages[0].caps).toEqual(hp.caps);
    const files = (await local.api('GET', `/api/v1/ah/${MARKET}/files`, { token: users.premium.token })).body;
    expect(files.caps).toEqual(hp.caps);
  });

  it('answers auth with until: a session token exp plus 10 minutes, null for a device', async () => {
    const c = await s.connect(users.free.token);
    await c.next((m) => m.t === 'hello');
    const fresh = await local.session(users.free.id, { expiresIn: 3600 });
    const since = c.messages.length;
    c.ws.send(JSON.stringify({ t: 'auth', token: fresh }));
    expect(await c.next((m) => m.t === 'auth', since)).toEqual({ t: 'auth', until: jwtExp(fresh) * 1000 + 10 * MINUTE });
    const device = await pairDevice(local, users.free.id);
    const d = await s.connect(device.token);
    await d.next((m) => m.t === 'hello');
    d.ws.send(JSON.stringify({ t: 'auth', token: device.token }));
    expect(await d.next((m) => m.t === 'auth')).toEqual({ t: 'auth', until: null });
  });

  it('closes with 4403 after a renewal whose credential lacks live, sending roles without live first', async () => {
    const u = await local.user({ plan: 'free' });
    const c = await s.connect(await local.apiKey(u.id));
    await c.next((m) => m.t === 'hello');
    c.ws.send(JSON.stringify({ t: 'auth', token: await local.apiKey(u.id, ['api.read']) }));
    expect(await c.closed).toEqual({ code: 4403 });
    const roles = c.messages.find((m) => m.t === 'roles');
    expect(Object.keys(roles).sort()).toEqual(['features', 'roles', 't']);
    expect(roles.features).not.toContain('live');
  });

  it('answers error bad_message to anything but {t: "auth", token} and keeps the socket open', async () => {
    const c = await s.connect(users.free.token);
    await c.next((m) => m.t === 'hello');
    for (const text of [JSON.stringify({ t: 'subscribe', market: MARKET }), 'null', '{', JSON.stringify({ t: 'auth', token: 5 })]) {
      const since = c.messages.length;
      c.ws.send(text);
      expect(await c.next((m) => m.t === 'error', since)).toEqual({ t: 'error', error: 'bad_message' });
    }
    const since = c.messages.length;
    c.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    expect(await c.next((m) => m.t === 'error', since)).toEqual({ t: 'error', error: 'bad_message' });
    expect(c.ws.readyState).toBe(WebSocket.OPEN);
  });

  describe('after merges', () => {
    let free: Socket;
    let contributor: Socket;
    let premium: Socket;
    const a1 = T0 + 2 * MINUTE;
    const a2 = T0 + 9 * MINUTE;
    const late = T0 + 6 * MINUTE;
    const b1: Listing[] = [
      [1001, 500, 3],
      [1002, 700, 1],
      [1003, 900, 2],
    ];
    const b2: Listing[] = [
      [1001, 450, 4],
      [1003, 900, 2],
    ];

    beforeAll(async () => {
      [free, contributor, premium] = await Promise.all([s.connect(users.free.token), s.connect(users.contributor.token), s.connect(users.premium.token)]);
      await Promise.all([free, contributor, premium].map((c) => c.next((m) => m.t === 'hello')));
      await uploadAt(local, await uploaderKey(local), a1, b1);
      await uploadAt(local, await uploaderKey(local), a2, b2);
      // A late incomplete book: merged, but the market's newest scan stays a2.
      await uploadAt(local, await uploaderKey(local), late, [[1005, 100, 1]], false);
      // A duplicate (another caller, same market and `at`) is not merged: it takes no seq.
      const dup = await local.api('POST', '/api/v1/ah/books', { token: await uploaderKey(local), body: bookOf(a2, b2) });
      expect(dup.body).toMatchObject({ credited: false, reason: 'duplicate' });
      await local.settle();
    });

    it('sends ah after every merge with the spec fields per role: url with prices.live, book with books', async () => {
      for (const seq of [1, 2, 3]) {
        const at = seq === 1 ? a1 : a2;
        const f = await free.next((m) => m.t === 'ah' && m.seq === seq);
        expect(f).toEqual({ t: 'ah', market: MARKET, seq, at });
        for (const c of [contributor, premium]) {
          const ah = await c.next((m) => m.t === 'ah' && m.seq === seq);
          expect(Object.keys(ah).sort()).toEqual(['at', 'book', 'market', 'seq', 't', 'url']);
          expect(ah).toMatchObject({ market: MARKET, seq, at });
          expect(pathOf(local, ah.url)).toMatch(new RegExp(`^live/v1/${MARKET}/${seq}-${CAP}\\.json\\.gz$`));
          const bookAt = [a1, a2, late][seq - 1];
          expect(pathOf(local, ah.book)).toMatch(new RegExp(`^books/v1/${MARKET}/${bookAt}-${CAP}\\.json\\.gz$`));
        }
      }
      const urls = [1, 2, 3].map((seq) => contributor.messages.find((m) => m.t === 'ah' && m.seq === seq).url);
      expect(premium.messages.filter((m) => m.t === 'ah').map((m) => m.url)).toEqual(urls);
    });

    it('writes change files with the newest scan as at and every changed row, gone rows included', async () => {
      const ahs = [1, 2, 3].map((seq) => contributor.messages.find((m) => m.t === 'ah' && m.seq === seq));
      const c1 = await stored(local, pathOf(local, ahs[0].url));
      expect(c1.headers.get('content-type')).toBe('application/json');
      expect(c1.headers.get('content-encoding')).toBe('gzip');
      expect(c1.headers.get('cache-control')).toBe(IMMUTABLE);
      expect(c1.body).toEqual({ v: 1, market: MARKET, seq: 1, at: a1, rows: b1.map(([k, p, q]) => [k, p, q, a1]) });
      const c2 = await stored(local, pathOf(local, ahs[1].url));
      expect(c2.body).toEqual({
        v: 1,
        market: MARKET,
        seq: 2,
        at: a2,
        rows: [
          [1001, 450, 4, a2],
          [1002, null, 0, a2],
          [1003, 900, 2, a2],
        ],
      });
      const c3 = await stored(local, pathOf(local, ahs[2].url));
      expect(c3.body).toEqual({ v: 1, market: MARKET, seq: 3, at: a2, rows: [[1005, 100, 1, late]] });
    });

    it('writes a checkpoint after merge 1 only (until merge 50), holding the table after that merge', async () => {
      const keys = (await listFiles(local, `live/v1/${MARKET}/`)).map((k) => k.key);
      const names = keys.map((k: string) => k.slice(`live/v1/${MARKET}/`.length).replace(new RegExp(`-${CAP}\\.json\\.gz$`), ''));
      expect(names.sort()).toEqual(['1', '2', '3', 'c1']);
      expect(contributor.messages.filter((m) => m.t === 'ah').map((m) => m.seq)).toEqual([1, 2, 3]);
      const hello = (await s.connect(users.contributor.token)).next((m) => m.t === 'hello');
      const h = await hello;
      expect(h).toMatchObject({ seq: 3, at: a2, checkpoint: { seq: 1, url: expect.any(String) } });
      expect(h.changes.map((c: [number, string]) => c[0])).toEqual([2, 3]);
      expect(h.changes.map((c: [number, string]) => c[1])).toEqual([2, 3].map((seq) => contributor.messages.find((m) => m.t === 'ah' && m.seq === seq).url));
      const cp = await stored(local, pathOf(local, h.checkpoint.url));
      expect(pathOf(local, h.checkpoint.url)).toMatch(new RegExp(`^live/v1/${MARKET}/c1-${CAP}\\.json\\.gz$`));
      expect(cp.headers.get('cache-control')).toBe(IMMUTABLE);
      expect(cp.body).toEqual({ v: 1, market: MARKET, seq: 1, at: a1, rows: b1.map(([k, p, q]) => [k, p, q, a1]) });
      // One cap per file: the checkpoint and every change file have their own.
      const capOf = (url: string) => /-([A-Za-z0-9_-]{22})\.json\.gz$/.exec(url)?.[1];
      const caps = [h.checkpoint.url, contributor.messages.find((m) => m.t === 'ah' && m.seq === 1).url, ...h.changes.map((c: [number, string]) => c[1])].map(
        capOf,
      );
      expect(new Set(caps).size).toBe(4);
    });

    it('publishes book files as {v: 1, market, at, complete, auctions, entries}', async () => {
      const ah = premium.messages.find((m) => m.t === 'ah' && m.seq === 3);
      const book = await stored(local, pathOf(local, ah.book));
      expect(book.headers.get('cache-control')).toBe(IMMUTABLE);
      expect(book.body).toEqual({ v: 1, market: MARKET, at: late, complete: false, auctions: 1, entries: [[1005, 100, 1, 3, 1]] });
      const files = (await local.api('GET', `/api/v1/ah/${MARKET}/files`, { token: users.premium.token })).body;
      expect(files.books.map((b: Json) => b.url)).toEqual(
        [a2, late, a1].map((at) => premium.messages.find((m) => m.t === 'ah' && m.book?.includes(`/${at}-`)).book),
      );
    });

    it('answers the files route with the spec fields per role and its cache headers', async () => {
      const anon = await local.api('GET', `/api/v1/ah/${MARKET}/files`);
      expect(anon.headers.get('cache-control')).toBe('public, max-age=60');
      expect(anon.headers.get('vary')).toMatch(/Authorization, Cookie/);
      expect(Object.keys(anon.body).sort()).toEqual(['caps', 'cdnBase', 'd1', 'market', 'now', 'sealed', 'snapshot']);
      const free = await local.api('GET', `/api/v1/ah/${MARKET}/files`, { token: users.free.token });
      expect(free.headers.get('cache-control')).toBe('private, no-store');
      expect(Object.keys(free.body).sort()).toEqual(['caps', 'cdnBase', 'd1', 'market', 'now', 'sealed', 'snapshot']);
      const con = await local.api('GET', `/api/v1/ah/${MARKET}/files`, { token: users.contributor.token });
      expect(Object.keys(con.body).sort()).toEqual(['books', 'caps', 'cdnBase', 'd1', 'live', 'market', 'now', 'sealed', 'snapshot']);
      const hello = await (await s.connect(users.contributor.token)).next((m) => m.t === 'hello');
      expect(con.body.live).toEqual({ seq: hello.seq, at: hello.at, checkpoint: hello.checkpoint, changes: hello.changes });
      expect(con.body.caps).toEqual(hello.caps);
      expect(con.body.cdnBase).toBe(`${local.base}/cdn/`);
      expect(Object.keys(con.body.books[0]).sort()).toEqual(['at', 'complete', 'url']);
    });

    it('announces sealed periods with {t, market, res, start, url}: contributors get the full day file, not m1', async () => {
      await local.setClock(T0 + DAY + 6 * MINUTE);
      await local.tick();
      const d1 = await contributor.next((m) => m.t === 'sealed' && m.res === 'd1');
      expect(Object.keys(d1).sort()).toEqual(['market', 'res', 'start', 't', 'url']);
      expect(d1).toMatchObject({ market: MARKET, start: T0 });
      expect(pathOf(local, d1.url)).toMatch(new RegExp(`^candles/v1/d1c/${MARKET}/${CAP}/${D}\\.json\\.gz$`));
      const full = await stored(local, pathOf(local, d1.url));
      expect(full.body).toMatchObject({ v: 1, market: MARKET, res: 'd1', t: T0, days: 90 });
      const h1 = await contributor.next((m) => m.t === 'sealed' && m.res === 'h1');
      expect(h1).toEqual({
        t: 'sealed',
        market: MARKET,
        res: 'h1',
        start: T0 + 23 * HOUR,
        url: `${local.base}/cdn/candles/v1/h1/${MARKET}/${(T0 + 23 * HOUR) / HOUR}.json.gz`,
      });
      const m1 = await premium.next((m) => m.t === 'sealed' && m.res === 'm1' && m.start === T0 + DAY - BLOCK);
      expect(pathOf(local, m1.url)).toMatch(new RegExp(`^candles/v1/m1/${MARKET}/${CAP}/${(T0 + DAY) / BLOCK - 1}\\.json\\.gz$`));
      expect(contributor.messages.some((m) => m.t === 'sealed' && m.res === 'm1')).toBe(false);
      expect(free.messages.some((m) => m.t === 'sealed' && m.res === 'm1')).toBe(false);
      const fd = await free.next((m) => m.t === 'sealed' && m.res === 'd1');
      expect(fd.url).toBe(`${local.base}/cdn/candles/v1/d1/${MARKET}/${D}.json.gz`);
      const hc = await (await s.connect(users.contributor.token)).next((m) => m.t === 'hello');
      expect(hc.sealed).toEqual({ m1: (T0 + DAY) / BLOCK - 1, h1: (T0 + DAY) / HOUR - 1, d1: D });
      expect(hc.caps.d1).toBe(d1.url);
      expect(pathOf(local, hc.caps.volume)).toMatch(new RegExp(`^volume/v1/${MARKET}/${CAP}/${D}\\.json\\.gz$`));
      const vol = await stored(local, pathOf(local, hc.caps.volume));
      expect(vol.body).toMatchObject({ v: 1, market: MARKET, t: T0, days: 90 });
    });

    it('serves each published file with its Content-Type, Content-Encoding and Cache-Control', async () => {
      const h = (T0 + DAY) / HOUR;
      const checks: Array<[string, string]> = [
        [`candles/v1/h1/${MARKET}/${T0 / HOUR}.json.gz`, IMMUTABLE],
        [`candles/v1/d1/${MARKET}/${D}.json.gz`, IMMUTABLE],
        [`snap/v1/${MARKET}/${h}.json.gz`, IMMUTABLE],
        [`recent/v1/${MARKET}/${h}.json.gz`, IMMUTABLE],
        [`snap/v1/${MARKET}/latest.json`, 'public, max-age=60'],
        [`recent/v1/${MARKET}/latest.json`, 'public, max-age=60'],
      ];
      for (const [path, cache] of checks) {
        const f = await stored(local, path);
        expect(f.headers.get('content-type'), path).toBe('application/json');
        expect(f.headers.get('content-encoding'), path).toBe(path.endsWith('.gz') ? 'gzip' : null);
        expect(f.headers.get('cache-control'), path).toBe(cache);
        expect(f.body.v, path).toBe(1);
      }
      const hour = await stored(local, `candles/v1/h1/${MARKET}/${T0 / HOUR}.json.gz`);
      expect(hour.body).toEqual({
        v: 1,
        market: MARKET,
        res: 'h1',
        t: T0,
        items: [
          [1001, [T0, 500, 500, 450, 450, 4]],
          [1002, [T0, 700, 700, 700, 700, 1]],
          [1003, [T0, 900, 900, 900, 900, 2]],
          [1005, [T0, 100, 100, 100, 100, 1]],
        ],
      });
      const day = await stored(local, `candles/v1/d1/${MARKET}/${D}.json.gz`);
      expect(day.body).toMatchObject({ v: 1, market: MARKET, res: 'd1', t: T0, days: 7 });
      const recent = await stored(local, `recent/v1/${MARKET}/${h}.json.gz`);
      expect(Object.keys(recent.body).sort()).toEqual(['at', 'categories', 'index', 'items', 'market', 'v']);
      for (const row of recent.body.items) {
        expect(row).toHaveLength(7);
        expect(row[6]).toHaveLength(28);
      }
      expect(recent.body.index[0]).toEqual([h - 168, 100]);
      expect(recent.body.index.at(-1)[0]).toBe(h - 1);
      expect((await raw(local, `candles/v1/h1/${MARKET}/${T0 / HOUR + 1000}.json.gz`)).status).toBe(404);
    });

    it('answers CORS for the deployment origins only', async () => {
      const path = `snap/v1/${MARKET}/latest.json`;
      expect((await raw(local, path, { origin: 'http://localhost:5173' })).headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
      expect((await raw(local, path, { origin: 'https://evil.example' })).headers.get('access-control-allow-origin')).toBeNull();
    });

    it('hands out m1 caps for 3 days and h1 caps for up to 15, made when each day begins, matching the sealed files', async () => {
      await local.setClock(T0 + 3 * DAY + 6 * MINUTE);
      await local.tick();
      const hello = await (await s.connect(users.premium.token)).next((m) => m.t === 'hello');
      expect(Object.keys(hello.caps.m1).map(Number)).toEqual([D + 1, D + 2, D + 3]);
      expect(Object.keys(hello.caps.h1).map(Number)).toEqual([D, D + 1, D + 2, D + 3]);
      const m1Keys = await listFiles(local, `candles/v1/m1/${MARKET}/${hello.caps.m1[D + 2]}/`);
      expect(m1Keys).toHaveLength(144);
      const sealed = await premium.next((m) => m.t === 'sealed' && m.res === 'm1' && m.start === T0 + 3 * DAY - BLOCK);
      expect(sealed.url).toBe(`${local.base}/cdn/candles/v1/m1/${MARKET}/${hello.caps.m1[D + 2]}/${(T0 + 3 * DAY) / BLOCK - 1}.json.gz`);
    });
  });
});

describe('spec files-and-live: item pointer', () => {
  let local: Local;
  beforeAll(async () => {
    local = await startLocal();
  });
  afterAll(() => local.close());

  it('writes items/v1/current.json as {v: 1, build, hash, items, search, at}, cached 300 s', async () => {
    const res = await fetch(`${local.base}/_local/items`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        v: 1,
        build: '1.15.7.60000',
        source: 'spec test',
        suffixes: {},
        statNames: {},
        bonusLists: {},
        bonusTrees: {},
        items: { 2589: { n: 'Linen Cloth', q: 1, c: 7, sc: 5 } },
      }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const cur = await stored(local, 'items/v1/current.json');
    expect(cur.headers.get('cache-control')).toBe('public, max-age=300');
    expect(cur.headers.get('content-type')).toBe('application/json');
    expect(Object.keys(cur.body).sort()).toEqual(['at', 'build', 'hash', 'items', 'search', 'v']);
    expect(cur.body.v).toBe(1);
    if (cur.body.hash === null) expect(cur.body.items).toBe(`items/v1/${cur.body.build}/items.json.gz`);
    else expect(cur.body.items).toBe(`items/v1/${cur.body.build}-${cur.body.hash}/items.json.gz`);
    const items = await stored(local, cur.body.items);
    expect(items.headers.get('content-encoding')).toBe('gzip');
    const search = await stored(local, cur.body.search);
    expect(search.headers.get('content-encoding')).toBe('gzip');
  });
});
