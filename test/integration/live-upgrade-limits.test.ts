import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { MARKETS } from '../../shared/domain/market';
import { pairDevice } from '../support/devices';
import { LiveClient } from '../support/live-client';
import { type Local, startLocal } from '../support/local';
import { MARKET } from '../support/market-books';

const MINUTE = 60_000;
/** The limits as docs/security.md writes them down: `apiPerMinute` of a free account and of an anonymous address. */
const FREE_PER_MINUTE = 120;
const ANON_PER_MINUTE = 60;
/** Open live sockets per account (issue 23 point 3: "e.g. 20 across markets"), per plan. */
const FREE_SOCKETS = 20;
const PREMIUM_SOCKETS = 40;

type Refused = { status: number; body: Record<string, unknown>; retryAfter: string | null };
type Upgrade = Refused | { status: 101; ws: WebSocket };

/**
 * Integration (issue 23 point 3): sockets have limits. Every upgrade counts against the caller's per-minute
 * limit; upgrades that authenticate no one count against their address; an account holds at most its plan's
 * number of open sockets; beyond any of them the upgrade is `429 rate_limited` before it happens. Real
 * WebSocket handshakes against the local gateway, each test in a fresh minute.
 */
describe('live upgrade limits', () => {
  let local: Local;
  let ipSeq = 0;
  const freshIp = () => `198.19.0.${++ipSeq}`;
  const open: WebSocket[] = [];

  /** One upgrade: the refusal's status, body and Retry-After, or 101 and the open socket (once `hello` came). */
  const upgrade = (opts: { token?: string; query?: string; market?: string; ip?: string } = {}): Promise<Upgrade> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> = { 'x-forwarded-for': opts.ip ?? freshIp() };
      if (opts.token) headers.authorization = `Bearer ${opts.token}`;
      const ws = new WebSocket(`${local.base.replace('http', 'ws')}/api/v1/live?market=${opts.market ?? MARKET}${opts.query ?? ''}`, { headers });
      ws.once('unexpected-response', (_req, res) => {
        let text = '';
        res.on('data', (d: Buffer) => {
          text += d.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text || '{}'), retryAfter: res.headers['retry-after'] ?? null }));
      });
      ws.once('message', () => {
        open.push(ws);
        resolve({ status: 101, ws });
      });
      ws.once('error', reject);
    });
  const close = (ws: WebSocket) =>
    new Promise<void>((resolve) => {
      ws.once('close', () => resolve());
      ws.close();
    });
  const rateLimited = { status: 429, body: { error: 'rate_limited' }, retryAfter: '60' };
  /** Starts at the top of a fresh minute, so no counter is shared with another test. */
  const nextMinute = async () => {
    const now = await local.now();
    await local.setClock((Math.floor(now / MINUTE) + 1) * MINUTE);
  };
  const session = async (input: Record<string, unknown> = {}) => {
    const u = await local.user(input);
    return { id: u.id, token: await local.session(u.id, { expiresIn: 30 * 86_400 }) };
  };

  beforeAll(async () => {
    local = await startLocal();
  });
  afterAll(async () => {
    for (const ws of open) ws.close();
    await local.close();
  });

  it('counts every upgrade against the caller’s per-minute limit: past it, 429 rate_limited with Retry-After: 60, before 400 bad_market', async () => {
    await nextMinute();
    const free = await session();
    // Upgrades refused later in the order (400 bad_market) still spend the caller's requests of the minute.
    for (let i = 0; i < FREE_PER_MINUTE; i += 20) {
      const batch = await Promise.all(Array.from({ length: 20 }, () => upgrade({ token: free.token, market: 'nowhere' })));
      for (const r of batch) expect(r).toMatchObject({ status: 400, body: { error: 'bad_market' } });
    }
    expect(await upgrade({ token: free.token })).toMatchObject(rateLimited);
    expect(await upgrade({ token: free.token, market: 'nowhere' })).toMatchObject(rateLimited);
    // The same limit as every other /api/v1/ request: the upgrades spent the account's HTTP requests too.
    expect((await local.api('GET', '/api/v1/me', { token: free.token })).status).toBe(429);
    // Another account is not affected, and a minute later this one may upgrade again.
    expect(await upgrade({ token: (await session()).token })).toMatchObject({ status: 101 });
    await local.advance(MINUTE);
    expect(await upgrade({ token: free.token })).toMatchObject({ status: 101 });
  });

  it('counts API requests and upgrades of a device token alike: a device past its minute is refused the upgrade', async () => {
    await nextMinute();
    const u = await local.user();
    const device = await pairDevice(local, u.id);
    await nextMinute();
    const answers = await Promise.all(Array.from({ length: FREE_PER_MINUTE }, () => local.api('GET', '/api/v1/me', { token: device.token })));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(await upgrade({ token: device.token })).toMatchObject(rateLimited);
  });

  it('meters upgrades that authenticate no one per address: past the anonymous share 429 in place of 401, other callers unaffected', async () => {
    await nextMinute();
    const ip = freshIp();
    const attempts = await Promise.all(
      Array.from({ length: ANON_PER_MINUTE }, (_, i) =>
        // No credential, a malformed one and a refused session token alike.
        upgrade({ ip, ...(i % 3 === 0 ? {} : i % 3 === 1 ? { query: '&token=garbage' } : { token: 'eyJhbGciOiJSUzI1NiJ9.e30.c2ln' }) }),
      ),
    );
    for (const a of attempts) expect(a).toMatchObject({ status: 401, body: { error: 'unauthenticated' } });
    expect(await upgrade({ ip })).toMatchObject(rateLimited);
    expect(await upgrade({ ip, token: 'not-a-token' })).toMatchObject(rateLimited);
    expect(await upgrade({ ip, query: '&token=garbage' })).toMatchObject(rateLimited);
    // Another address still hears 401; a signed-in caller from the flooded address is counted as itself.
    expect(await upgrade({ ip: freshIp() })).toMatchObject({ status: 401, body: { error: 'unauthenticated' } });
    expect(await upgrade({ ip, token: (await session()).token })).toMatchObject({ status: 101 });
    await local.advance(MINUTE);
    expect(await upgrade({ ip })).toMatchObject({ status: 401 });
  });

  it('meters anonymous upgrades from IPv6 by their /64, as every per-address limit is', async () => {
    await nextMinute();
    const attempts = await Promise.all(Array.from({ length: ANON_PER_MINUTE }, (_, i) => upgrade({ ip: `2001:db8:23:1::${(i + 1).toString(16)}` })));
    for (const a of attempts) expect(a).toMatchObject({ status: 401 });
    expect(await upgrade({ ip: '2001:db8:23:1:ffff:ffff:ffff:ffff' })).toMatchObject(rateLimited);
    expect(await upgrade({ ip: '2001:db8:23:2::1' })).toMatchObject({ status: 401 });
  });

  it('caps an account’s open sockets across markets and credentials at its plan’s number; one closed frees a place', async () => {
    await nextMinute();
    const free = await session();
    const key = await local.apiKey(free.id);
    const device = await pairDevice(local, free.id);
    const mine: WebSocket[] = [];
    for (let i = 0; i < FREE_SOCKETS; i++) {
      const token = [free.token, key, device.token][i % 3];
      const r = await upgrade({ token, market: MARKETS[i % MARKETS.length] });
      expect(r.status).toBe(101);
      if (r.status === 101 && 'ws' in r) mine.push(r.ws);
    }
    for (const token of [free.token, key, device.token]) {
      expect(await upgrade({ token, market: MARKETS[1] })).toMatchObject({ ...rateLimited, body: { error: 'rate_limited', limit: FREE_SOCKETS } });
    }
    // The limit checks come in the spec's order: 400 bad_market before the cap.
    expect(await upgrade({ token: free.token, market: 'nowhere' })).toMatchObject({ status: 400, body: { error: 'bad_market' } });
    // Another account of the same plan is not affected.
    expect(await upgrade({ token: (await session()).token })).toMatchObject({ status: 101 });
    await close(mine[0]);
    await local.settle();
    expect(await upgrade({ token: device.token })).toMatchObject({ status: 101 });
    expect(await upgrade({ token: key })).toMatchObject(rateLimited);
  });

  it('documents the cap per plan in GET /api/v1/me, and a premium account may hold more sockets', async () => {
    await nextMinute();
    const free = await session();
    const premium = await session({ plan: 'premium' });
    expect((await local.api('GET', '/api/v1/me', { token: free.token })).body.limits).toMatchObject({ liveSockets: FREE_SOCKETS });
    expect((await local.api('GET', '/api/v1/me', { token: premium.token })).body.limits).toMatchObject({ liveSockets: PREMIUM_SOCKETS });
    for (let i = 0; i < PREMIUM_SOCKETS; i++) expect((await upgrade({ token: premium.token, market: MARKETS[i % MARKETS.length] })).status).toBe(101);
    expect(await upgrade({ token: premium.token })).toMatchObject({ ...rateLimited, body: { error: 'rate_limited', limit: PREMIUM_SOCKETS } });
  });

  it('closes an account’s newest sockets past its cap at the minute sweep (1008), keeping the oldest: a cap that dropped, or upgrades that raced', async () => {
    await nextMinute();
    const u = await local.user({ plan: 'premium' });
    const device = await pairDevice(local, u.id);
    const clients: LiveClient[] = [];
    for (let i = 0; i < PREMIUM_SOCKETS; i++) {
      const c = new LiveClient({ base: local.base, market: MARKETS[i % MARKETS.length], token: device.token });
      await c.connect();
      clients.push(c);
      await local.advance(1000);
    }
    // The plan ends: the account's cap is the free one from the sweep that sees it (device claims refresh in 10 minutes).
    const res = await fetch(`${local.base}/_local/users/${u.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ plan: 'free' }),
    });
    expect(res.status).toBe(200);
    await local.advance(10 * MINUTE);
    await local.tick();
    for (const c of clients.slice(FREE_SOCKETS)) expect(await c.waitForClose()).toMatchObject({ code: 1008 });
    await local.settle();
    for (const c of clients.slice(0, FREE_SOCKETS)) expect(c.closed).toBeNull();
    expect(await upgrade({ token: device.token })).toMatchObject({ ...rateLimited, body: { error: 'rate_limited', limit: FREE_SOCKETS } });
    for (const c of clients) c.close();
  });

  it('leaves an account no more than its cap once the minute sweep ran, however many of its upgrades raced', async () => {
    await nextMinute();
    const free = await session();
    const burst = await Promise.all(Array.from({ length: FREE_SOCKETS + 10 }, (_, i) => upgrade({ token: free.token, market: MARKETS[i % MARKETS.length] })));
    const admitted = burst.flatMap((r) => ('ws' in r ? [r.ws] : []));
    for (const r of burst) if (!('ws' in r)) expect(r).toMatchObject({ ...rateLimited, body: { error: 'rate_limited', limit: FREE_SOCKETS } });
    expect(admitted.length).toBeGreaterThanOrEqual(FREE_SOCKETS);
    await local.advance(MINUTE);
    await local.tick();
    await local.settle();
    expect(admitted.filter((ws) => ws.readyState === WebSocket.OPEN)).toHaveLength(FREE_SOCKETS);
    expect(await upgrade({ token: free.token })).toMatchObject({ ...rateLimited, body: { error: 'rate_limited', limit: FREE_SOCKETS } });
  });
});
