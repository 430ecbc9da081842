/**
 * One runtime per data folder. A second `npm start` on the same DATA_DIR used to reach `ready` on a second
 * DynamoDB Local and s3rver over the same files, and the first then answered 503 for 40 s: now the first
 * holds `DATA_DIR/runtime.lock` (its pid) from start to stop, and a second start is refused in one line
 * before it starts anything. A lock whose process is gone (a killed runtime) is stale and taken over.
 * `:memory:` keeps no folder, so it takes no lock.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { processAlive } from './parent-watch';

export const LOCK_FILE = 'runtime.lock';

/** The data folder is held by another live runtime: the message is the one line `npm start` prints. */
export class DataDirInUse extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(
      `the data folder ${dir} is in use by another local runtime (pid ${pid}): stop it, or set DATA_DIR to another folder (DATA_DIR=:memory: or --memory keeps nothing)`,
    );
    this.name = 'DataDirInUse';
  }
}

export interface DataLock {
  /** Removes the lock file if it is still this process's; safe more than once. */
  release(): void;
}

/** The pid a lock file names, or null when it names none (empty, half written, not a pid). */
function holder(file: string): number | null {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Takes the lock of `dir` (which exists) for this process, or throws DataDirInUse when a live process holds
 * it (this one included: a second runtime in the same process). A stale lock is removed and taken; the lock
 * is also removed when the process exits without releasing it.
 */
export function lockDataDir(dir: string): DataLock {
  const file = join(resolve(dir), LOCK_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      // `wx`: created only if absent, so of two starts at once exactly one gets it.
      fd = openSync(file, 'wx', 0o600);
    } catch (err) {
      if ((err as { code?: string }).code !== 'EEXIST') throw err;
      const pid = holder(file);
      if (pid !== null && processAlive(pid)) throw new DataDirInUse(resolve(dir), pid);
      // Stale (its process is gone) or unreadable: removed, then taken like a free one.
      rmSync(file, { force: true });
      continue;
    }
    try {
      writeSync(fd, `${process.pid}\n`);
    } finally {
      closeSync(fd);
    }
    const release = () => {
      process.off('exit', release);
      if (holder(file) === process.pid) rmSync(file, { force: true });
    };
    process.once('exit', release);
    return { release };
  }
  const pid = holder(file);
  throw new DataDirInUse(resolve(dir), pid ?? 0);
}
