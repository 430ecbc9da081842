import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { binary, COMPRESS_FROM, compressLarge, json } from '../../shared/http/respond';

const big = { items: Array.from({ length: 40_000 }, (_, i) => [i, [[20_000 + (i % 30), 100 + i, 120 + i, 90, 110 + i, i % 17]], []]) };

describe('compressLarge', () => {
  it('leaves answers under the threshold as they are', async () => {
    const small = json(200, { ok: true }, { vary: 'Authorization, Cookie' });
    expect(await compressLarge(small, 'gzip')).toBe(small);
  });

  it('sends a large answer gzip to a caller that accepts it, with Vary: Accept-Encoding added', async () => {
    const plain = json(200, big, { vary: 'Authorization, Cookie', 'cache-control': 'private, no-store' });
    expect((plain.body as string).length).toBeGreaterThan(COMPRESS_FROM);
    const out = await compressLarge(plain, 'gzip, deflate, br');
    expect(out.isBase64Encoded).toBe(true);
    expect(out.headers).toMatchObject({
      'content-encoding': 'gzip',
      vary: 'Authorization, Cookie, Accept-Encoding',
      'cache-control': 'private, no-store',
      'content-type': 'application/json; charset=utf-8',
    });
    const back = gunzipSync(Buffer.from(out.body as string, 'base64')).toString('utf8');
    expect(back).toBe(plain.body);
    expect((out.body as string).length).toBeLessThan((plain.body as string).length / 2);
  });

  it('sends it plain (still varying on Accept-Encoding) to a caller that does not accept gzip', async () => {
    const plain = json(200, big);
    for (const header of [undefined, 'identity', 'gzip;q=0', 'br']) {
      const out = await compressLarge(plain, header);
      expect(out.body).toBe(plain.body);
      expect(out.headers?.['content-encoding']).toBeUndefined();
      expect(out.headers?.vary).toBe('Accept-Encoding');
    }
  });

  it('passes binary answers (files already gzip) through untouched', async () => {
    const file = binary(200, Buffer.alloc(COMPRESS_FROM * 2), { 'content-encoding': 'gzip' });
    expect(await compressLarge(file, 'gzip')).toBe(file);
  });
});
