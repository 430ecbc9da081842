/**
 * Issue 27 point 3: a live whole-market answer past a Lambda's limit is written to `answers/` once per merge
 * (and encoding and hour) and every live caller asking the same before the market's next merge is sent to that
 * file without the answer being computed again; a new merge makes the file stale, so it is never served after
 * it. The in-memory market fake is the store; merges are the merge's own writes (merge-writes.ts).
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { HOUR_MS, ManualClock } from '../../shared/clock';
import { liveHeaders } from '../../shared/http/answer-cache';
import { liveUntilMerge, SPILL_FROM } from '../../shared/http/answer-files';
import type { FilesPort } from '../../shared/ports/files';
import type { Services } from '../../shared/services';
import { memoryMarket } from '../../shared/store/memory/market';
import { mergeWrites } from '../support/merge-writes';

const M = 'forever.pvp.horde.us';
const CDN = 'https://files.example/';
const START = Date.UTC(2026, 10, 2, 6, 10);

/** Text gzip cannot shrink below the spill size (the gzip answer spills too). */
const noise = randomBytes(SPILL_FROM * 2);

function world() {
  const clock = new ManualClock(START);
  const market = memoryMarket(clock);
  const files = new Map<string, Buffer>();
  const store: FilesPort = {
    put: async (path, body) => {
      files.set(path, Buffer.from(body));
    },
    get: async (path) => files.get(path) ?? null,
    head: async () => null,
    list: async () => [],
    delete: async () => undefined,
  };
  const svc = { clock, market, files: store, config: { cdnBase: CDN } } as unknown as Services;
  let computed = 0;
  /** A live answer as the routes build it: its body names the seq the market had when it was computed. */
  const ask = (key: string, encoding: string, size = Math.ceil(SPILL_FROM * 1.6)) =>
    liveUntilMerge(svc, M, key, encoding, async () => {
      computed++;
      const seq = (await market.latest.meta(M)).seq;
      const head = `{"seq":${seq},"now":${clock.now()},"pad":"`;
      return { statusCode: 200, headers: liveHeaders(), body: `${head}${noise.toString('base64').slice(0, size - head.length - 2)}"}` };
    });
  const merge = () => mergeWrites(M, market, clock.now(), clock.now(), [[16, 10 + (Math.floor(clock.now() / 60_000) % 1000)]], async () => undefined);
  /** The answer a redirect points at, as the file host serves it. */
  const followed = (location: string): { seq: number } => {
    const data = files.get(location.slice(CDN.length));
    if (!data) throw new Error(`no file at ${location}`);
    return JSON.parse(data.toString('utf8')) as { seq: number };
  };
  return { clock, files, ask, merge, followed, computed: () => computed };
}

describe('live answers past the spill size, shared until the next merge (issue 27 point 3)', () => {
  it('a second live caller before the next merge is sent to the same file, without the answer being computed again', async () => {
    const w = world();
    await w.merge();
    const first = await w.ask('history|30', 'identity');
    expect(first.statusCode).toBe(303);
    const location = String(first.headers?.location);
    expect(location).toMatch(/^https:\/\/files\.example\/answers\/v1\/[A-Za-z0-9_-]{22}\/\d+\.json$/);
    w.clock.advance(20 * 60_000);
    const second = await w.ask('history|30', 'identity');
    // The redirect is the one a computed answer gets: same status, headers (private, no-store; Vary) and body.
    expect(second).toEqual(first);
    expect(w.computed()).toBe(1);
    expect(w.files.size).toBe(1);
    expect(w.followed(location).seq).toBe(1);
  });

  it('a new merge makes the shared file stale: every later caller gets an answer computed after it, never the old file', async () => {
    const w = world();
    await w.merge();
    const before = String((await w.ask('history|30', 'identity')).headers?.location);
    for (let n = 2; n <= 4; n++) {
      w.clock.advance(60_000);
      await w.merge();
      const after = String((await w.ask('history|30', 'identity')).headers?.location);
      expect(after).not.toBe(before);
      expect(w.followed(after).seq).toBe(n);
      // Asked again before another merge: that file, still of the newest merge.
      expect(String((await w.ask('history|30', 'identity')).headers?.location)).toBe(after);
    }
    expect(w.computed()).toBe(4);
  });

  it('keeps one file per encoding, per key and per hour; small answers are answered directly and never recorded', async () => {
    const w = world();
    await w.merge();
    const plain = String((await w.ask('history|30', 'identity')).headers?.location);
    const gzip = await w.ask('history|30', 'gzip');
    expect(gzip.statusCode).toBe(303);
    expect(String(gzip.headers?.location)).toMatch(/\.json\.gz$/);
    const other = String((await w.ask('history|7', 'identity')).headers?.location);
    expect(new Set([plain, String(gzip.headers?.location), other]).size).toBe(3);
    expect(w.computed()).toBe(3);
    // The next hour (answer files expire by their hour): computed again, a new file.
    w.clock.advance(HOUR_MS);
    const nextHour = String((await w.ask('history|30', 'identity')).headers?.location);
    expect(nextHour).not.toBe(plain);
    expect(w.computed()).toBe(4);
    for (let i = 0; i < 2; i++) expect((await w.ask('history|1', 'identity', 1000)).statusCode).toBe(200);
    expect(w.computed()).toBe(6);
  });
});
