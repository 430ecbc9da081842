import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { MARKET, makeBook, uploadBook } from '../support/books';
import { ENTRY_ARGS, type EntryPoint, isEngine, startProcess, stillRunning, waitUntil } from '../support/entry-point';
import { startLocal } from '../support/local';

/**
 * Issue 25, point 4, through the real entry point in a child process with no `java` on its PATH (a PATH of one
 * folder holding only `node` and `sh`): `--memory` runs the whole service on the in-memory fakes, with no
 * storage engine; plain `npm start` says in one line that Java is missing and offers `--memory`.
 */
describe('npm start -- --memory: the whole service with no Java', () => {
  let scratch: string;
  /** A PATH with node (and the shell npm runs scripts with), and nothing else: no java, no javac. */
  let noJava: string;

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'local-memory-'));
    noJava = join(scratch, 'bin');
    mkdirSync(noJava);
    symlinkSync(process.execPath, join(noJava, 'node'));
    symlinkSync('/bin/sh', join(noJava, 'sh'));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  const reap = (run: EntryPoint) => {
    for (const p of run.seen()) if (stillRunning(p)) process.kill(p.pid, 'SIGKILL');
    if (run.child.exitCode === null) run.child.kill('SIGKILL');
  };

  it('starts with no java on PATH, merges an upload, reads it, tells a live socket `ah`, serves its file under /cdn/, and exits cleanly on SIGTERM', async () => {
    const run = startProcess(process.execPath, [...ENTRY_ARGS, '--memory'], { PATH: noJava, PORT: '0', LOG: 'quiet' });
    try {
      const [, base] = await run.waitFor(/^ready (http:\/\/127\.0\.0\.1:\d+)$/m, 120_000);
      const post = async (path: string, body: unknown, token?: string) => {
        const res = await fetch(`${base}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: base, ...(token ? { authorization: `Bearer ${token}` } : {}) },
          body: JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json()) as Record<string, any> };
      };
      const user = (await post('/_local/users', { plan: 'premium' })).body;
      const key = (await post('/_local/api-keys', { userId: user.id })).body.key as string;
      const session = (await post('/_local/sessions', { userId: user.id })).body.token as string;

      // A live socket on the market, greeted first.
      const messages: Array<Record<string, any>> = [];
      const ws = new WebSocket(`${base.replace('http', 'ws')}/api/v1/live?market=${MARKET}`, { headers: { authorization: `Bearer ${session}`, origin: base } });
      ws.on('message', (data) => messages.push(JSON.parse(String(data))));
      expect(await waitUntil(() => messages.some((m) => m.t === 'hello'), 30_000)).toBe(true);

      // Upload → merge (settle: nothing left to do) → read the merged row.
      const at = Date.now() - 60_000;
      expect((await post('/api/v1/ah/books', makeBook(at, { keys: 5, first: 2000, price: () => 4321 }), key)).status).toBe(200);
      expect((await post('/_local/settle', {})).status).toBe(200);
      const read = await fetch(`${base}/api/v1/ah/${MARKET}/2003`, { headers: { authorization: `Bearer ${key}` } });
      expect(read.status).toBe(200);
      expect(JSON.stringify(await read.json())).toContain(`4321,1,${at}`);

      // The merge reached the socket as `ah`, pointing at its change file under /cdn/.
      expect(await waitUntil(() => messages.some((m) => m.t === 'ah'), 30_000)).toBe(true);
      const ah = messages.find((m) => m.t === 'ah')!;
      expect(ah).toMatchObject({ market: MARKET, seq: 1, at });
      expect(ah.url.startsWith(`${base}/cdn/live/v1/${MARKET}/`)).toBe(true);
      const file = await fetch(ah.url);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toBe('application/json');
      expect(file.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$/);
      expect(await file.json()).toMatchObject({ market: MARKET, seq: 1 });
      ws.close();

      run.child.kill('SIGTERM');
      expect(await run.exited).toEqual({ code: 0, signal: null });
      expect(run.stderr()).toBe('');
      // No storage engine was ever started.
      expect(run.seen().filter(isEngine)).toEqual([]);
    } finally {
      reap(run);
    }
  }, 180_000);

  it('--memory --demo with no java on PATH replays its week, prints its key, and serves its reads and files', async () => {
    const run = startProcess(process.execPath, [...ENTRY_ARGS, '--memory', '--demo'], { PATH: noJava, PORT: '0', LOG: 'quiet' });
    try {
      const [, base] = await run.waitFor(/^ready (http:\/\/127\.0\.0\.1:\d+)$/m, 150_000);
      const [, key] = await run.waitFor(/^ {2}API key {2}(ak_\S+)$/m, 60_000);
      const [, item, market] = await run.waitFor(/^ {2}item {5}(\d+) \(.*\) on (\S+)$/m, 60_000);
      const read = await fetch(`${base}/api/v1/ah/${market}/${item}`, { headers: { authorization: `Bearer ${key}` } });
      expect(read.status).toBe(200);
      expect(await read.json()).toMatchObject({ market, item: Number(item), live: true });
      const pointer = await fetch(`${base}/cdn/items/v1/current.json`);
      expect(pointer.status).toBe(200);
      expect(await pointer.json()).toMatchObject({ v: 1, build: expect.any(String) });
      run.child.kill('SIGTERM');
      expect(await run.exited).toEqual({ code: 0, signal: null });
      expect(run.seen().filter(isEngine)).toEqual([]);
    } finally {
      reap(run);
    }
  }, 240_000);

  it('npm start with no java on PATH says so in one line and offers --memory, with no stack trace', async () => {
    const npm = realpathSync(join(process.execPath, '..', 'npm'));
    const run = startProcess(process.execPath, [npm, 'start'], {
      PATH: noJava,
      PORT: '0',
      LOG: 'quiet',
      npm_config_loglevel: 'silent',
      npm_config_update_notifier: 'false',
    });
    try {
      const { code } = await run.exited;
      expect(code).not.toBe(0);
      const lines = run
        .stderr()
        .split('\n')
        .filter((l) => l.trim() !== '');
      expect(lines).toEqual([expect.stringMatching(/^error: Java 17\+ is required for DynamoDB Local and was not found on PATH: .*npm start -- --memory$/)]);
      expect(run.stdout()).not.toContain('ready');
      expect(
        run
          .seen()
          .filter(isEngine)
          .filter((p) => /DynamoDBLocal/.test(p.cmd)),
      ).toEqual([]);
      await waitUntil(() => run.seen().every((p) => !stillRunning(p)), 30_000);
    } finally {
      reap(run);
    }
  }, 180_000);

  it("applies the table fault and the merge crash to the fakes, as the engines' edge does; the engines' clients say they are the engines'", async () => {
    const local = await startLocal({ backend: 'memory' });
    try {
      expect(() => local.runtime.s3).toThrow(/engines' alone/);
      expect(() => local.runtime.operator.ddb).toThrow(/engines' alone/);
      expect(() => local.runtime.awsMeter).toThrow(/engines' alone/);
      const key = await local.apiKey((await local.user({ plan: 'premium' })).id);
      const now = await local.now();
      await local.faults({ table: 'down' });
      expect(await uploadBook(local, key, makeBook(now - 60_000, { keys: 3 }))).toMatchObject({ status: 503, body: { error: 'storage_failed' } });
      expect(await local.api('GET', `/api/v1/ah/${MARKET}`)).toMatchObject({ status: 503, body: { error: 'unavailable' } });
      await local.faults({ table: 'up', mergeCrashAfter: 2 });
      const at = now - 30_000;
      expect((await uploadBook(local, key, makeBook(at, { keys: 3, first: 3000, price: () => 777 }))).status).toBe(200);
      await local.settle();
      // The merge crashed after its second write; its message came back and the next delivery merged it once.
      const state = (await local.faults({})) as Record<string, number | string | null>;
      expect(state).toMatchObject({ merge: 'none', mergeCrashAfter: null, mergeCrashes: 1 });
      expect(state.mergeWrites).toBeGreaterThan(2);
      const read = await local.api('GET', `/api/v1/ah/${MARKET}/3001`, { token: key });
      expect(read.status).toBe(200);
      expect(JSON.stringify(read.body)).toContain(`777,1,${at}`);
    } finally {
      await local.close();
    }
  }, 120_000);
});
