import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENVIRONMENT, FLAGS } from '../../lib/local/process/cli';
import { type EntryPoint, isEngine, startEntryPoint, stillRunning } from '../support/entry-point';

/**
 * Issue 15, points 2 and 3, through the real entry point (`node --import tsx bin/local.ts`) in a child process: `--help`,
 * the lines after `ready` and unknown flags; a start that fails prints one line and leaves no engine, no
 * temporary folder behind (a busy port, a broken data folder after the engines started, a SIGTERM during
 * start-up).
 */
describe('npm start: help, flags, the lines after ready, failed starts', () => {
  let scratch: string;
  /** A fresh TMPDIR per start, so a leftover temporary folder of the run is visible. */
  const freshTmp = (): string => {
    const dir = mkdtempSync(join(scratch, 'tmp-'));
    return dir;
  };
  /** Temporary folders the engines make (s3rver's in-memory bucket): tsx's own cache aside. */
  const leftovers = (tmp: string): string[] => readdirSync(tmp).filter((name) => !name.startsWith('tsx-'));
  const oneLine = (text: string): string[] => text.split('\n').filter((l) => l.trim() !== '');
  const expectNoEngineLeft = (run: EntryPoint) => {
    for (const p of run.seen()) expect(stillRunning(p), `still running: ${p.cmd}`).toBe(false);
  };

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'local-start-'));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('--help lists every flag and environment variable and exits 0', async () => {
    const run = startEntryPoint(['--help'], {});
    expect(await run.exited).toEqual({ code: 0, signal: null });
    for (const f of FLAGS) expect(run.stdout()).toContain(f.flag);
    for (const e of ENVIRONMENT) expect(run.stdout()).toMatch(new RegExp(`^  ${e.name} `, 'm'));
    expect(run.stderr()).toBe('');
  });

  it('prints after ready where the docs are, where the data is kept and how to stop; Ctrl-C stops it cleanly', async () => {
    const tmp = freshTmp();
    const run = startEntryPoint([], { PORT: '0', DATA_DIR: ':memory:', TMPDIR: tmp, LOG: 'quiet' });
    try {
      const [, base] = await run.waitFor(/^ready (http:\/\/127\.0\.0\.1:\d+)$/m, 90_000);
      await run.waitFor(/^stop: {2}Ctrl-C$/m, 60_000);
      const after = run.stdout().slice(run.stdout().indexOf('ready '));
      expect(after).toContain(`docs:  ${base}/docs/api/reference (API reference), ${base}/openapi.json (OpenAPI)`);
      expect(after).toContain('data:  in memory (DATA_DIR=:memory:): nothing is kept after stop');
      expect((await fetch(`${base}/docs/api/reference`)).status).toBe(200);
      expect((await fetch(`${base}/openapi.json`)).status).toBe(200);
    } finally {
      run.child.kill('SIGINT');
    }
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(run.stderr()).toBe('');
    expectNoEngineLeft(run);
    expect(leftovers(tmp)).toEqual([]);
  }, 120_000);

  it('--bundles builds the bundles outside the project, serves from them, and removes them on Ctrl-C', async () => {
    const tmp = freshTmp();
    const run = startEntryPoint(['--bundles'], { PORT: '0', DATA_DIR: ':memory:', TMPDIR: tmp, LOG: 'quiet' });
    try {
      const [, base] = await run.waitFor(/^ready (http:\/\/127\.0\.0\.1:\d+)$/m, 120_000);
      const [bundles] = leftovers(tmp).filter((name) => name.startsWith('mds-bundles-'));
      expect(readdirSync(join(tmp, bundles)).sort()).toEqual(expect.arrayContaining(['node_modules', 'api', 'merge', 'ws-connect']));
      expect(readdirSync(join(tmp, bundles, 'api'))).toContain('index.mjs');
      expect((await fetch(`${base}/api/v1/config`)).status).toBe(200);
    } finally {
      run.child.kill('SIGINT');
    }
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(run.stderr()).toBe('');
    expectNoEngineLeft(run);
    expect(leftovers(tmp)).toEqual([]);
  }, 180_000);

  it('refuses an unknown flag with one line on stderr and exit 2, starting nothing', async () => {
    const run = startEntryPoint(['--deom'], {});
    expect(await run.exited).toEqual({ code: 2, signal: null });
    expect(oneLine(run.stderr())).toEqual([expect.stringMatching(/^error: unknown flag --deom: the flags are --demo, --bundles, --help/)]);
    expect(run.seen().filter(isEngine)).toEqual([]);
  });

  it('on a busy port prints one line saying what to do, exits non-zero, and leaves no engine or temporary folder', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    const tmp = freshTmp();
    try {
      const run = startEntryPoint([], { PORT: String(port), DATA_DIR: ':memory:', TMPDIR: tmp, LOG: 'quiet' });
      const { code } = await run.exited;
      expect(code).toBe(1);
      expect(oneLine(run.stderr())).toEqual([`error: port ${port} is in use: stop the other service or set PORT to another port (PORT=0 picks a free one)`]);
      expect(run.stdout()).not.toContain('ready');
      expectNoEngineLeft(run);
      expect(leftovers(tmp)).toEqual([]);
    } finally {
      await new Promise<void>((r) => blocker.close(() => r()));
    }
  }, 60_000);

  it('stops the engines it started when start-up fails after them (a broken identity file)', async () => {
    const data = join(scratch, 'broken-data');
    mkdirSync(data, { recursive: true });
    writeFileSync(join(data, 'identity.json'), '{ not json');
    const run = startEntryPoint([], { PORT: '0', DATA_DIR: data, LOG: 'quiet' });
    const { code } = await run.exited;
    expect(code).toBe(1);
    expect(oneLine(run.stderr())).toEqual([
      `error: could not start: ${join(data, 'identity.json')} is not valid JSON: repair it, or delete it to start with no users and API keys`,
    ]);
    // Both engines were running when it failed, and neither is now.
    expect(
      run
        .seen()
        .filter(isEngine)
        .map((p) => (/s3rver/.test(p.cmd) ? 's3rver' : 'dynamodb'))
        .sort(),
    ).toEqual(['dynamodb', 's3rver']);
    expectNoEngineLeft(run);
  }, 120_000);

  it('stops everything, temporary folder included, on SIGTERM during start-up', async () => {
    const tmp = freshTmp();
    const run = startEntryPoint([], { PORT: '0', DATA_DIR: ':memory:', TMPDIR: tmp, LOG: 'quiet' });
    // Wait until both engines are spawned, then stop before `ready`.
    const until = Date.now() + 60_000;
    while (run.seen().filter(isEngine).length < 2 && Date.now() < until && run.child.exitCode === null) await new Promise((r) => setTimeout(r, 50));
    expect(run.seen().filter(isEngine)).toHaveLength(2);
    expect(run.stdout()).not.toContain('ready');
    run.child.kill('SIGTERM');
    const { code } = await run.exited;
    expect(code).toBe(0);
    expect(run.stderr()).toBe('');
    expectNoEngineLeft(run);
    expect(leftovers(tmp)).toEqual([]);
  }, 120_000);
});
