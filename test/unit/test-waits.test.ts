/**
 * Issue 25 point 5: no test awaits a socket, a message, a log line or a process on a wall-clock timer shorter
 * than the suite can guarantee under load (`abuse-floods` failed a clean-clone run at moderate load). A test
 * that runs on a runtime waits for the event itself with a generous guard (≥ 30 s; the live clients' is
 * TEST_WAIT_MS, 60 s), or drives the service with the control API's settle. This reads the tests that run on a
 * runtime or a real socket (integration, contract, their support, the browser tests) for the four ways a wait
 * is written here: a timer that rejects, a `timeout:` option, `waitFor`/`waitUntil` with a limit, and a loop
 * that polls a bounded number of times.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, sourceFiles } from '../support/imports';

/** The shortest guard a wait on the service may have. */
const MIN_WAIT_MS = 30_000;

const num = (s: string) => Number(s.replace(/_/g, ''));

/** The text of the call that opens at `open` (the index of its `(`), parentheses balanced. */
function callAt(text: string, open: number): string {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return text.slice(open, i + 1);
  }
  return text.slice(open);
}

/** Every wait in `text` whose guard is shorter than {@link MIN_WAIT_MS}, as `line: what`. */
function shortWaits(text: string): string[] {
  const found: string[] = [];
  const line = (at: number) => text.slice(0, at).split('\n').length;
  const flag = (at: number, what: string) => found.push(`${line(at)}: ${what}`);
  // A timer that fails the wait: setTimeout(() => reject(...) | done(new Error(...)), N).
  for (const m of text.matchAll(/setTimeout\(/g)) {
    const call = callAt(text, m.index + 'setTimeout'.length);
    const ms = /,\s*([\d_]+)\s*\)$/.exec(call);
    if (ms && /\breject\(|new Error\(/.test(call) && num(ms[1]) < MIN_WAIT_MS) flag(m.index, `a timer failing the wait after ${ms[1]} ms`);
  }
  // vi.waitFor / expect.poll / it options.
  for (const m of text.matchAll(/\btimeout:\s*([\d_]+)/g)) if (num(m[1]) < MIN_WAIT_MS) flag(m.index, `timeout: ${m[1]}`);
  // A process's output or a condition: run.waitFor(pattern, N), waitUntil(cond, N), waitForX(..., N).
  for (const m of text.matchAll(/\b(waitFor\w*|waitUntil)\(/g)) {
    const call = callAt(text, m.index + m[1].length);
    const ms = /,\s*([\d_]+)\s*\)$/.exec(call);
    if (ms && num(ms[1]) < MIN_WAIT_MS) flag(m.index, `${m[1]}(…, ${ms[1]})`);
  }
  // for (let i = 0; i < N && …; i++) await new Promise((r) => setTimeout(r, D)): N × D ms at most.
  for (const m of text.matchAll(/for \(let (\w+) = 0; \1 < ([\d_]+) && [^;]+; \1\+\+\) await new Promise\(\(\w+\) => setTimeout\(\w+, ([\d_]+)\)\)/g)) {
    if (num(m[2]) * num(m[3]) < MIN_WAIT_MS) flag(m.index, `a loop polling ${m[2]} × ${m[3]} ms`);
  }
  return found;
}

describe('waits on the service', () => {
  it('finds each way a short wait is written (the checker itself)', () => {
    expect(shortWaits("setTimeout(() => reject(new Error('late')), 15_000);")).toEqual(['1: a timer failing the wait after 15_000 ms']);
    expect(shortWaits('setTimeout(() => reject(new Error(`late`)), 60_000);')).toEqual([]);
    expect(shortWaits('await new Promise((r) => setTimeout(r, 1500));')).toEqual([]);
    expect(shortWaits("await vi.waitFor(() => expect(m).toContain('hello'), { timeout: 10_000, interval: 20 });")).toEqual(['1: timeout: 10_000']);
    expect(shortWaits('await run.waitFor(/^stop$/m, 10_000);\nawait c.waitForSeq(3, 60_000);')).toEqual(['1: waitFor(…, 10_000)']);
    expect(shortWaits('for (let i = 0; i < 200 && !seen(); i++) await new Promise((r) => setTimeout(r, 10));')).toEqual(['1: a loop polling 200 × 10 ms']);
  });

  it('gives every wait of the runtime and socket tests a guard of at least 30 s', () => {
    const files = ['test/integration', 'test/contract', 'test/support', 'test/e2e'].flatMap((d) => sourceFiles(d));
    expect(files.length).toBeGreaterThan(100);
    const short = files.flatMap((f) => shortWaits(readFileSync(join(ROOT, f), 'utf8')).map((w) => `${f}:${w}`));
    expect(short).toEqual([]);
  });
});
