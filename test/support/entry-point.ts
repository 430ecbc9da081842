/**
 * Runs `npm start`'s entry point as a user does (`node --import tsx bin/local.ts …` in a child process, or
 * `npm start` itself) and watches the process tree it makes through /proc, so a test can say which engines
 * it started and that none outlives it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const ROOT = join(import.meta.dirname, '..', '..');
/** The entry point by absolute paths (tsx's loader included), so it runs from any working directory. */
export const ENTRY_ARGS = ['--import', pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href, join(ROOT, 'bin', 'local.ts')];

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

/** Polls `condition` every 200 ms until it holds (true) or `timeoutMs` passes (false). */
export async function waitUntil(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return true;
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 200));
  }
}

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
  return startProcess(process.execPath, ['--import', 'tsx', 'bin/local.ts', ...args], env);
}

/** Any command that starts the entry point (`npm start`, a shell, the entry point from another folder), watched the same way. */
export function startProcess(command: string, args: string[], env: Record<string, string>, cwd = ROOT): EntryPoint {
  const child = spawn(command, args, {
    cwd,
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
