/**
 * Issue 27 point 3 ("the answer assembled from Buffers without re-stringifying"): a live whole-market answer
 * written as JSON bytes (history, intraday) goes to its answer file from those bytes, or from their gzip,
 * without its 27 MB being made a string and encoded back; the caller gets exactly what the same body given as
 * text gets: the same status, headers, file bytes, or inline body below the spill size.
 */
import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock';
import { liveHeaders } from '../../shared/http/answer-cache';
import { liveUntilMerge, SPILL_FROM } from '../../shared/http/answer-files';
import type { HttpResult } from '../../shared/http/types';
import { JsonText } from '../../shared/market/json-bytes';
import type { FilesPort } from '../../shared/ports/files';
import type { Services } from '../../shared/services';
import { memoryMarket } from '../../shared/store/memory/market';

const M = 'forever.pvp.horde.us';
const CDN = 'https://files.example/';
const START = Date.UTC(2026, 10, 2, 6, 10);

function world() {
  const clock = new ManualClock(START);
  const market = memoryMarket(clock);
  const files = new Map<string, { data: Buffer; headers: unknown }>();
  const store: FilesPort = {
    put: async (path, body, headers) => {
      files.set(path, { data: Buffer.from(body), headers });
    },
    get: async (path) => files.get(path)?.data ?? null,
    head: async () => null,
    list: async () => [],
    delete: async () => undefined,
  };
  const svc = { clock, market, files: store, config: { cdnBase: CDN } } as unknown as Services;
  const file = (r: HttpResult) => files.get(String(r.headers?.location).slice(CDN.length));
  return { svc, file };
}

/** JSON text of `size` ASCII bytes; `noisy`: gzip cannot shrink it below the spill size. */
function body(size: number, noisy: boolean): Buffer {
  const pad = noisy ? randomBytes(size).toString('base64') : '[1,2,3,4,5,6,7,8],'.repeat(Math.ceil(size / 18));
  return Buffer.from(`{"items":"${pad.slice(0, size - 13)}"}`, 'latin1');
}

/** A JsonText of bytes that fails the test if anything makes it a string. */
class BytesOnly extends JsonText {
  override get text(): string {
    throw new Error('the answer was made a string');
  }
}

/** The same answer through liveUntilMerge as bytes and as a text result, each in a world of its own. */
async function both(bytes: Buffer, encoding: string, asked: JsonText = new JsonText(bytes)) {
  const a = world();
  const b = world();
  const fromBytes = await liveUntilMerge(a.svc, M, 'history|30', encoding, async () => asked);
  const fromText = await liveUntilMerge(b.svc, M, 'history|30', encoding, async () => ({
    statusCode: 200,
    headers: liveHeaders(),
    body: bytes.toString('latin1'),
  }));
  return { fromBytes, fromText, fileOfBytes: a.file(fromBytes), fileOfText: b.file(fromText) };
}

const withoutLocation = (r: HttpResult) => {
  const { location: _l, ...headers } = r.headers ?? {};
  return { statusCode: r.statusCode, headers };
};

describe('live answers written as bytes (issue 27 point 3)', () => {
  it('past the spill size, a plain answer goes to its file from its bytes, never made a string, as its text would', async () => {
    const bytes = body(Math.ceil(SPILL_FROM * 1.3), false);
    const r = await both(bytes, 'identity', new BytesOnly(bytes));
    expect(r.fromBytes.statusCode).toBe(303);
    expect(withoutLocation(r.fromBytes)).toEqual(withoutLocation(r.fromText));
    expect(r.fileOfBytes?.data.equals(bytes)).toBe(true);
    expect(r.fileOfBytes?.data.equals(r.fileOfText?.data ?? Buffer.alloc(0))).toBe(true);
    expect(r.fileOfBytes?.headers).toEqual(r.fileOfText?.headers);
  });

  it('past the spill size after gzip, the file is the gzip of the bytes, never made a string, as of its text', async () => {
    const bytes = body(Math.ceil(SPILL_FROM * 1.6), true);
    const r = await both(bytes, 'gzip, br', new BytesOnly(bytes));
    expect(r.fromBytes.statusCode).toBe(303);
    expect(String(r.fromBytes.headers?.location)).toMatch(/\.json\.gz$/);
    expect(withoutLocation(r.fromBytes)).toEqual(withoutLocation(r.fromText));
    expect(r.fileOfBytes?.data.equals(r.fileOfText?.data ?? Buffer.alloc(0))).toBe(true);
    expect(gunzipSync(r.fileOfBytes?.data ?? Buffer.alloc(0)).equals(bytes)).toBe(true);
    expect(r.fileOfBytes?.headers).toEqual(r.fileOfText?.headers);
  });

  it('past the spill size but gzip into the limit, the caller gets the gzip inline, as for its text', async () => {
    const bytes = body(Math.ceil(SPILL_FROM * 1.3), false);
    const r = await both(bytes, 'gzip');
    expect(r.fromBytes.statusCode).toBe(200);
    expect(r.fromBytes.isBase64Encoded).toBe(true);
    expect(r.fromBytes).toEqual(r.fromText);
    expect(gunzipSync(Buffer.from(String(r.fromBytes.body), 'base64')).equals(bytes)).toBe(true);
  });

  it('below the spill size, the answer is its text inline, as for its text', async () => {
    for (const encoding of ['identity', 'gzip']) {
      const bytes = body(Math.ceil(SPILL_FROM * 0.8), true);
      const r = await both(bytes, encoding);
      expect(r.fromBytes).toEqual(r.fromText);
      expect(r.fileOfBytes).toBeUndefined();
    }
  });
});
