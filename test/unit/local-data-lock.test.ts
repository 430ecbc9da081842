import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DataDirInUse, LOCK_FILE, lockDataDir } from '../../lib/local/process/data-lock';
import { startFailure } from '../../lib/local/process/start-failure';

/** Issue 25, point 8: one runtime per data folder; a second is refused in one line, a dead one's lock taken over. */
describe('the data folder lock', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'data-lock-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('holds the folder with this pid until released', () => {
    const lock = lockDataDir(dir);
    expect(readFileSync(join(dir, LOCK_FILE), 'utf8').trim()).toBe(String(process.pid));
    lock.release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    lock.release();
  });

  it('refuses a second holder while a live process holds it, in one line naming the folder and the pid', () => {
    const lock = lockDataDir(dir);
    try {
      let err: unknown;
      try {
        lockDataDir(dir);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(DataDirInUse);
      const line = startFailure(err, { port: 8787, dataDir: dir });
      expect(line).toBe(
        `the data folder ${dir} is in use by another local runtime (pid ${process.pid}): stop it, or set DATA_DIR to another folder (DATA_DIR=:memory: or --memory keeps nothing)`,
      );
    } finally {
      lock.release();
    }
  });

  it('takes over a lock whose process is gone, and one that names no pid', () => {
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(join(dir, LOCK_FILE), `${dead.stdout}\n`);
    const lock = lockDataDir(dir);
    expect(readFileSync(join(dir, LOCK_FILE), 'utf8').trim()).toBe(String(process.pid));
    lock.release();
    writeFileSync(join(dir, LOCK_FILE), '');
    lockDataDir(dir).release();
  });
});
