import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listFiles } from '../support/books';
import { DEFAULT_START, type Local, startLocal } from '../support/local';
import { DAY, type Listing, MARKET, MINUTE, tierTokens, uploadAt, uploaderKey } from '../support/market-books';

/** A preview stage shares the dev bucket under its own prefix (DESIGN: stages). */
const PREFIX = 'pr-42/';
const T0 = Math.floor(DEFAULT_START / DAY) * DAY;
const book = (n: number): Listing[] => Array.from({ length: 5 }, (_, i) => [2000 + i, 50_000 + i * 10 + n, 2]);

/** Every absolute URL in an answer. */
function urls(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string' && /^https?:\/\//.test(v)) out.push(v);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) urls(x, out);
  return out;
}

describe('a runtime with a files prefix (a preview stage)', () => {
  let local: Local;
  let premium: string;

  beforeAll(async () => {
    local = await startLocal({ filesPrefix: PREFIX });
    premium = (await tierTokens(local)).premium;
    const key = await uploaderKey(local);
    await uploadAt(local, key, T0 + 2 * MINUTE, book(0));
    await uploadAt(local, key, T0 + 9 * MINUTE, book(1));
    await local.setClock(T0 + DAY + 10 * MINUTE);
    await local.tick();
  });
  afterAll(() => local.close());

  it('writes every object under the prefix: book files, change files and checkpoints, sealed candles and snapshots', async () => {
    const keys = (await listFiles(local, '')).map((f) => f.key);
    expect(keys.filter((k) => !k.startsWith(PREFIX))).toEqual([]);
    for (const kind of ['books/v1/', 'live/v1/', 'candles/v1/m1/', 'candles/v1/h1/', 'candles/v1/d1/', 'volume/v1/', 'snap/v1/']) {
      expect(
        keys.some((k) => k.startsWith(`${PREFIX}${kind}`)),
        kind,
      ).toBe(true);
    }
  });

  it('merges the books it stored under the prefix and hands out URLs that resolve on the file host', async () => {
    const item = await local.api('GET', `/api/v1/ah/${MARKET}/2000`, { token: premium });
    expect(item.status).toBe(200);
    expect(JSON.stringify(item.body)).toContain('50001');
    const files = await local.api('GET', `/api/v1/ah/${MARKET}/files`, { token: premium });
    expect(files.status).toBe(200);
    expect(files.body.cdnBase).toBe(`${local.base}/cdn/${PREFIX}`);
    expect(files.body.books).toHaveLength(2);
    expect(files.body.live.changes.length).toBeGreaterThan(0);
    const found = urls(files.body).filter((u) => u !== files.body.cdnBase && !u.includes('{'));
    expect(found.length).toBeGreaterThan(4);
    for (const u of found) {
      expect(u.startsWith(files.body.cdnBase), u).toBe(true);
      expect((await fetch(u)).status, u).toBe(200);
    }
  });
});
