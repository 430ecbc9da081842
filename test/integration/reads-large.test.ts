import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPRESS_FROM } from '../../shared/http/respond';
import { DEFAULT_START, type Local, startLocal } from '../support/local';
import { type Listing, MARKET, MINUTE, tierTokens, uploadAt, uploaderKey } from '../support/market-books';

/** A market of 30000 keys: its history answer runs past a megabyte, which goes gzip to callers that accept it. */
const KEYS = 30_000;

describe('large answers', () => {
  let local: Local;
  let premium: string;

  beforeAll(async () => {
    local = await startLocal();
    premium = (await tierTokens(local)).premium;
    const listings: Listing[] = Array.from({ length: KEYS }, (_, i) => [10_000 + i, 1_000 + ((i * 7919) % 900_000), 1 + (i % 9)]);
    await uploadAt(local, await uploaderKey(local), DEFAULT_START + 2 * MINUTE, listings);
  });
  afterAll(() => local.close());

  it('answers the same history gzip (Accept-Encoding: gzip) and plain (identity), both with Vary: Accept-Encoding', async () => {
    const url = `${local.base}/api/v1/ah/${MARKET}/history`;
    const auth = { authorization: `Bearer ${premium}` };
    const plain = await fetch(url, { headers: { ...auth, 'accept-encoding': 'identity' } });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.headers.get('vary')).toContain('Accept-Encoding');
    const text = await plain.text();
    expect(text.length).toBeGreaterThan(COMPRESS_FROM);

    const zipped = await fetch(url, { headers: { ...auth, 'accept-encoding': 'gzip' } });
    expect(zipped.status).toBe(200);
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect(zipped.headers.get('vary')).toContain('Accept-Encoding');
    const gzipBytes = Number(zipped.headers.get('content-length') ?? Number.NaN);
    // docs/deploying.md (Deviations, response size): about a third of the size even as Lambda's base64 body (0.27 here).
    expect(Math.ceil(gzipBytes / 3) * 4).toBeLessThanOrEqual(text.length * 0.35);
    // fetch undoes the gzip: the same document (apart from `now`, which is the same on the manual clock).
    const body = (await zipped.json()) as { items: unknown[] };
    expect(body).toEqual(JSON.parse(text));
    expect(body.items).toHaveLength(KEYS);
  });

  it('keeps small answers plain whatever the caller accepts', async () => {
    const res = await fetch(`${local.base}/api/v1/ah/${MARKET}/10000`, { headers: { authorization: `Bearer ${premium}`, 'accept-encoding': 'gzip' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBeNull();
  });
});
