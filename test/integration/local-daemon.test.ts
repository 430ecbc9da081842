import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCK_FILE } from '../../lib/local/process/data-lock';
import { makeBook } from '../support/books';
import { ENTRY_ARGS, type EntryPoint, isEngine, startEntryPoint, startProcess, stillRunning, waitUntil } from '../support/entry-point';

const READY = /^ready (http:\/\/127\.0\.0\.1:\d+)$/m;
const oneLine = (text: string): string[] => text.split('\n').filter((l) => l.trim() !== '');

/** Whether anything answers HTTP at `base`. */
async function answers(base: string): Promise<boolean> {
  try {
    await fetch(`${base}/_local/health`, { signal: AbortSignal.timeout(5_000) });
    return true;
  } catch {
    return false;
  }
}

/** Kills (by pid) whatever a failed test left of the processes it started. */
function reap(...runs: EntryPoint[]): void {
  for (const run of runs) {
    for (const p of run.seen()) if (stillRunning(p)) process.kill(p.pid, 'SIGKILL');
    if (run.child.exitCode === null) run.child.kill('SIGKILL');
  }
}

/** Every process the run made is gone within 30 s: the runtime, its engines, the shells between. */
async function expectAllGone(run: EntryPoint): Promise<void> {
  await waitUntil(() => run.seen().every((p) => !stillRunning(p)), 30_000);
  for (const p of run.seen()) expect(stillRunning(p), `still running: ${p.cmd}`).toBe(false);
}

/**
 * Issue 25, point 8: the local runtime is a foreground program, not a daemon. Through the real `npm start`
 * and the entry point under a parent: killing what started it stops the service and its engines; an engine
 * never outlives a runtime killed outright; one data folder, one runtime (the second refused in one line);
 * `npm start --demo` without `--` is the demo; `--memory` starts, serves and leaves nothing on disk, printing
 * short human lines without metrics.
 */
describe('npm start is no daemon', () => {
  let scratch: string;
  const fresh = (name: string): string => mkdtempSync(join(scratch, `${name}-`));

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'local-daemon-'));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('stops the service and its engines when npm start is killed (SIGTERM to npm, as `kill <pid>` sends)', async () => {
    const run = startProcess('npm', ['start'], { PORT: '0', DATA_DIR: fresh('data'), LOG: 'quiet' });
    try {
      const [, base] = await run.waitFor(READY, 180_000);
      expect(run.seen().filter(isEngine)).toHaveLength(2);
      // npm passes it to its script's shell, never to node.
      run.child.kill('SIGTERM');
      expect(await waitUntil(async () => !(await answers(base)), 30_000)).toBe(true);
      await expectAllGone(run);
    } finally {
      reap(run);
    }
  }, 240_000);

  it('stops when npm itself is killed outright (SIGKILL to npm: its script shell stays, waiting on node)', async () => {
    const run = startProcess('npm', ['start'], { PORT: '0', DATA_DIR: fresh('data'), LOG: 'quiet' });
    try {
      const [, base] = await run.waitFor(READY, 180_000);
      expect(run.seen().filter((p) => /^(\/bin\/)?sh -c /.test(p.cmd)).length).toBeGreaterThan(0);
      run.child.kill('SIGKILL');
      expect(await waitUntil(async () => !(await answers(base)), 30_000)).toBe(true);
      await expectAllGone(run);
    } finally {
      reap(run);
    }
  }, 240_000);

  it('refuses a second start on a data folder in use in one line, starting nothing, while the first serves on', async () => {
    const data = fresh('data');
    const run = startEntryPoint([], { PORT: '0', DATA_DIR: data, LOG: 'quiet' });
    let second: EntryPoint | undefined;
    try {
      const [, base] = await run.waitFor(READY, 180_000);
      second = startEntryPoint([], { PORT: '0', DATA_DIR: data, LOG: 'quiet' });
      const outcome = await Promise.race([second.exited, second.waitFor(READY, 180_000).then(() => 'ready' as const)]);
      expect(outcome).toEqual({ code: 1, signal: null });
      expect(oneLine(second.stderr())).toEqual([
        `error: the data folder ${data} is in use by another local runtime (pid ${run.child.pid}): stop it, or set DATA_DIR to another folder (DATA_DIR=:memory: or --memory keeps nothing)`,
      ]);
      expect(second.seen().filter(isEngine)).toEqual([]);
      // The first one serves on, undisturbed, and gives the folder up when it stops.
      expect((await fetch(`${base}/_local/health`)).status).toBe(200);
      run.child.kill('SIGINT');
      expect(await run.exited).toEqual({ code: 0, signal: null });
      await expectAllGone(run);
      expect(existsSync(join(data, LOCK_FILE))).toBe(false);
    } finally {
      reap(run, ...(second ? [second] : []));
    }
  }, 300_000);

  it('stops when its parent dies outright (SIGKILL to the shell that started it)', async () => {
    const data = fresh('data');
    // `; exit $?` keeps bash from replacing itself with node: bash stays the parent.
    const run = startProcess('bash', ['-c', `"${process.execPath}" --import tsx bin/local.ts; exit $?`], { PORT: '0', DATA_DIR: data, LOG: 'quiet' });
    try {
      const [, base] = await run.waitFor(READY, 180_000);
      expect(run.seen().filter(isEngine)).toHaveLength(2);
      run.child.kill('SIGKILL');
      expect(await waitUntil(async () => !(await answers(base)), 30_000)).toBe(true);
      await expectAllGone(run);
    } finally {
      reap(run);
    }
  }, 240_000);

  it('leaves no engine behind when the runtime itself is killed outright, and the next start takes the stale lock over (and stops on SIGHUP)', async () => {
    const data = fresh('data');
    const run = startEntryPoint([], { PORT: '0', DATA_DIR: data, LOG: 'quiet' });
    let again: EntryPoint | undefined;
    try {
      await run.waitFor(READY, 180_000);
      const engines = run.seen().filter(isEngine);
      expect(engines).toHaveLength(2);
      // SIGKILL: no handler of the runtime runs; the engines notice on their own.
      run.child.kill('SIGKILL');
      await run.exited;
      await waitUntil(() => engines.every((p) => !stillRunning(p)), 30_000);
      for (const p of engines) expect(stillRunning(p), `still running: ${p.cmd}`).toBe(false);
      expect(existsSync(join(data, LOCK_FILE))).toBe(true);

      again = startEntryPoint([], { PORT: '0', DATA_DIR: data, LOG: 'quiet' });
      const [, base] = await again.waitFor(READY, 180_000);
      expect((await fetch(`${base}/_local/health`)).status).toBe(200);
      // A closed terminal (SIGHUP) stops it as cleanly as Ctrl-C.
      again.child.kill('SIGHUP');
      expect(await again.exited).toEqual({ code: 0, signal: null });
      expect(again.stderr()).toBe('');
      await expectAllGone(again);
      expect(existsSync(join(data, LOCK_FILE))).toBe(false);
    } finally {
      reap(run, ...(again ? [again] : []));
    }
  }, 300_000);

  it('takes `npm start --demo` (no `--`: npm passes it as npm_config_demo) as the demo', async () => {
    const data = fresh('data');
    const run = startProcess('npm', ['start', '--demo'], { PORT: '0', DATA_DIR: data, LOG: 'quiet' });
    try {
      // The replay's first line is printed once the demo account exists, well before `ready`.
      await run.waitFor(/^demo: replaying \d+ books per market since/m, 180_000);
      run.child.kill('SIGTERM');
      await expectAllGone(run);
    } finally {
      reap(run);
    }
  }, 240_000);

  /** An account, an upload and its merge on a started service: what makes the functions log and count. */
  async function uploadAndMerge(base: string): Promise<void> {
    const post = async (path: string, body: unknown, token?: string) => {
      const res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const user = await post('/_local/users', { plan: 'premium' });
    const { body: key } = await post('/_local/api-keys', { userId: user.body.id });
    expect((await post('/api/v1/ah/books', makeBook(Date.now() - 60_000, { keys: 40 }), key.key as string)).status).toBe(200);
    expect((await post('/_local/settle', {})).status).toBe(200);
  }

  it('--memory starts, serves, says what it keeps (nothing: the in-memory fakes, no Java) and leaves nothing on disk', async () => {
    const cwd = fresh('cwd');
    const tmp = fresh('tmp');
    // From an empty folder, so anything it kept would show there (the default DATA_DIR is ./.data).
    const run = startProcess(process.execPath, [...ENTRY_ARGS, '--memory'], { PORT: '0', TMPDIR: tmp, LOG: 'quiet' }, cwd);
    try {
      const [, base] = await run.waitFor(READY, 180_000);
      await run.waitFor(/^stop: {2}Ctrl-C$/m, 60_000);
      expect(run.stdout()).toContain('data:  nothing kept (--memory): the whole service on the in-memory fakes, no Java, no storage engine');
      await uploadAndMerge(base);
      run.child.kill('SIGINT');
      expect(await run.exited).toEqual({ code: 0, signal: null });
      expect(run.stderr()).toBe('');
      await expectAllGone(run);
      // Issue 25 point 4: no storage engine at all.
      expect(run.seen().filter(isEngine)).toEqual([]);
      expect(readdirSync(cwd)).toEqual([]);
      expect(readdirSync(tmp).filter((name) => !name.startsWith('tsx-'))).toEqual([]);
    } finally {
      reap(run);
    }
  }, 240_000);

  it('prints short human lines and no metrics by default, and the JSON lines with their metrics on LOG=json', async () => {
    for (const log of ['info', 'json'] as const) {
      const run = startEntryPoint([], { PORT: '0', DATA_DIR: ':memory:', ...(log === 'json' ? { LOG: 'json' } : {}) });
      try {
        const [, base] = await run.waitFor(READY, 180_000);
        await uploadAndMerge(base);
        if (log === 'info') {
          // The merge's log line as one short human line; the upload's and the merge's metrics not at all.
          await run.waitFor(/^\d\d:\d\d:\d\d info {2}merge: merge\b.*$/m, 60_000);
          const lines = oneLine(run.stdout());
          expect(lines.filter((l) => l.includes('"_aws"'))).toEqual([]);
          expect(lines.filter((l) => l.startsWith('{'))).toEqual([]);
          for (const l of lines) expect(l.length).toBeLessThanOrEqual(240);
        } else {
          await run.waitFor(/^\{.*"message":"merge".*\}$/m, 60_000);
          await run.waitFor(/^\{.*"_aws".*"merge_rows_changed".*\}$/m, 60_000);
        }
        run.child.kill('SIGINT');
        expect(await run.exited).toEqual({ code: 0, signal: null });
      } finally {
        reap(run);
      }
    }
  }, 300_000);
});
