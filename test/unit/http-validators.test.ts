import { describe, expect, it } from 'vitest';
import { rateLimitHeaders } from '../../shared/http/rate-limit-headers';
import type { HttpResult } from '../../shared/http/types';
import { noneMatchHits, strongTag, weakTag, withValidator } from '../../shared/http/validators';

const JSON_TYPE = 'application/json; charset=utf-8';
const hourly = (body: string, extra: Record<string, string> = {}): HttpResult => ({
  statusCode: 200,
  headers: { 'content-type': JSON_TYPE, 'cache-control': 'public, max-age=100', vary: 'Authorization, Cookie', ...extra },
  body,
});

describe('If-None-Match (RFC 9110 13.1.2, weak comparison)', () => {
  const tag = '"abc"';

  it('matches the tag itself, its W/ form, a list holding it and *', () => {
    expect(noneMatchHits('"abc"', tag)).toBe(true);
    expect(noneMatchHits('W/"abc"', tag)).toBe(true);
    expect(noneMatchHits('"x", W/"y" ,  "abc"', tag)).toBe(true);
    expect(noneMatchHits('*', tag)).toBe(true);
    expect(noneMatchHits('"abc"', 'W/"abc"')).toBe(true);
  });

  it('does not match other tags, unquoted or malformed values, or no header', () => {
    expect(noneMatchHits('"abcd"', tag)).toBe(false);
    expect(noneMatchHits('abc', tag)).toBe(false);
    expect(noneMatchHits('"x", "y"', tag)).toBe(false);
    expect(noneMatchHits('w/"abc"x', '"nope"')).toBe(false);
    expect(noneMatchHits('', tag)).toBe(false);
    expect(noneMatchHits(undefined, tag)).toBe(false);
  });

  it('keeps a comma inside a tag part of that tag', () => {
    expect(noneMatchHits('"a,b"', '"a,b"')).toBe(true);
    expect(noneMatchHits('"a,b"', '"a"')).toBe(false);
  });
});

describe('entity tags of cacheable answers', () => {
  it('gives the same bytes the same tag and other bytes, types or encodings another', () => {
    const a = strongTag(JSON_TYPE, '', '{"a":1}', false);
    expect(a).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(strongTag(JSON_TYPE, '', '{"a":1}', false)).toBe(a);
    expect(strongTag(JSON_TYPE, '', '{"a":2}', false)).not.toBe(a);
    expect(strongTag('text/markdown; charset=utf-8', '', '{"a":1}', false)).not.toBe(a);
    expect(strongTag(JSON_TYPE, 'gzip', '{"a":1}', false)).not.toBe(a);
    expect(weakTag(JSON_TYPE, '{"a":1}')).toMatch(/^W\/"[A-Za-z0-9_-]{27}"$/);
  });

  it('tags a storable 200 and answers 304 to a matching GET or HEAD with the same ETag, Cache-Control and Vary and no body', () => {
    const first = withValidator('GET', undefined, hourly('{"a":1}'));
    const tag = String(first.headers?.etag);
    expect(first).toMatchObject({ statusCode: 200, body: '{"a":1}' });
    for (const method of ['GET', 'HEAD']) {
      for (const header of [tag, `W/${tag}`, `"other", ${tag}`, '*']) {
        const again = withValidator(method, header, hourly('{"a":1}'));
        expect(again.statusCode, header).toBe(304);
        expect(again.body).toBe('');
        expect(again.headers).toEqual({ etag: tag, 'cache-control': 'public, max-age=100', vary: 'Authorization, Cookie' });
      }
    }
    expect(withValidator('GET', '"other"', hourly('{"a":1}')).statusCode).toBe(200);
    expect(withValidator('GET', tag, hourly('{"a":2}')).statusCode).toBe(200);
  });

  it('keeps a route’s own tag and the headers that are no representation metadata', () => {
    const own = withValidator('GET', 'W/"mine"', hourly('x', { etag: 'W/"mine"', 'x-service-build': 'b1', 'content-encoding': 'gzip' }));
    expect(own.statusCode).toBe(304);
    expect(own.headers).toMatchObject({ etag: 'W/"mine"', 'x-service-build': 'b1' });
    expect(own.headers).not.toHaveProperty('content-type');
    expect(own.headers).not.toHaveProperty('content-encoding');
  });

  it('never tags or answers 304 to no-store answers, errors or writes', () => {
    const live: HttpResult = { statusCode: 200, headers: { 'content-type': JSON_TYPE, 'cache-control': 'private, no-store' }, body: '{}' };
    expect(withValidator('GET', '*', live)).toBe(live);
    const error: HttpResult = { statusCode: 404, headers: { 'content-type': JSON_TYPE, 'cache-control': 'public, max-age=60' }, body: '{}' };
    expect(withValidator('GET', '*', error)).toBe(error);
    const noCacheControl: HttpResult = { statusCode: 200, headers: { 'content-type': JSON_TYPE }, body: '{}' };
    expect(withValidator('GET', '*', noCacheControl)).toBe(noCacheControl);
    expect(withValidator('POST', '*', hourly('{}')).statusCode).toBe(200);
  });
});

describe('RateLimit fields (draft httpapi-ratelimit-headers)', () => {
  const minute = 29_000_000 * 60_000;

  it('counts Remaining down to 0 and never below, Reset in seconds to the end of the minute window', () => {
    expect(rateLimitHeaders({ limit: 60, count: 1, now: minute })).toEqual({ 'ratelimit-limit': '60', 'ratelimit-remaining': '59', 'ratelimit-reset': '60' });
    expect(rateLimitHeaders({ limit: 60, count: 60, now: minute + 20_000 })).toMatchObject({ 'ratelimit-remaining': '0', 'ratelimit-reset': '40' });
    expect(rateLimitHeaders({ limit: 60, count: 61, now: minute + 59_999 })).toMatchObject({ 'ratelimit-remaining': '0', 'ratelimit-reset': '1' });
    expect(rateLimitHeaders({ limit: 60, count: 1, now: minute + 59_001 })).toMatchObject({ 'ratelimit-reset': '1' });
  });
});
