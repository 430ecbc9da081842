import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveClient } from '../support/live-client';
import { type Local, startLocal } from '../support/local';
import { DAY, HOUR, MARKET, MINUTE, uploadAt, uploaderKey } from '../support/market-books';

const CAP_URL = /[-/][A-Za-z0-9_-]{22}[/.]/;

describe('live socket: upgrade, hello, notices, renewals and closes', () => {
  let local: Local;
  const clients: LiveClient[] = [];
  const open = (token: string, opts: { tokenIn?: 'header' | 'query'; market?: string; follow?: boolean } = {}) => {
    const c = new LiveClient({ base: local.base, market: opts.market ?? MARKET, token, tokenIn: opts.tokenIn, follow: opts.follow });
    clients.push(c);
    return c;
  };
  const refusal = async (token: string | undefined, query: string) => {
    const { default: WebSocket } = await import('ws');
    const ws = new WebSocket(`${local.base.replace('http', 'ws')}/api/v1/live${query}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    return new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
      ws.on('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (d: Buffer) => {
          body += d.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(body || '{}') }));
      });
      ws.on('open', () => reject(new Error('the upgrade was accepted')));
    });
  };
  const session = async (input: Record<string, unknown> = {}, expiresIn = 30 * 86_400) => {
    const u = await local.user(input);
    return { id: u.id, token: await local.session(u.id, { expiresIn }) };
  };

  beforeAll(async () => {
    local = await startLocal();
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await local.close();
  });

  it('refuses the upgrade with 401, 403 and 400 bad_market in that order', async () => {
    const free = await session();
    const withheld = await session({ withhold: ['live'] });
    expect(await refusal(undefined, `?market=${MARKET}`)).toMatchObject({ status: 401, body: { error: 'unauthenticated' } });
    expect(await refusal('not-a-token', `?market=${MARKET}`)).toMatchObject({ status: 401 });
    expect(await refusal(undefined, '?market=nowhere')).toMatchObject({ status: 401 });
    expect(await refusal(withheld.token, '?market=nowhere')).toMatchObject({ status: 403, body: { error: 'forbidden', feature: 'live' } });
    expect(await refusal(free.token, '')).toMatchObject({ status: 400, body: { error: 'bad_market' } });
    expect(await refusal(free.token, '?market=forever.normal.gnome.us')).toMatchObject({ status: 400, body: { error: 'bad_market' } });
  });

  it('answers a plain GET of the live path 401, 403, 400, then 426 upgrade_required', async () => {
    const free = await session();
    const withheld = await session({ withhold: ['live'] });
    expect((await local.api('GET', `/api/v1/live?market=${MARKET}`)).status).toBe(401);
    expect((await local.api('GET', '/api/v1/live?market=x', { token: withheld.token })).body).toMatchObject({ error: 'forbidden', feature: 'live' });
    expect((await local.api('GET', '/api/v1/live?market=x', { token: free.token })).body).toMatchObject({ error: 'bad_market' });
    const res = await local.api('GET', `/api/v1/live?market=${MARKET}`, { token: free.token });
    expect(res.status).toBe(426);
    expect(res.body).toMatchObject({ error: 'upgrade_required' });
  });

  it('greets a socket with hello before anything exists, without the client sending anything', async () => {
    const free = await session();
    const c = open(free.token, { market: 'forever.rp.horde.us' });
    const hello = await c.connect();
    expect(hello).toEqual({
      t: 'hello',
      market: 'forever.rp.horde.us',
      seq: 0,
      at: null,
      checkpoint: null,
      changes: [],
      sealed: { m1: null, h1: null, d1: null },
      caps: {},
      roles: ['free'],
      features: expect.arrayContaining(['live']),
      now: await local.now(),
    });
    expect(c.messages[0].t).toBe('hello');
  });

  it("takes the credential from ?token= and from the __session cookie (with the deployment's Origin)", async () => {
    const free = await session();
    const byQuery = open(free.token, { tokenIn: 'query' });
    expect((await byQuery.connect()).t).toBe('hello');
    const { default: WebSocket } = await import('ws');
    const ws = new WebSocket(`${local.base.replace('http', 'ws')}/api/v1/live?market=${MARKET}`, {
      headers: { cookie: `__session=${free.token}`, origin: local.base },
    });
    const first = await new Promise<{ t?: string }>((resolve, reject) => {
      ws.once('message', (d) => resolve(JSON.parse(d.toString())));
      ws.once('unexpected-response', (_q, res) => reject(new Error(`refused ${res.statusCode}`)));
    });
    ws.close();
    expect(first.t).toBe('hello');
  });

  describe('notices after merges', () => {
    let tokens: { free: string; contributor: string; premium: string };
    let key: string;
    const listings = (n: number, price = 10_000): Array<[number, number, number]> => Array.from({ length: n }, (_, i) => [1000 + i, price + i, 5]);

    beforeAll(async () => {
      const now = await local.now();
      const [free, contributor, premium] = await Promise.all([
        session({ plan: 'free' }),
        session({ plan: 'free', contributorUntil: now + 14 * DAY }),
        session({ plan: 'premium' }),
      ]);
      tokens = { free: free.token, contributor: contributor.token, premium: premium.token };
      key = await uploaderKey(local);
    });

    it('sends ah after every merge: the change URL with prices.live, the book URL with books, neither for free callers', async () => {
      const free = open(tokens.free);
      const contributor = open(tokens.contributor);
      await Promise.all([free.connect(), contributor.connect()]);
      const start = await local.now();
      await uploadAt(local, key, start, listings(3));
      const [a, b] = await Promise.all([free.waitForMessage((m) => m.t === 'ah'), contributor.waitForMessage((m) => m.t === 'ah')]);
      expect(a).toEqual({ t: 'ah', market: MARKET, seq: 1, at: start });
      expect(b).toMatchObject({ t: 'ah', market: MARKET, seq: 1, at: start });
      const ah = b as { url: string; book: string };
      expect(ah.url).toMatch(new RegExp(`^${local.base}/cdn/live/v1/${MARKET}/1-[A-Za-z0-9_-]{22}\\.json\\.gz$`));
      expect(ah.book).toMatch(new RegExp(`^${local.base}/cdn/books/v1/${MARKET}/${start}-[A-Za-z0-9_-]{22}\\.json\\.gz$`));
      const change = await (await fetch(ah.url)).json();
      expect(change).toEqual({ v: 1, market: MARKET, seq: 1, at: start, rows: listings(3).map(([k, p, q]) => [k, p, q, start]) });
      await contributor.waitForSeq(1);
      expect(contributor.fetched.change).toEqual([ah.url]);
    });

    it('greets later sockets with the newest checkpoint and every change after it, with prices.live only', async () => {
      const at = (await local.now()) + 5 * MINUTE;
      await uploadAt(local, key, at, listings(4, 20_000));
      const contributor = open(tokens.contributor);
      const free = open(tokens.free);
      const [hc, hf] = await Promise.all([contributor.connect(), free.connect()]);
      expect(hc).toMatchObject({ seq: 2, at, checkpoint: { seq: 1, url: expect.stringMatching(CAP_URL) }, changes: [[2, expect.stringMatching(CAP_URL)]] });
      expect(hf).toMatchObject({ seq: 2, at, checkpoint: null, changes: [] });
      await contributor.waitForSeq(2);
      expect(contributor.fetched.checkpoint).toHaveLength(1);
      expect([...contributor.table.values()].find((r) => r[0] === 1003)).toEqual([1003, 20_003, 5, at]);
    });

    it('hands out caps by role: m1 with candles.minute, h1 with historyDays above 7, none to free callers', async () => {
      const today = Math.floor((await local.now()) / DAY);
      const [premium, contributor, free] = await Promise.all([open(tokens.premium).connect(), open(tokens.contributor).connect(), open(tokens.free).connect()]);
      expect(free.caps).toEqual({});
      expect(Object.keys(contributor.caps)).toEqual(['h1']);
      expect(contributor.caps.h1?.[today]).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(Object.keys(premium.caps).sort()).toEqual(['h1', 'm1']);
      expect(premium.caps.m1?.[today]).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(premium.caps.m1?.[today]).not.toBe(premium.caps.h1?.[today]);
      expect(premium.caps.h1).toEqual(contributor.caps.h1);
    });

    it('announces sealed files with the URL each caller may read, m1 only with candles.minute', async () => {
      const premium = open(tokens.premium);
      const contributor = open(tokens.contributor);
      const free = open(tokens.free);
      await Promise.all([premium.connect(), contributor.connect(), free.connect()]);
      const t0 = Math.floor((await local.now()) / DAY) * DAY;
      await local.setClock(t0 + 15 * MINUTE);
      await local.tick();
      const m1 = (await premium.waitForMessage((m) => m.t === 'sealed' && m.res === 'm1')) as { start: number; url: string };
      expect(m1).toEqual({
        t: 'sealed',
        market: MARKET,
        res: 'm1',
        start: t0,
        url: `${local.base}/cdn/candles/v1/m1/${MARKET}/${premium.caps.m1?.[t0 / DAY]}/${t0 / 600_000}.json.gz`,
      });
      expect((await fetch(m1.url)).status).toBe(200);
      await local.setClock(t0 + HOUR + 5 * MINUTE);
      await local.tick();
      const expected = { t: 'sealed', market: MARKET, res: 'h1', start: t0, url: `${local.base}/cdn/candles/v1/h1/${MARKET}/${t0 / HOUR}.json.gz` };
      for (const c of [premium, contributor, free]) expect(await c.waitForMessage((m) => m.t === 'sealed' && m.res === 'h1')).toEqual(expected);
      expect(contributor.messages.some((m) => m.t === 'sealed' && m.res === 'm1')).toBe(false);
      expect(free.messages.some((m) => m.t === 'sealed' && m.res === 'm1')).toBe(false);
      await local.setClock(t0 + DAY + 5 * MINUTE);
      await local.tick();
      const [pd, fd] = (await Promise.all([premium, free].map((c) => c.waitForMessage((m) => m.t === 'sealed' && m.res === 'd1')))) as Array<{
        url: string;
        start: number;
      }>;
      expect(pd.start).toBe(t0);
      expect(pd.url).toMatch(new RegExp(`/cdn/candles/v1/d1c/${MARKET}/[A-Za-z0-9_-]{22}/${t0 / DAY}\\.json\\.gz$`));
      expect(fd.url).toBe(`${local.base}/cdn/candles/v1/d1/${MARKET}/${t0 / DAY}.json.gz`);
      const hello = await open(tokens.premium).connect();
      expect(hello.sealed).toEqual({ m1: (t0 + DAY) / 600_000 - 1, h1: (t0 + DAY) / HOUR - 1, d1: t0 / DAY });
      expect(hello.caps.d1).toBe(pd.url);
      expect(hello.caps.volume).toMatch(new RegExp(`/cdn/volume/v1/${MARKET}/[A-Za-z0-9_-]{22}/${t0 / DAY}\\.json\\.gz$`));
      expect((await open(tokens.free).connect()).caps).toEqual({});
    });
  });
});
