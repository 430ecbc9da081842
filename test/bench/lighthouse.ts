/**
 * `site.lighthouse.*` (issue 24 point 9): Lighthouse's performance and accessibility scores of the home page,
 * an item page and the alerts page (signed in), in Debian's Chromium, against the local runtime started as
 * `npm start -- --demo` starts it (nothing kept). Lighthouse's defaults: a phone on a throttled network
 * (simulated), the harder of its two form factors. Scores, not timings, so a busy machine moves them less; they
 * are a bench figure, never a test.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import lighthouse from 'lighthouse';
import { findChromium } from '../support/chromium';

export interface PageScores {
  page: 'home' | 'item' | 'alerts';
  url: string;
  performance: number;
  accessibility: number;
  /** The audits that cost accessibility points (ids), so a miss says what to fix. */
  failing: string[];
}

const ROOT = join(import.meta.dirname, '..', '..');

/** Starts the demo runtime on a free port; resolves with its base URL once it prints `ready`. */
async function startDemo(): Promise<{ base: string; stop: () => Promise<void> }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts', '--demo'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', DATA_DIR: ':memory:', LOG: 'quiet' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGINT');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    }
  };
  const base = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the demo was not ready in 10 minutes: ${out.slice(-300)}`)), 600_000);
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /^ready (http\S+)/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1].replace(/\/$/, ''));
      }
    };
    proc.stdout?.on('data', read);
    proc.stderr?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    proc.once('exit', (code) => reject(new Error(`the demo exited (${code}): ${out.slice(-300)}`)));
  }).catch(async (err) => {
    await stop();
    throw err;
  });
  return { base, stop };
}

/** Chromium with a debugging port for Lighthouse to drive. */
async function startChromium(bin: string): Promise<{ port: number; stop: () => Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'lighthouse-'));
  const proc: ChildProcess = spawn(
    bin,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--remote-debugging-port=0',
      `--user-data-dir=${profile}`,
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(profile, { recursive: true, force: true });
  };
  const port = await new Promise<number>((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`chromium did not start: ${err.slice(-300)}`)), 30_000);
    proc.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      const m = /DevTools listening on ws:\/\/[^:]+:(\d+)\//.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    proc.once('exit', (code) => reject(new Error(`chromium exited (${code}): ${err.slice(-300)}`)));
  }).catch(async (err) => {
    await stop();
    throw err;
  });
  return { port, stop };
}

async function json<T>(res: Response): Promise<T> {
  if (!res.ok) throw new Error(`${res.url} answered ${res.status}`);
  return (await res.json()) as T;
}

/** A signed-in session of a premium user (the control API), for the alerts page. */
async function premiumSession(base: string): Promise<string> {
  const post = (path: string, body: unknown) =>
    fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const user = await json<{ id: string }>(await post('/_local/users', { plan: 'premium' }));
  return (await json<{ token: string }>(await post('/_local/sessions', { userId: user.id }))).token;
}

/** An item page the sitemap lists (the demo's items). */
async function itemPage(base: string): Promise<string> {
  const sitemap = await (await fetch(`${base}/sitemap.xml`)).text();
  const m = /<loc>([^<]*\/item\/[^<]+)<\/loc>/.exec(sitemap);
  if (!m) throw new Error('the sitemap lists no item page');
  return m[1].replace(/&amp;/g, '&');
}

export async function benchLighthouse(): Promise<PageScores[]> {
  const bin = findChromium();
  if (!bin) throw new Error('no Chromium binary (install Debian\'s "chromium" or set CHROMIUM_BIN)');
  const demo = await startDemo();
  try {
    const session = await premiumSession(demo.base);
    const pages: Array<Pick<PageScores, 'page' | 'url'> & { headers?: Record<string, string> }> = [
      { page: 'home', url: `${demo.base}/` },
      { page: 'item', url: await itemPage(demo.base) },
      { page: 'alerts', url: `${demo.base}/#/market/alerts`, headers: { cookie: `__session=${session}` } },
    ];
    const scores: PageScores[] = [];
    for (const p of pages) {
      // A fresh browser per page: no cache or storage carried from one audit to the next.
      const chromium = await startChromium(bin);
      try {
        const result = await lighthouse(p.url, {
          port: chromium.port,
          output: 'json',
          logLevel: 'error',
          onlyCategories: ['performance', 'accessibility'],
          extraHeaders: p.headers,
        });
        const lhr = result?.lhr;
        if (!lhr) throw new Error(`Lighthouse gave no result for ${p.page}`);
        if (lhr.runtimeError) throw new Error(`Lighthouse: ${lhr.runtimeError.message}`);
        const a11y = lhr.categories.accessibility;
        scores.push({
          page: p.page,
          url: p.url,
          performance: Math.round((lhr.categories.performance.score ?? Number.NaN) * 100),
          accessibility: Math.round((a11y.score ?? Number.NaN) * 100),
          failing: a11y.auditRefs.filter((r) => r.weight > 0 && (lhr.audits[r.id]?.score ?? 1) < 1).map((r) => r.id),
        });
      } finally {
        await chromium.stop();
      }
    }
    return scores;
  } finally {
    await demo.stop();
  }
}
