/**
 * The local runtime ends with whatever started it, as a foreground program does (issue 25: `kill <pid of
 * npm start>` left node, DynamoDB Local and the S3 server serving). npm runs the start script through a
 * shell (`sh -c "node scripts/ensure.mjs && node … bin/local.ts"`) and forwards SIGTERM to that shell, not to
 * us: the shell dies, and we notice by being re-parented. When npm itself is killed outright the shell
 * stays, waiting on us, so under npm npm is watched too. Checked every second, on POSIX and Windows alike
 * (`process.ppid` and signal 0); the grandparent is read from /proc, or `ps` elsewhere.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Whether a process with this pid exists (EPERM: it does, under another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM';
  }
}

/** The parent of `pid`, or null when it cannot be read. */
function parentOf(pid: number): number | null {
  let text: string | undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so read after the last ')'.
    text = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1];
  } catch {
    text = spawnSync('ps', ['-o', 'ppid=', '-p', String(pid)], { encoding: 'utf8' }).stdout?.trim();
  }
  const ppid = Number(text);
  return Number.isSafeInteger(ppid) && ppid > 0 ? ppid : null;
}

/**
 * Calls `onGone` (once) when the process that started this one is gone: our parent, and npm when npm ran
 * us as its script (`npm_lifecycle_script` names bin/local.ts). Returns how to stop watching.
 */
export function watchParent(onGone: (why: string) => void, env: NodeJS.ProcessEnv = process.env, everyMs = 1000): () => void {
  const parent = process.ppid;
  // Started by init (or as a container's first process): nothing to outlive.
  if (parent <= 1) return () => undefined;
  const watched = [parent];
  if (env.npm_lifecycle_script?.includes('bin/local.ts')) {
    const npm = parentOf(parent);
    if (npm !== null && npm > 1) watched.push(npm);
  }
  let fired = false;
  const timer = setInterval(() => {
    const gone = process.ppid !== parent ? parent : watched.find((pid) => !processAlive(pid));
    if (gone === undefined || fired) return;
    fired = true;
    clearInterval(timer);
    onGone(`the process that started it (pid ${gone}) is gone`);
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
