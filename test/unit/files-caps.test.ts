import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DAY_MS } from '../../shared/clock';
import { type CapState, capDays, capScopeOf, capsFor, isCap, MemoryCapStore, newCap } from '../../shared/domain/caps';
import { BLOCK_MS, bookPath, cappedHourPath, changePath, hourCandlesPath, minuteBlockPath, parseFilePath, volumePath } from '../../shared/domain/file-paths';
import { entitlementsOf } from '../../shared/domain/roles';

const M = 'forever.pvp.horde.us';
const NOW = 20000 * DAY_MS + 5 * 3_600_000;
const TODAY = 20000;
const fixedBytes =
  (fill: number) =>
  (n: number): Buffer =>
    Buffer.alloc(n, fill);

describe('newCap', () => {
  it('makes 22 base64url characters from 16 random bytes', () => {
    const asked: number[] = [];
    const cap = newCap((n) => {
      asked.push(n);
      return Buffer.alloc(n, 0xff);
    });
    expect(asked).toEqual([16]);
    expect(cap).toBe('_____________________w');
    expect(newCap(fixedBytes(0))).toBe('AAAAAAAAAAAAAAAAAAAAAA');
    expect(isCap(cap)).toBe(true);
  });

  it('makes a different cap each time from a secure source', () => {
    const caps = new Set(Array.from({ length: 100 }, () => newCap(randomBytes)));
    expect(caps.size).toBe(100);
    for (const c of caps) expect(c).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('refuses a source that gives the wrong number of bytes', () => {
    expect(() => newCap(() => Buffer.alloc(15))).toThrow(RangeError);
  });
});

describe('cap scopes', () => {
  const cap = newCap(fixedBytes(1));

  it('gives a live change, a book and a volume file a scope of their own', () => {
    expect(capScopeOf(parseFilePath(changePath(M, 42, cap))!)).toEqual({ kind: 'change', market: M, seq: 42 });
    expect(capScopeOf(parseFilePath(bookPath(M, 1234, cap))!)).toEqual({ kind: 'book', market: M, at: 1234 });
    expect(capScopeOf(parseFilePath(volumePath(M, cap, TODAY))!)).toEqual({ kind: 'volume', market: M, day: TODAY });
  });

  it('scopes minute blocks and capped hour copies by the UTC day of their start', () => {
    const lastBlockOfDay = (TODAY + 1) * (DAY_MS / BLOCK_MS) - 1;
    expect(capScopeOf(parseFilePath(minuteBlockPath(M, cap, lastBlockOfDay))!)).toEqual({ kind: 'm1', market: M, day: TODAY });
    expect(capScopeOf(parseFilePath(minuteBlockPath(M, cap, lastBlockOfDay + 1))!)).toEqual({ kind: 'm1', market: M, day: TODAY + 1 });
    expect(capScopeOf(parseFilePath(cappedHourPath(M, cap, TODAY * 24 + 23))!)).toEqual({ kind: 'h1', market: M, day: TODAY });
  });

  it('gives public files no scope', () => {
    expect(capScopeOf(parseFilePath(hourCandlesPath(M, 1))!)).toBeNull();
  });

  it('keeps one cap per scope in the memory store', async () => {
    let fill = 0;
    const store = new MemoryCapStore((n) => Buffer.alloc(n, ++fill));
    expect(await store.get({ kind: 'm1', market: M, day: TODAY })).toBeNull();
    const first = await store.create({ kind: 'm1', market: M, day: TODAY });
    expect(await store.create({ kind: 'm1', market: M, day: TODAY })).toBe(first);
    expect(await store.get({ kind: 'm1', market: M, day: TODAY })).toBe(first);
    expect(await store.create({ kind: 'h1', market: M, day: TODAY })).not.toBe(first);
    expect(await store.create({ kind: 'm1', market: 'forever.rp.horde.us', day: TODAY })).not.toBe(first);
  });
});

describe('capsFor', () => {
  const days = capDays(TODAY);
  const capOf = (kind: string, day: number) => newCap(() => Buffer.from(`${kind}${day}`.padEnd(16, '.').slice(0, 16)));
  const state: CapState = {
    m1DayCaps: new Map([...days.m1, TODAY - 3].map((d) => [d, capOf('m', d)])),
    h1DayCaps: new Map([...days.h1, TODAY - 15].map((d) => [d, capOf('h', d)])),
    d1Url: 'https://cdn.example/candles/v1/d1c/x/cap/19999.json.gz',
    volumeUrl: 'https://cdn.example/volume/v1/x/cap/19999.json.gz',
  };
  const holder = (claims: Parameters<typeof entitlementsOf>[0]) => entitlementsOf(claims, NOW);

  it('names the 3 minute days and 15 hour days up to today', () => {
    expect(days.m1).toEqual([TODAY - 2, TODAY - 1, TODAY]);
    expect(days.h1).toHaveLength(15);
    expect(days.h1[0]).toBe(TODAY - 14);
    expect(days.h1[14]).toBe(TODAY);
  });

  it('gives anonymous and free callers no caps', () => {
    expect(capsFor(holder(null), state, TODAY)).toEqual({});
    expect(capsFor(holder({}), state, TODAY)).toEqual({});
  });

  it('gives a contributor hour caps for 15 days, the full day file and the volume file, but no minute caps', () => {
    const caps = capsFor(holder({ contributorUntil: NOW + 1 }), state, TODAY);
    expect(caps.m1).toBeUndefined();
    expect(Object.keys(caps.h1!).map(Number)).toEqual(days.h1);
    expect(caps.h1![TODAY]).toBe(capOf('h', TODAY));
    expect(caps.d1).toBe(state.d1Url);
    expect(caps.volume).toBe(state.volumeUrl);
  });

  it('gives a premium caller minute caps for today and the two days before', () => {
    const caps = capsFor(holder({ plan: 'premium' }), state, TODAY);
    expect(caps.m1).toEqual({ [TODAY - 2]: capOf('m', TODAY - 2), [TODAY - 1]: capOf('m', TODAY - 1), [TODAY]: capOf('m', TODAY) });
    expect(Object.keys(caps.h1!)).toHaveLength(15);
  });

  it('leaves d1 and volume out until their first file exists', () => {
    const caps = capsFor(holder({ plan: 'premium' }), { m1DayCaps: new Map(), h1DayCaps: new Map() }, TODAY);
    expect(caps).toEqual({ m1: {}, h1: {} });
  });

  it('gives volume only with depth, whatever the history', () => {
    const caps = capsFor(holder({ plan: 'premium', withhold: ['depth'] }), state, TODAY);
    expect(caps.volume).toBeUndefined();
    expect(caps.d1).toBe(state.d1Url);
    const granted = capsFor(holder({ grants: ['depth'] }), state, TODAY);
    expect(granted).toEqual({ volume: state.volumeUrl });
  });
});
