/**
 * Runs `npm start`'s entry point as a user does (`node --import tsx bin/local.ts …` in a child process) and watches the
 * process tree it makes through /proc, so a test can say which engines it started and that none outlives it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');

interface ProcInfo {
  pid: number;
  ppid: number;
  cmd: string;
}

function processes(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so read after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z') continue;
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      out.push({ pid: Number(name), ppid: Number(fields[1]), cmd });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Every live descendant of `root`. */
export function descendants(root: number): ProcInfo[] {
  const all = processes();
  const found: ProcInfo[] = [];
  const parents = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all) {
      if (parents.has(p.ppid) && !parents.has(p.pid)) {
        parents.add(p.pid);
        found.push(p);
        grew = true;
      }
    }
  }
  return found;
}

/** Whether a process seen before is still alive as the same program. */
export function stillRunning(p: ProcInfo): boolean {
  if (!existsSync(`/proc/${p.pid}`)) return false;
  return processes().some((q) => q.pid === p.pid && q.cmd === p.cmd);
}

export const isEngine = (p: ProcInfo): boolean => /DynamoDBLocal|s3rver/.test(p.cmd);

export interface EntryPoint {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Every process the entry point's tree held at some poll (every 100 ms while it runs). */
  seen(): ProcInfo[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves the first match of `pattern` in stdout, or rejects when the process exits or `timeoutMs` passes. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray>;
}

export function startEntryPoint(args: string[], env: Record<string, string>): EntryPoint {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  // Keyed by pid and command line: a child caught between fork and exec still shows its parent's command line
  // (node), and must be seen again once it is the engine (under load that window was long enough to miss one).
  const seen = new Map<string, ProcInfo>();
  const watch = setInterval(() => {
    for (const p of descendants(child.pid ?? -1)) seen.set(`${p.pid} ${p.cmd}`, p);
  }, 100);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    // `close`: the process exited and its output is all read.
    child.once('close', (code, signal) => {
      clearInterval(watch);
      resolve({ code, signal });
    }),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    seen: () => [...seen.values()],
    exited,
    waitFor: (pattern, timeoutMs) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => done(new Error(`no ${pattern} within ${timeoutMs} ms; stdout:\n${out}\nstderr:\n${err}`)), timeoutMs);
        const look = () => {
          const m = pattern.exec(out);
          if (m) done(null, m);
        };
        const gone = () => {
          look();
          done(new Error(`exited before ${pattern}; stdout:\n${out}\nstderr:\n${err}`));
        };
        let settled = false;
        const done = (e: Error | null, m?: RegExpExecArray) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          child.stdout?.off('data', look);
          child.off('close', gone);
          if (e) reject(e);
          else resolve(m!);
        };
        child.stdout?.on('data', look);
        child.once('close', gone);
        look();
      }),
  };
}
