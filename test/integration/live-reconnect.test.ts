/**
 * Issue 24.7: the shared live client (shared/client, nothing passed in: on Node 20 it loads `ws` itself)
 * against the local runtime keeps itself connected: when the runtime drops its socket (`POST
 * /_local/live/drop`, as API Gateway closes connections at its limits) or closes it with 4401 because the
 * session expired, it reconnects with backoff and a fresh credential from its callback, and catches up by the
 * gap rule, fetching only the change it missed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveClient } from '../../shared/client/live-client';
import { type Local, startLocal } from '../support/local';
import { MARKET, MINUTE, uploadAt, uploaderKey } from '../support/market-books';

describe('live client reconnecting to the local runtime', () => {
  let local: Local;
  const clients: LiveClient[] = [];
  const follow = (getToken: () => Promise<string>) => {
    const c = new LiveClient({ base: local.base, market: MARKET, getToken, reconnect: { initialDelayMs: 20, maxDelayMs: 200 } });
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    local = await startLocal();
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await local?.close();
  });

  it('reconnects after the runtime drops the socket, with a fresh token, fetching only the change it missed', async () => {
    const premium = await local.user({ plan: 'premium' });
    const key = await uploaderKey(local);
    const t0 = await local.now();
    await uploadAt(local, key, t0, [[25, 500, 3]]);

    // The second token is held back until the test has merged a book while the client was away.
    let release: (() => void) | null = null;
    const tokens: string[] = [];
    const c = follow(async () => {
      if (tokens.length > 0) await new Promise<void>((resolve) => (release = resolve));
      tokens.push(await local.session(premium.id, { expiresIn: 3600 }));
      return tokens.at(-1)!;
    });
    const closes: { code: number }[] = [];
    c.on('close', (e: { code: number }) => closes.push(e));
    await c.connect();
    await c.waitForSeq(1);

    expect((await local.api('POST', '/_local/live/drop', { body: {} })).body).toEqual({ dropped: 1 });
    await expect.poll(() => release !== null).toBe(true);
    await uploadAt(local, key, t0 + 5 * MINUTE + 1000, [[25, 450, 2]]);
    const reconnected = new Promise((resolve) => c.once('reconnected', resolve));
    release!();
    await reconnected;
    await c.waitForSeq(2);

    expect(closes.map((e) => e.code)).toEqual([1001]);
    expect(tokens).toHaveLength(2);
    expect(c.reconnects).toBe(1);
    expect(c.table.get(25)).toEqual([25, 450, 2, t0 + 5 * MINUTE + 1000]);
    // Checkpoint 1 on the first socket; on the second only change 2: neither the files route nor the table.
    expect(c.fetched.checkpoint).toHaveLength(1);
    expect(c.fetched.change).toHaveLength(1);
    expect(c.fetched).toMatchObject({ files: 0, table: 0 });
    expect(c.errors).toEqual([]);
  });

  it('reconnects with a fresh session when the server closes an expired one with 4401', async () => {
    const u = await local.user({ plan: 'premium' });
    let issued = 0;
    const c = follow(async () => {
      issued++;
      return local.session(u.id, { expiresIn: 60 });
    });
    const closes: { code: number }[] = [];
    c.on('close', (e: { code: number }) => closes.push(e));
    const first = await c.connect();

    const reconnected = new Promise<{ now: number }>((resolve) => c.once('reconnected', resolve));
    await local.advance(11 * MINUTE + 1000);
    await local.tick();
    const hello = await reconnected;

    expect(closes.map((e) => e.code)).toEqual([4401]);
    expect(issued).toBe(2);
    expect(hello.now).toBeGreaterThan(first.now);
    // The new socket lives: a merge now reaches it.
    const seq = c.target;
    await uploadAt(local, await uploaderKey(local), await local.now(), [[26, 700, 1]]);
    await c.waitForSeq(seq + 1);
    expect(c.table.get(26)?.[1]).toBe(700);
    expect(c.closed).toBeNull();
  });

  it('answers a bad drop request 400 bad_request', async () => {
    for (const body of [{ code: 1006 }, { code: 2000 }, { code: '1001' }, { why: 1 }, []]) {
      const res = await local.api('POST', '/_local/live/drop', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('bad_request');
    }
    expect((await local.api('GET', '/_local/live/drop')).status).toBe(405);
  });
});
