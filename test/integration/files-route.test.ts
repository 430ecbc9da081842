import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postAdminSnapshot } from '../../shared/api/admin-snapshot';
import { anonymousPrincipal } from '../../shared/auth/authenticate';
import { changePath } from '../../shared/domain/file-paths';
import { retainFiles } from '../../shared/files/file-retention';
import { putJsonFile } from '../../shared/files/file-store';
import type { ApiRequest } from '../../shared/http/types';
import { listFiles } from '../support/books';
import { DEFAULT_START, type Local, startLocal } from '../support/local';
import { DAY, HOUR, type Listing, MARKET, MINUTE, tierTokens, uploadAt, uploaderKey } from '../support/market-books';

const CAP = /^[A-Za-z0-9_-]{22}$/;
const D = Math.floor(DEFAULT_START / DAY);
const T0 = D * DAY;
const book = (n: number): Listing[] => Array.from({ length: 6 }, (_, i) => [2000 + i, 50_000 + i * 10 + n, 2]);

describe('files route, capabilities, admin snapshots and file retention', () => {
  let local: Local;
  let tokens: Awaited<ReturnType<typeof tierTokens>>;
  let admin: string;
  const files = (token?: string) => local.api('GET', `/api/v1/ah/${MARKET}/files`, { token });

  beforeAll(async () => {
    local = await startLocal();
    tokens = await tierTokens(local);
    const a = await local.user({ grants: ['admin'] });
    admin = await local.session(a.id, { expiresIn: 30 * 86_400 });
  });
  afterAll(() => local.close());

  it('answers before anything exists: no snapshot, no day file, nothing sealed, caps only of today', async () => {
    const anon = await files();
    expect(anon.status).toBe(200);
    expect(anon.headers.get('cache-control')).toBe('public, max-age=60');
    expect(anon.body).toEqual({
      market: MARKET,
      cdnBase: `${local.base}/cdn/`,
      snapshot: null,
      d1: null,
      sealed: { m1: null, h1: null, d1: null },
      caps: {},
      now: T0 + 1000,
    });
    const premium = await files(tokens.premium);
    expect(premium.headers.get('cache-control')).toBe('private, no-store');
    expect(premium.body.live).toEqual({ seq: 0, at: null, checkpoint: null, changes: [] });
    expect(premium.body.books).toEqual([]);
    expect(Object.keys(premium.body.caps.m1)).toEqual([String(D)]);
    expect((await local.api('GET', '/api/v1/ah/forever.normal.gnome.us/files')).body).toMatchObject({ error: 'bad_market' });
  });

  it('answers admin snapshots only to admins, writing each market with data once per hour', async () => {
    expect((await local.api('POST', '/api/v1/admin/snapshot')).status).toBe(401);
    expect((await local.api('POST', '/api/v1/admin/snapshot', { token: tokens.premium })).body).toMatchObject({ error: 'forbidden', feature: 'admin' });
    expect((await local.api('POST', '/api/v1/admin/snapshot', { token: admin })).body).toEqual({ written: [], now: T0 + 1000 });
    await uploadAt(local, await uploaderKey(local), T0 + 2 * MINUTE, book(0));
    const first = await local.api('POST', '/api/v1/admin/snapshot', { token: admin });
    expect(first.status).toBe(200);
    const listed = await listFiles(local, `snap/v1/${MARKET}/${T0 / HOUR}.json.gz`);
    expect(first.body).toEqual({ written: [{ market: MARKET, at: T0, bytes: listed[0].size }], now: T0 + 2 * MINUTE });
    const snap = await (await fetch(`${local.base}/cdn/snap/v1/${MARKET}/${T0 / HOUR}.json.gz`)).json();
    expect(snap).toMatchObject({ at: T0, scan: null, rows: [] });
    await uploadAt(local, await uploaderKey(local), T0 + 3 * MINUTE, book(1));
    const again = await local.api('POST', '/api/v1/admin/snapshot', { token: admin });
    expect(again.body.written).toEqual(first.body.written);
    expect(await (await fetch(`${local.base}/cdn/snap/v1/${MARKET}/${T0 / HOUR}.json.gz`)).json()).toEqual(snap);
  });

  it('answers 404 in production for every caller, admins included', async () => {
    const svc = local.runtime.operator;
    const prod = { ...svc, config: { ...svc.config, env: 'production' as const } };
    const req = { method: 'POST', path: '/api/v1/admin/snapshot', params: {}, query: {}, headers: {}, cookies: {} } as unknown as ApiRequest;
    const principal = { ...anonymousPrincipal('198.51.100.1', T0), kind: 'session' as const, userId: 'user_x', features: ['admin' as const] };
    await expect(postAdminSnapshot.handle({ req, svc: prod, principal })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('answers per role: live files with prices.live, books with books, caps by feature; unguessable caps', async () => {
    const [anon, free, contributor, premium] = await Promise.all([files(), files(tokens.free), files(tokens.contributor), files(tokens.premium)]);
    expect(anon.body.caps).toEqual({});
    expect(free.body.caps).toEqual({});
    for (const a of [anon, free]) {
      expect(a.body.live).toBeUndefined();
      expect(a.body.books).toBeUndefined();
    }
    expect(contributor.body.live).toEqual({
      seq: 2,
      at: T0 + 3 * MINUTE,
      checkpoint: { seq: 1, url: expect.stringMatching(/\/live\/v1\/.+\/c1-[A-Za-z0-9_-]{22}\.json\.gz$/) },
      changes: [[2, expect.stringMatching(/\/live\/v1\/.+\/2-[A-Za-z0-9_-]{22}\.json\.gz$/)]],
    });
    expect(contributor.body.books).toEqual([
      { at: T0 + 3 * MINUTE, complete: true, url: expect.stringMatching(new RegExp(`/books/v1/${MARKET}/${T0 + 3 * MINUTE}-[A-Za-z0-9_-]{22}\\.json\\.gz$`)) },
      { at: T0 + 2 * MINUTE, complete: true, url: expect.any(String) },
    ]);
    expect(Object.keys(contributor.body.caps)).toEqual(['h1']);
    expect(Object.keys(premium.body.caps).sort()).toEqual(['h1', 'm1']);
    const caps = [
      premium.body.caps.m1[D],
      premium.body.caps.h1[D],
      ...contributor.body.live.changes.map(([, u]: [number, string]) => /\/\d+-([A-Za-z0-9_-]{22})\.json\.gz$/.exec(u)?.[1]),
    ];
    for (const cap of caps) expect(cap).toMatch(CAP);
    expect(new Set(caps).size).toBe(caps.length);
    const other = (await local.api('GET', '/api/v1/ah/forever.pvp.horde.us/files', { token: tokens.premium })).body;
    expect(other.caps.m1[D]).not.toBe(premium.body.caps.m1[D]);
    const scoped = await local.apiKey((await local.user({ plan: 'premium' })).id, ['live']);
    expect((await files(scoped)).body).toMatchObject({ error: 'forbidden', feature: 'api.read' });
  });

  it('never puts a cap in a public file', async () => {
    await local.setClock(T0 + DAY + 10 * MINUTE);
    await local.tick();
    const premium = (await files(tokens.premium)).body;
    const caps = [
      ...Object.values(premium.caps.m1 as Record<string, string>),
      ...Object.values(premium.caps.h1 as Record<string, string>),
      premium.caps.d1.split('/').at(-2),
      premium.caps.volume.split('/').at(-2),
    ];
    expect(caps.every((c) => CAP.test(c))).toBe(true);
    const published = (await listFiles(local, '')).map((f) => f.key).filter((k) => /^(snap|recent|candles\/v1\/(h1|d1))\//.test(k));
    expect(published.length).toBeGreaterThan(20);
    for (const key of published) {
      const text = await (await fetch(`${local.base}/cdn/${key}`)).text();
      for (const cap of caps) expect(text.includes(cap), key).toBe(false);
    }
    expect(premium.d1).toBe(`${local.base}/cdn/candles/v1/d1/${MARKET}/${D}.json.gz`);
  });

  it('deletes files past the retention of their prefix and keeps pointers', async () => {
    const svc = local.runtime.operator;
    const now = await local.now();
    // A live file written now (its LastModified is the service clock's: the local S3 edge answers it so).
    const live = changePath(MARKET, 999, 'AAAAAAAAAAAAAAAAAAAAAA');
    await putJsonFile(svc, live, { v: 1 });
    const at = (ms: number) => ({ ...svc, clock: { now: () => now + ms } });
    const keysNow = async () => (await listFiles(local, '')).map((f) => f.key);
    const before = await keysNow();
    expect(before).toContain(live);
    // What each run must keep, from the retention table (spec Limits, DESIGN) written out here rather than
    // taken from the code's: a file goes once its time (from its path; live files: written by now) is older.
    const n = (m: RegExpExecArray) => Number(m[1]);
    const rules: Array<[RegExp, number, (m: RegExpExecArray) => number]> = [
      [/^live\//, 3 * DAY, () => now],
      [/^books\/v1\/[^/]+\/(\d+)-/, 30 * DAY, n],
      [/^candles\/v1\/m1\/[^/]+\/[^/]+\/(\d+)\.json\.gz$/, 3 * DAY, (m) => (n(m) + 1) * 10 * MINUTE],
      [/^candles\/v1\/h1\/[^/]+\/(\d+)\.json\.gz$/, 8 * DAY, (m) => (n(m) + 1) * HOUR],
      [/^candles\/v1\/h1c\/[^/]+\/[^/]+\/(\d+)\.json\.gz$/, 15 * DAY, (m) => (n(m) + 1) * HOUR],
      [/^(?:candles\/v1\/d1c?|volume\/v1)\/.*\/(\d+)\.json\.gz$/, 2 * DAY, (m) => (n(m) + 1) * DAY],
      [/^snap\/v1\/[^/]+\/(\d+)\.json\.gz$/, 7 * DAY, (m) => n(m) * HOUR],
      [/^recent\/v1\/[^/]+\/(\d+)\.json\.gz$/, 8 * DAY, (m) => n(m) * HOUR],
    ];
    const kept = (keys: string[], ms: number) =>
      keys
        .filter((k) =>
          rules.every(([re, keep, time]) => {
            const m = re.exec(k);
            return m === null || now + ms - time(m) <= keep;
          }),
        )
        .sort();
    await retainFiles(at(0));
    expect(await keysNow()).toEqual(before);
    await retainFiles(at(3 * DAY + MINUTE));
    const after3 = await keysNow();
    expect([...after3].sort()).toEqual(kept(before, 3 * DAY + MINUTE));
    expect(after3.filter((k) => k.startsWith('candles/v1/m1/') || k.startsWith('volume/') || k.startsWith('candles/v1/d1'))).toEqual([]);
    expect(after3).not.toContain(live);
    expect(after3.filter((k) => k.startsWith('candles/v1/h1/')).length).toBeGreaterThan(0);
    const hourFiles = (keys: string[], prefix: string) => keys.filter((k) => new RegExp(`^${prefix}/v1/[^/]+/\\d+\\.json\\.gz$`).test(k));
    expect(hourFiles(after3, 'snap').length).toBeGreaterThan(0);
    await retainFiles(at(7 * DAY + 2 * HOUR));
    const after7 = await keysNow();
    expect([...after7].sort()).toEqual(kept(before, 7 * DAY + 2 * HOUR));
    // Snapshot copies go after 7 days, recent files after 8 (DESIGN).
    expect(hourFiles(after7, 'snap')).toEqual([]);
    expect(hourFiles(after7, 'recent').length).toBeGreaterThan(0);
    await retainFiles(at(8 * DAY + HOUR));
    const after8 = await keysNow();
    expect([...after8].sort()).toEqual(kept(before, 8 * DAY + HOUR));
    expect(after8.filter((k) => /^(snap|recent)\/v1\/[^/]+\/\d+\.json\.gz$/.test(k) || k.startsWith('candles/v1/h1/'))).toEqual([]);
    expect(after8.filter((k) => k.startsWith('candles/v1/h1c/')).length).toBe(24);
    expect(after8).toContain(`snap/v1/${MARKET}/latest.json`);
    expect(after8).toContain(`recent/v1/${MARKET}/latest.json`);
    await retainFiles(at(16 * DAY + HOUR));
    expect([...(await keysNow())].sort()).toEqual(kept(before, 16 * DAY + HOUR));
  });
});
