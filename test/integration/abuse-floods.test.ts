import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveClient } from '../support/live-client';
import { type Local, startLocal } from '../support/local';
import { MARKET } from '../support/market-books';

const MINUTE = 60_000;
/** The limits as docs/security.md writes them down (issue 11). */
const KEY_LOOKUPS_PER_MINUTE = 20;
/** The deployment's budget of key verifications on a development instance (issue 23 point 4): new keys' share, window. */
const NEW_KEYS_PER_WINDOW = 25;
const WINDOW = 10_000;
const SOCKET_MESSAGES_PER_MINUTE = 20;

/**
 * Integration (issue 11, point 1): bad credentials cannot burn the identity provider's quota. API keys that
 * would need the provider are metered per client address before it is asked; live socket messages are
 * metered per socket, and a flood closes the socket with 1008.
 */
describe('floods meet limits before they cost anything', () => {
  let local: Local;
  let ipSeq = 0;
  const freshIp = () => `198.18.0.${++ipSeq}`;
  const clients: LiveClient[] = [];
  const randomKey = () => `ak_${randomBytes(24).toString('base64url')}`;
  const verifications = () => local.runtime.identity.backendCalls['api_keys/verify'] ?? 0;
  const me = (token: string, ip: string) => fetch(`${local.base}/api/v1/me`, { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': ip } });
  /** Starts at the top of a fresh minute, so no counter is shared with another test. */
  const nextMinute = async () => {
    const now = await local.now();
    await local.setClock((Math.floor(now / MINUTE) + 1) * MINUTE);
  };
  const open = async (token: string) => {
    const c = new LiveClient({ base: local.base, market: MARKET, token });
    clients.push(c);
    await c.connect();
    return c;
  };
  const closed = (c: LiveClient) =>
    new Promise<{ code: number }>((resolve, reject) => {
      if (c.closed) return resolve(c.closed);
      const timer = setTimeout(() => reject(new Error('the socket stayed open')), 60_000);
      c.once('close', (v: { code: number }) => {
        clearTimeout(timer);
        resolve(v);
      });
    });

  beforeAll(async () => {
    local = await startLocal();
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await local.close();
  });

  it('asks the provider about at most 20 unknown API keys a minute per address, then answers 429 with Retry-After: 60', async () => {
    await nextMinute();
    const ip = freshIp();
    const before = verifications();
    const answers = await Promise.all(Array.from({ length: 35 }, () => me(randomKey(), ip)));
    const statuses = answers.map((r) => r.status);
    expect(verifications() - before).toBe(KEY_LOOKUPS_PER_MINUTE);
    expect(statuses.filter((s) => s === 401)).toHaveLength(KEY_LOOKUPS_PER_MINUTE);
    expect(statuses.filter((s) => s === 429)).toHaveLength(35 - KEY_LOOKUPS_PER_MINUTE);
    const limited = answers.find((r) => r.status === 429);
    expect(limited?.headers.get('retry-after')).toBe('60');
    expect(await limited?.json()).toMatchObject({ error: 'rate_limited' });
    // Past the limit nothing reaches the provider.
    const after = verifications();
    expect((await me(randomKey(), ip)).status).toBe(429);
    expect(verifications()).toBe(after);
    // A minute later the address may ask again.
    await local.advance(MINUTE);
    expect((await me(randomKey(), ip)).status).toBe(401);
    expect(verifications()).toBe(after + 1);
  });

  it('leaves other addresses, cached keys, recently refused keys, session tokens and device tokens alone', async () => {
    await nextMinute();
    const ip = freshIp();
    const u = await local.user();
    const good = await local.apiKey(u.id);
    expect((await me(good, ip)).status).toBe(200);
    const refused = randomKey();
    expect((await me(refused, ip)).status).toBe(401);
    await Promise.all(Array.from({ length: KEY_LOOKUPS_PER_MINUTE }, () => me(randomKey(), ip)));
    expect((await me(randomKey(), ip)).status).toBe(429);
    const asked = verifications();
    // Answers that need no lookup still come, and ask nothing.
    expect((await me(good, ip)).status).toBe(200);
    expect((await me(refused, ip)).status).toBe(401);
    expect((await me('eyJhbGciOiJSUzI1NiJ9.e30.c2ln', ip)).status).toBe(401);
    expect((await me(`svc_dev_${randomBytes(32).toString('base64url')}`, ip)).status).toBe(401);
    expect(verifications()).toBe(asked);
    // Another address is not affected.
    expect((await me(randomKey(), freshIp())).status).toBe(401);
    expect((await me(await local.apiKey(u.id), freshIp())).status).toBe(200);
    expect(verifications()).toBe(asked + 2);
  });

  it('asks the provider about at most 25 never-seen keys per 10 s in the whole deployment, then answers 503 unavailable', async () => {
    // Issue 23 point 4: 3 addresses, each within its own 20 a minute, together past the deployment's budget
    // (domain/flood-limits.ts: 40 verifications per 10 s window on a development instance, 25 for new keys).
    await nextMinute();
    const before = verifications();
    const answers = await Promise.all([freshIp(), freshIp(), freshIp()].flatMap((ip) => Array.from({ length: 20 }, () => me(randomKey(), ip))));
    const statuses = answers.map((r) => r.status);
    expect(verifications() - before).toBe(NEW_KEYS_PER_WINDOW);
    expect(statuses.filter((s) => s === 401)).toHaveLength(NEW_KEYS_PER_WINDOW);
    expect(statuses.filter((s) => s === 503)).toHaveLength(60 - NEW_KEYS_PER_WINDOW);
    expect(await answers.find((r) => r.status === 503)?.json()).toMatchObject({ error: 'unavailable' });
    // The next window asks again.
    await local.advance(WINDOW);
    expect((await me(randomKey(), freshIp())).status).toBe(401);
    expect(verifications() - before).toBe(NEW_KEYS_PER_WINDOW + 1);
  });

  it('keeps a share of the budget for keys verified before: a flood of never-seen keys cannot stop a real key being verified again', async () => {
    await nextMinute();
    const u = await local.user();
    const [real, other] = [await local.apiKey(u.id), await local.apiKey(u.id)];
    expect((await me(real, freshIp())).status).toBe(200);
    expect((await me(other, freshIp())).status).toBe(200);
    // Their verdicts lapse (5 minutes); the next window opens with a flood of never-seen keys.
    await local.advance(5 * MINUTE + WINDOW);
    const flood = await Promise.all([freshIp(), freshIp()].flatMap((ip) => Array.from({ length: 20 }, () => me(randomKey(), ip))));
    expect(flood.filter((r) => r.status === 503)).toHaveLength(40 - NEW_KEYS_PER_WINDOW);
    const asked = verifications();
    // Keys verified before are asked about again from the reserved share; a never-seen one is not.
    expect((await me(real, freshIp())).status).toBe(200);
    expect((await me(other, freshIp())).status).toBe(200);
    expect(verifications()).toBe(asked + 2);
    const unseen = await me(await local.apiKey(u.id), freshIp());
    expect(unseen.status).toBe(503);
    expect(await unseen.json()).toMatchObject({ error: 'unavailable' });
    expect(verifications()).toBe(asked + 2);
  });

  it('meters unknown keys per IPv6 /48: fresh /64s of one site share its 20 a minute', async () => {
    await nextMinute();
    const before = verifications();
    // Each request from its own /64 of 2001:db8:77::/48, as one site can.
    const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => me(randomKey(), `2001:db8:77:${(i + 1).toString(16)}::1`)));
    const statuses = answers.map((r) => r.status);
    expect(verifications() - before).toBe(KEY_LOOKUPS_PER_MINUTE);
    expect(statuses.filter((s) => s === 401)).toHaveLength(KEY_LOOKUPS_PER_MINUTE);
    expect(statuses.filter((s) => s === 429)).toHaveLength(24 - KEY_LOOKUPS_PER_MINUTE);
    // Another /48 is not affected.
    expect((await me(randomKey(), '2001:db8:78:1::1')).status).toBe(401);
  });

  it('meters the live upgrade and renewals by the same rule', async () => {
    await nextMinute();
    const u = await local.user();
    const c = await open(await local.apiKey(u.id));
    // The socket's address (loopback here) spends its share of lookups; a fresh key then meets 429 at upgrade.
    await Promise.all(Array.from({ length: KEY_LOOKUPS_PER_MINUTE }, () => me(randomKey(), '127.0.0.1')));
    const wait = c.waitForMessage((m) => m.t === 'error', { since: c.messages.length });
    c.send(JSON.stringify({ t: 'auth', token: await local.apiKey(u.id) }));
    expect(await wait).toEqual({ t: 'error', error: 'unavailable' });
    const refused = new LiveClient({ base: local.base, market: MARKET, token: await local.apiKey(u.id) });
    await expect(refused.connect()).rejects.toMatchObject({ status: 429 });
    expect(c.closed).toBeNull();
  });

  it('keeps a socket that sends 20 messages a minute open', async () => {
    await nextMinute();
    const u = await local.user();
    const c = await open(await local.apiKey(u.id));
    for (let minute = 0; minute < 2; minute++) {
      const since = c.messages.length;
      const errors = () => c.messages.slice(since).filter((m) => m.t === 'error');
      for (let i = 0; i < SOCKET_MESSAGES_PER_MINUTE; i++) c.send('not a message');
      // Each answer is an error frame on its way to the client: wait for the last one (settle says the service
      // is idle, not that the frames it wrote have arrived), then for the service, which must not close it.
      await c.waitForMessage(() => errors().length >= SOCKET_MESSAGES_PER_MINUTE, { since });
      await local.settle();
      expect(errors()).toHaveLength(SOCKET_MESSAGES_PER_MINUTE);
      await local.advance(MINUTE);
    }
    expect(c.closed).toBeNull();
  });

  it('closes a socket that floods messages with 1008, answering none past the limit and asking the provider nothing for them', async () => {
    await nextMinute();
    const u = await local.user();
    const c = await open(await local.apiKey(u.id));
    const since = c.messages.length;
    const asked = verifications();
    const flood = Array.from({ length: 200 }, () => JSON.stringify({ t: 'auth', token: randomKey() }));
    for (const text of flood) c.send(text);
    expect((await closed(c)).code).toBe(1008);
    await local.settle();
    expect(c.messages.slice(since).length).toBeLessThanOrEqual(SOCKET_MESSAGES_PER_MINUTE);
    expect(verifications() - asked).toBeLessThanOrEqual(KEY_LOOKUPS_PER_MINUTE);
  });
});
