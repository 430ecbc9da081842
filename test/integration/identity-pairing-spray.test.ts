import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAIR_CODE_ALPHABET } from '../../shared/domain/pairing';
import { type Local, startLocal } from '../support/local';

const MINUTE = 60_000;
/** The limit as docs/security.md writes it down (issue 11, point 7): 10 missed confirms per 10 minutes per account. */
const MISSES = 10;
const WINDOW = 10 * MINUTE;

/**
 * Integration (issue 11, point 7): an account's confirms of well-formed codes that match no waiting pairing
 * are counted; past the limit every confirm is 429 `rate_limited` with `Retry-After: 60` for a while.
 */
describe('pairing codes cannot be sprayed', () => {
  let local: Local;
  let ipSeq = 0;
  const app = (method: string, path: string, body?: unknown) =>
    local.api(method, path, { body, headers: { 'x-forwarded-for': `198.19.0.${(++ipSeq % 250) + 1}` } });
  const pair = async () => (await app('POST', '/api/v1/devices/pair', { name: 'PC' })).body as { code: string; pairId: string };
  const confirm = (token: string, code: unknown) => local.api('POST', '/api/v1/devices/confirm', { token, body: { code } });
  const signIn = async () => local.session((await local.user()).id, { expiresIn: 86_400 });
  /** A well-formed code no pairing holds (the waiting ones in this file are few; a clash is 2^-40). */
  const wrongCode = () => Array.from({ length: 8 }, () => PAIR_CODE_ALPHABET[Math.floor(Math.random() * 32)]).join('');
  const miss = async (token: string, n: number) => {
    for (let i = 0; i < n; i++) expect((await confirm(token, wrongCode())).status).toBe(404);
  };

  beforeAll(async () => {
    local = await startLocal();
  });
  afterAll(() => local.close());

  it('answers 10 misses 404, then refuses every confirm, a correct one too, with 429 and Retry-After: 60', async () => {
    const token = await signIn();
    const p = await pair();
    await miss(token, MISSES);
    const res = await confirm(token, p.code);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('60');
    expect(res.body).toMatchObject({ error: 'rate_limited' });
    expect((await confirm(token, wrongCode())).status).toBe(429);
    // Nothing was bound: the app still waits.
    expect((await app('GET', `/api/v1/devices/pair/${p.pairId}`)).body).toEqual({ status: 'waiting' });
  });

  it('counts misses in a window of 10 minutes from the first one', async () => {
    const token = await signIn();
    await miss(token, MISSES);
    await local.advance(WINDOW - 1);
    expect((await confirm(token, wrongCode())).status).toBe(429);
    await local.advance(1);
    await miss(token, MISSES);
    expect((await confirm(token, wrongCode())).status).toBe(429);
    await local.advance(WINDOW);
    const p = await pair();
    expect((await confirm(token, p.code)).status).toBe(200);
  });

  it('lets a person who mistyped a few times confirm, and does not count the confirm that binds', async () => {
    const token = await signIn();
    await miss(token, MISSES - 1);
    const first = await pair();
    expect((await confirm(token, first.code)).status).toBe(200);
    // Confirming again answers the same device and is no miss either.
    expect((await confirm(token, first.code)).status).toBe(200);
    await miss(token, 1);
    expect((await confirm(token, (await pair()).code)).status).toBe(429);
  });

  it('does not count malformed codes: they keep their answer (404 unknown_code, 400 without a code)', async () => {
    const token = await signIn();
    for (let i = 0; i < 3; i++) {
      for (const code of ['HELLO', '12345678', 'not a code', 'ABCDEFGHJ', 'ABCD-EFG0']) {
        expect(await confirm(token, code)).toMatchObject({ status: 404, body: { error: 'unknown_code' } });
      }
      expect((await confirm(token, 12345678)).status).toBe(400);
    }
    expect((await confirm(token, (await pair()).code)).status).toBe(200);
  });

  it('counts each account on its own', async () => {
    const [a, b] = [await signIn(), await signIn()];
    await miss(a, MISSES);
    expect((await confirm(a, wrongCode())).status).toBe(429);
    expect((await confirm(b, (await pair()).code)).status).toBe(200);
  });

  it('lets no more than 10 misses through a concurrent spray', async () => {
    const token = await signIn();
    const statuses = (await Promise.all(Array.from({ length: 40 }, () => confirm(token, wrongCode())))).map((r) => r.status);
    expect(statuses.filter((s) => s === 404)).toHaveLength(MISSES);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40 - MISSES);
  });
});
