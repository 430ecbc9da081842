import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_START, type Local, startLocal } from '../support/local';

describe('local runtime: gateway basics and the control API', () => {
  let local: Local;
  beforeAll(async () => {
    local = await startLocal();
  });
  afterAll(() => local.close());

  it('answers GET /api/v1/config with the deployment settings and a 300 s public cache', async () => {
    const res = await local.api('GET', '/api/v1/config');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ env: 'dev', clerkPublishableKey: expect.any(String), apiBase: `${local.base}/api/v1/`, cdnBase: `${local.base}/cdn/` });
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
  });

  it('answers 404 not_found for a path that is not a route and 405 for a route with another method', async () => {
    expect((await local.api('GET', '/api/v1/nope')).body).toMatchObject({ error: 'not_found' });
    expect((await local.api('GET', '/api/v1/nope')).status).toBe(404);
    const res = await local.api('POST', '/api/v1/config');
    expect(res.status).toBe(405);
    expect(res.body).toMatchObject({ error: 'method_not_allowed' });
  });

  it('lets every path no route matches reach the fallback through $default, as its invoke permission allows (not 500)', async () => {
    // The gateway checks each invocation against the synthesized template's invoke permissions (issue 26 point 0).
    const statuses: Record<string, number> = {};
    for (const [method, path] of [
      ['GET', '/favicon.ico'],
      ['GET', '/api/v1/nope'],
      ['OPTIONS', '/api/v1/config'],
      ['HEAD', '/api/v1/nope'],
      ['DELETE', '/api/v1/config'],
    ]) {
      statuses[`${method} ${path}`] = (await fetch(`${local.base}${path}`, { method })).status;
    }
    expect(statuses).toEqual({
      'GET /favicon.ico': 404,
      'GET /api/v1/nope': 404,
      'OPTIONS /api/v1/config': 405,
      'HEAD /api/v1/nope': 404,
      'DELETE /api/v1/config': 405,
    });
  });

  it('answers 400 bad_market for an unknown market and 400 bad_item for an invalid key', async () => {
    const market = await local.api('GET', '/api/v1/ah/bad.market/1');
    expect(market.status).toBe(400);
    expect(market.body).toMatchObject({ error: 'bad_market' });
    const item = await local.api('GET', '/api/v1/ah/forever.normal.alliance.us/0');
    expect(item.status).toBe(400);
    expect(item.body).toMatchObject({ error: 'bad_item' });
  });

  it('answers the retired scan route 404 for every method', async () => {
    expect((await local.api('POST', '/api/v1/ah/scans', { body: {} })).status).toBe(404);
    expect((await local.api('GET', '/api/v1/ah/scans')).status).toBe(404);
  });

  it('reports health and moves the manual clock forward only', async () => {
    const health = await (await fetch(`${local.base}/_local/health`)).json();
    expect(health).toEqual({ ok: true, now: expect.any(Number) });
    const start = await local.now();
    expect(start).toBeGreaterThanOrEqual(DEFAULT_START);
    expect(await local.advance(60_000)).toBe(start + 60_000);
    expect(await local.setClock(start)).toBe(start + 60_000);
    expect(await local.setClock(start + 120_000)).toBe(start + 120_000);
    const bad = await local.api('POST', '/_local/clock', { body: { advance: -5 } });
    expect(bad.status).toBe(400);
  });

  it('runs due schedules on tick once their period passes on the service clock', async () => {
    await local.tick();
    expect(await local.tick()).toEqual([]);
    await local.advance(60_000);
    expect(await local.tick()).toEqual(expect.arrayContaining(['seal', 'live-sweep']));
    await local.advance(3_600_000);
    expect(await local.tick()).toEqual(expect.arrayContaining(['seal', 'live-sweep', 'snapshot', 'items']));
  });

  it('settles once every runnable message is consumed, leaving delayed ones for the clock', async () => {
    await local.runtime.queues.send('push', [{ body: '{"probe":"later"}', delaySeconds: 30 }, { body: '{"probe":"now"}' }]);
    await local.settle();
    expect(local.runtime.queues.depth('push')).toBe(1);
    await local.advance(30_000);
    await local.settle();
    expect(local.runtime.queues.depth('push')).toBe(0);
  });

  it('sets and reports faults', async () => {
    expect(await local.faults({ identity: 'down', storage: 'down' })).toEqual({
      identity: 'down',
      storage: 'down',
      table: 'up',
      seal: 'none',
      merge: 'none',
      mergeCrashAfter: null,
      mergeWrites: null,
      mergeCrashes: 0,
    });
    expect(await local.faults({ identity: 'up', storage: 'up', table: 'down', merge: 'crash-once' })).toEqual({
      identity: 'up',
      storage: 'up',
      table: 'down',
      seal: 'none',
      merge: 'crash-once',
      mergeCrashAfter: 1,
      mergeWrites: null,
      mergeCrashes: 0,
    });
    expect(await local.faults({ table: 'up' })).toMatchObject({ table: 'up' });
    expect(await local.faults({ mergeCrashAfter: 7 })).toMatchObject({ merge: 'crash-once', mergeCrashAfter: 7 });
    expect(await local.faults({ merge: 'crash-once', mergeCrashAfter: 3 })).toMatchObject({ merge: 'crash-once', mergeCrashAfter: 3 });
    for (const body of [
      { storage: 'sideways' },
      { table: 'sideways' },
      { seal: 'sideways' },
      { mergeCrashAfter: 0 },
      { mergeCrashAfter: 1.5 },
      { mergeCrashAfter: '2' },
      { merge: 'none', mergeCrashAfter: 2 },
      { merge: 'twice' },
    ]) {
      expect((await local.api('POST', '/_local/faults', { body })).status, JSON.stringify(body)).toBe(400);
    }
    const queues = (await local.api('GET', '/_local/queues')).body.queues;
    expect(Object.keys(queues)).toEqual(
      expect.arrayContaining(['merge-normal-alliance', 'merge-normal-alliance-dead-letters', 'merge-rejected', 'push', 'push-dead-letters']),
    );
    expect(await local.faults({ merge: 'none' })).toMatchObject({ merge: 'none', mergeCrashAfter: null });
  });

  it('lists bucket files with their headers and serves them at /cdn/ with those headers and CORS', async () => {
    const key = 'snap/v1/forever.normal.alliance.us/latest.json';
    await local.runtime.s3.send(
      new PutObjectCommand({
        Bucket: local.runtime.bucketName,
        Key: key,
        Body: '{"v":1}',
        ContentType: 'application/json',
        CacheControl: 'public, max-age=60',
      }),
    );
    const list = (await (await fetch(`${local.base}/_local/files?prefix=snap/`)).json()) as { keys: unknown[] };
    expect(list.keys).toEqual([{ key, size: 7, contentType: 'application/json', cacheControl: 'public, max-age=60' }]);
    const file = await fetch(`${local.base}/cdn/${key}`, { headers: { origin: 'http://localhost:5173' } });
    expect(file.status).toBe(200);
    expect(file.headers.get('cache-control')).toBe('public, max-age=60');
    expect(file.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(await file.json()).toEqual({ v: 1 });
    const foreign = await fetch(`${local.base}/cdn/${key}`, { headers: { origin: 'https://evil.example' } });
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    expect((await fetch(`${local.base}/cdn/nothing/here.json`)).status).toBe(404);
  });
});
