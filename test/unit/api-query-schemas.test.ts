/**
 * The query schemas of the market reads and the small routes (spec api.md Query rules; Errors): text parsed
 * into numbers, defaults, and the route's 400 code with a short message for anything else.
 */
import { describe, expect, it } from 'vitest';
import { ContributionsQuery } from '../../shared/api/account.schemas';
import { LiveQuery } from '../../shared/api/environment.schemas';
import { BooksQuery } from '../../shared/api/market-books.schemas';
import { BatchCandlesQuery, HistoryQuery, ItemCandlesQuery, TableQuery } from '../../shared/api/market-reads.schemas';
import { parseAs } from '../../shared/api/zod-parse';
import { DomainError } from '../../shared/errors';
import { bookRange } from '../../shared/market/query-rules';

const failure = (f: () => unknown): { code: string; message: string } | null => {
  try {
    f();
    return null;
  } catch (e) {
    return e instanceof DomainError ? { code: e.code, message: e.message } : { code: 'thrown', message: String(e) };
  }
};
const q = (schema: Parameters<typeof parseAs>[0], query: Record<string, string>) => () => parseAs(schema, query, 'bad_query');

describe('query schemas', () => {
  it('parses non-negative integers of up to 16 digits that are safe integers, nothing else', () => {
    expect(parseAs(TableQuery, { since: '0' }, 'bad_query')).toEqual({ since: 0 });
    expect(parseAs(TableQuery, { since: '9007199254740991' }, 'bad_query')).toEqual({ since: 2 ** 53 - 1 });
    expect(parseAs(TableQuery, {}, 'bad_query')).toEqual({});
    for (const bad of ['', '-1', '01', '1.5', '1e3', ' 1', '9007199254740992', '12345678901234567']) {
      expect(failure(q(TableQuery, { since: bad })), bad).toMatchObject({ code: 'bad_query', message: expect.stringMatching(/^since: /) });
    }
  });

  it('defaults res to d1 and refuses anything but m1, h1, d1', () => {
    expect(parseAs(ItemCandlesQuery, {}, 'bad_query')).toEqual({ res: 'd1' });
    expect(parseAs(ItemCandlesQuery, { res: 'm1', from: '60000' }, 'bad_query')).toEqual({ res: 'm1', from: 60000 });
    for (const res of ['', 'D1', 'w1']) expect(failure(q(ItemCandlesQuery, { res }))).toEqual({ code: 'bad_query', message: 'res: must be m1, h1 or d1' });
    // res is checked before from, as the route always did.
    expect(failure(q(ItemCandlesQuery, { res: 'x', from: 'y' }))?.message).toMatch(/^res: /);
  });

  it('reads batch items as 1..50 distinct keys in request order', () => {
    expect(parseAs(BatchCandlesQuery, { items: '100,25,4294967321' }, 'bad_query').items).toEqual([100, 25, 4294967321]);
    const fifty = Array.from({ length: 50 }, (_, i) => i + 1).join(',');
    expect(parseAs(BatchCandlesQuery, { items: fifty }, 'bad_query').items).toHaveLength(50);
    for (const items of [`${fifty},51`, '', '25,25', '0', '25,,26', 'x', '2147483648'])
      expect(failure(q(BatchCandlesQuery, { items }))?.code, items).toBe('bad_query');
    expect(failure(q(BatchCandlesQuery, {}))?.code).toBe('bad_query');
  });

  it('books: from/to parsed, defaults the last 30 days and now, from > to refused', () => {
    const now = 100 * 86_400_000;
    expect(bookRange(now, parseAs(BooksQuery, {}, 'bad_query'))).toEqual({ from: now - 30 * 86_400_000, to: now });
    expect(bookRange(now, parseAs(BooksQuery, { from: '5', to: '5' }, 'bad_query'))).toEqual({ from: 5, to: 5 });
    expect(failure(() => bookRange(now, parseAs(BooksQuery, { from: String(now + 1) }, 'bad_query')))?.code).toBe('bad_query');
    expect(failure(q(BooksQuery, { to: 'soon' }))?.code).toBe('bad_query');
  });

  it('contributions accept a blank from (the default) and up to 16 digits; history a day number', () => {
    expect(parseAs(ContributionsQuery, { from: '' }, 'bad_query')).toEqual({ from: '' });
    expect(parseAs(ContributionsQuery, { from: '0001' }, 'bad_query')).toEqual({ from: '0001' });
    expect(failure(q(ContributionsQuery, { from: '-5' }))?.code).toBe('bad_query');
    expect(parseAs(HistoryQuery, { from: '20000' }, 'bad_query')).toEqual({ from: 20000 });
  });

  it('maps a missing or unknown live market to bad_market', () => {
    expect(parseAs(LiveQuery, { market: 'forever.rp.horde.us' }, 'bad_market')).toEqual({ market: 'forever.rp.horde.us' });
    for (const query of [{}, { market: 'forever.rp.horde.eu' }]) expect(failure(() => parseAs(LiveQuery, query, 'bad_market'))?.code).toBe('bad_market');
  });
});
