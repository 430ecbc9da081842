/**
 * Headless Chromium driven over the Chrome DevTools protocol with `ws` (no browser package): open a page,
 * evaluate expressions in it, take screenshots. Debian's `chromium` package is enough; CI installs it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import WebSocket from 'ws';

/** The Chromium binary: `CHROMIUM_BIN` when set, else the first of the usual names on PATH; null when there is none. */
export function findChromium(): string | null {
  const candidates = process.env.CHROMIUM_BIN
    ? [process.env.CHROMIUM_BIN]
    : (process.env.PATH ?? '')
        .split(delimiter)
        .flatMap((dir) => ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'].map((name) => join(dir, name)));
  for (const path of candidates) {
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not this one
    }
  }
  return null;
}

interface CdpMessage {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { message: string };
  sessionId?: string;
}

export interface BrowserPage {
  /** Evaluates an expression in the page and returns its value (JSON-serializable). */
  evaluate<T>(expression: string): Promise<T>;
  /** A PNG of the viewport, or of a region of the page. */
  screenshot(clip?: { x: number; y: number; width: number; height: number }): Promise<Buffer>;
}

export interface Browser {
  /** Opens `url` in a new tab of `width`×`height` CSS pixels (light scheme unless `dark`) and waits for its load event. */
  open(url: string, viewport?: { width: number; height: number }, dark?: boolean): Promise<BrowserPage>;
  close(): Promise<void>;
}

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--hide-scrollbars',
  '--remote-debugging-port=0',
];

/** Starts Chromium and connects to its browser endpoint; `close()` ends the process and removes its profile. */
export async function launchChromium(bin: string): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'chromium-'));
  const proc: ChildProcess = spawn(bin, [...FLAGS, `--user-data-dir=${profile}`, 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  // Browser.close lets Chromium end its own helper processes; the kill is only for one that hangs.
  const cleanup = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(profile, { recursive: true, force: true });
  };
  let endpoint: string;
  try {
    endpoint = await new Promise<string>((resolve, reject) => {
      let err = '';
      const timer = setTimeout(() => reject(new Error(`chromium did not start: ${err.slice(-500)}`)), 30_000);
      proc.stderr?.on('data', (chunk: Buffer) => {
        err += chunk.toString();
        const m = /DevTools listening on (ws:\/\/\S+)/.exec(err);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      proc.on('exit', (code) => reject(new Error(`chromium exited (${code}): ${err.slice(-500)}`)));
    });
  } catch (e) {
    proc.kill('SIGKILL');
    await cleanup();
    throw e;
  }
  const ws = new WebSocket(endpoint, { perMessageDeflate: false });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  let seq = 0;
  const pending = new Map<number, { resolve: (r: Record<string, unknown>) => void; reject: (e: Error) => void }>();
  const listeners = new Set<(m: CdpMessage) => void>();
  ws.on('message', (data) => {
    const msg = JSON.parse(data.toString()) as CdpMessage;
    if (msg.id !== undefined) {
      const p = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error) p?.reject(new Error(msg.error.message));
      else p?.resolve(msg.result ?? {});
    } else {
      for (const l of listeners) l(msg);
    }
  });
  const send = (method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      const id = ++seq;
      pending.set(id, { resolve, reject });
      ws.send(JSON.stringify(sessionId ? { id, method, params, sessionId } : { id, method, params }));
    });
  const eventOnce = (method: string, sessionId: string): Promise<void> =>
    new Promise((resolve) => {
      const l = (m: CdpMessage) => {
        if (m.method === method && m.sessionId === sessionId) {
          listeners.delete(l);
          resolve();
        }
      };
      listeners.add(l);
    });

  return {
    async open(url, viewport = { width: 1200, height: 900 }, dark = false) {
      const { targetId } = (await send('Target.createTarget', { url: 'about:blank' })) as { targetId: string };
      const { sessionId } = (await send('Target.attachToTarget', { targetId, flatten: true })) as { sessionId: string };
      await send('Page.enable', {}, sessionId);
      await send('Emulation.setDeviceMetricsOverride', { ...viewport, deviceScaleFactor: 1, mobile: false }, sessionId);
      await send('Emulation.setEmulatedMedia', { features: [{ name: 'prefers-color-scheme', value: dark ? 'dark' : 'light' }] }, sessionId);
      const loaded = eventOnce('Page.loadEventFired', sessionId);
      const nav = (await send('Page.navigate', { url }, sessionId)) as { errorText?: string };
      if (nav.errorText) throw new Error(`navigation failed: ${nav.errorText}`);
      await loaded;
      return {
        async evaluate<T>(expression: string) {
          const r = (await send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true }, sessionId)) as {
            result: { value?: T };
            exceptionDetails?: { text: string };
          };
          if (r.exceptionDetails) throw new Error(`evaluate failed: ${r.exceptionDetails.text}`);
          return r.result.value as T;
        },
        async screenshot(clip) {
          const params = clip ? { format: 'png', clip: { ...clip, scale: 1 }, captureBeyondViewport: true } : { format: 'png' };
          const { data } = (await send('Page.captureScreenshot', params, sessionId)) as { data: string };
          return Buffer.from(data, 'base64');
        },
      };
    },
    async close() {
      try {
        await send('Browser.close');
      } catch {
        // already gone
      }
      ws.close();
      await cleanup();
    },
  };
}
