import { describe, expect, it } from 'vitest';
import type { FilesState } from '../../shared/domain/files-state';
import { type Claims, entitlementsOf } from '../../shared/domain/roles';
import {
  API_KEY_SOCKET_MS,
  credentialExpired,
  credentialUntil,
  mayRenew,
  SESSION_GRACE_MS,
  socketEntitlements,
  withWindow,
} from '../../shared/live/credentials';
import { ahMessage, filesAnswer, helloMessage, type MarketView, sealedMessage } from '../../shared/live/messages';
import type { MergeRecord } from '../../shared/ports/market';

const NOW = Date.UTC(2026, 10, 2, 12);
const DAY = 86_400_000;
const CDN = 'https://cdn.example/';
const CAP = 'AbCdEfGhIjKlMnOpQrStUv';
const ent = (claims: Claims | null) => {
  const e = entitlementsOf(claims, NOW);
  return { roles: e.roles, features: e.features, historyDays: e.limits.historyDays };
};
const free = ent({});
const contributor = ent({ contributorUntil: NOW + DAY });
const premium = ent({ plan: 'premium' });

describe('live socket credentials', () => {
  it('holds a session until exp + 10 minutes, an API key 5 minutes, a device until deleted', () => {
    expect(credentialUntil({ kind: 'session', validUntil: NOW + 1000 }, NOW)).toBe(NOW + 1000 + SESSION_GRACE_MS);
    expect(credentialUntil({ kind: 'apiKey', validUntil: NOW + 999_999 }, NOW)).toBe(NOW + API_KEY_SOCKET_MS);
    expect(credentialUntil({ kind: 'device' }, NOW)).toBeNull();
    expect(credentialExpired(null, NOW + 100 * DAY)).toBe(false);
    expect(credentialExpired(NOW, NOW)).toBe(true);
    expect(credentialExpired(NOW + 1, NOW)).toBe(false);
  });

  it('renews only with a credential of the same user and kind', () => {
    expect(mayRenew({ userId: 'u', kind: 'apiKey' }, { userId: 'u', kind: 'apiKey' })).toBe(true);
    expect(mayRenew({ userId: 'u', kind: 'apiKey' }, { userId: 'u', kind: 'session' })).toBe(false);
    expect(mayRenew({ userId: 'u', kind: 'device' }, { userId: 'v', kind: 'device' })).toBe(false);
  });

  it('keeps an API key within its scopes and raises a window to the stored end', () => {
    expect(socketEntitlements({ plan: 'premium' }, ['live', 'candles.minute'], NOW).features).toEqual(['candles.minute', 'live']);
    expect(withWindow({ contributorUntil: null }, NOW + DAY)).toEqual({ contributorUntil: NOW + DAY });
    expect(withWindow({ contributorUntil: NOW + 2 * DAY }, NOW + DAY)).toEqual({ contributorUntil: NOW + 2 * DAY });
  });
});

describe('live messages per caller', () => {
  const files: FilesState = {
    market: 'm',
    sealed: { m1: 100, h1: 20, d1: 3 },
    m1Path: `candles/v1/m1/m/${CAP}/100.json.gz`,
    h1Path: 'candles/v1/h1/m/20.json.gz',
    d1Path: 'candles/v1/d1/m/3.json.gz',
    d1cPath: `candles/v1/d1c/m/${CAP}/3.json.gz`,
    volumePath: `volume/v1/m/${CAP}/3.json.gz`,
    snapHour: 72,
  };
  const view: MarketView = {
    market: 'm',
    seq: 51,
    at: NOW - 1000,
    checkpoint: { seq: 50, path: `live/v1/m/c50-${CAP}.json.gz` },
    changes: [{ seq: 51, path: `live/v1/m/51-${CAP}.json.gz` }],
    files,
    m1DayCaps: new Map([[Math.floor(NOW / DAY), CAP]]),
    h1DayCaps: new Map([[Math.floor(NOW / DAY) - 1, CAP]]),
  };
  const merge: MergeRecord = {
    market: 'm',
    seq: 52,
    at: NOW,
    mergedAt: NOW,
    changePath: `live/v1/m/52-${CAP}.json.gz`,
    bookPath: `books/v1/m/${NOW}-${CAP}.json.gz`,
    bookAt: NOW,
  };

  it('puts change and book URLs in ah only for callers who may read them', () => {
    expect(ahMessage(merge, free, CDN)).toEqual({ t: 'ah', market: 'm', seq: 52, at: NOW });
    expect(ahMessage(merge, contributor, CDN)).toEqual({
      t: 'ah',
      market: 'm',
      seq: 52,
      at: NOW,
      url: `https://cdn.example/live/v1/m/52-${CAP}.json.gz`,
      book: `https://cdn.example/books/v1/m/${NOW}-${CAP}.json.gz`,
    });
    expect(ahMessage({ ...merge, bookPath: undefined }, contributor, CDN)).not.toHaveProperty('book');
  });

  it('announces sealed files by what the caller may read', () => {
    expect(sealedMessage(files, 'm1', contributor, CDN)).toBeNull();
    expect(sealedMessage(files, 'm1', premium, CDN)).toEqual({
      t: 'sealed',
      market: 'm',
      res: 'm1',
      start: 100 * 600_000,
      url: `https://cdn.example/${files.m1Path}`,
    });
    expect(sealedMessage(files, 'h1', free, CDN)?.url).toBe(`https://cdn.example/${files.h1Path}`);
    expect(sealedMessage(files, 'd1', free, CDN)?.url).toBe(`https://cdn.example/${files.d1Path}`);
    expect(sealedMessage(files, 'd1', contributor, CDN)).toMatchObject({ start: 3 * DAY, url: `https://cdn.example/${files.d1cPath}` });
  });

  it('greets with live files and caps by role, and answers the files route the same way', () => {
    const h = helloMessage(view, free, CDN, NOW);
    expect(h).toMatchObject({ seq: 51, checkpoint: null, changes: [], caps: {}, sealed: files.sealed });
    const p = helloMessage(view, premium, CDN, NOW);
    expect(p.checkpoint).toEqual({ seq: 50, url: `https://cdn.example/live/v1/m/c50-${CAP}.json.gz` });
    expect(p.caps).toEqual({
      m1: { [Math.floor(NOW / DAY)]: CAP },
      h1: { [Math.floor(NOW / DAY) - 1]: CAP },
      d1: `https://cdn.example/${files.d1cPath}`,
      volume: `https://cdn.example/${files.volumePath}`,
    });
    const a = filesAnswer(view, free, CDN, NOW, null);
    expect(a).toEqual({
      market: 'm',
      cdnBase: CDN,
      snapshot: 'https://cdn.example/snap/v1/m/72.json.gz',
      d1: `https://cdn.example/${files.d1Path}`,
      sealed: files.sealed,
      caps: {},
      now: NOW,
    });
    expect(filesAnswer(view, contributor, CDN, NOW, [{ at: 5, complete: true, path: 'books/x' }])).toMatchObject({
      live: { seq: 51, checkpoint: p.checkpoint, changes: p.changes },
      books: [{ at: 5, complete: true, url: 'https://cdn.example/books/x' }],
    });
  });
});
