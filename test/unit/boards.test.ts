import { describe, expect, it } from 'vitest';
import { BoardsDocument } from '../../shared/api/settings.schemas';
import { parseAs } from '../../shared/api/zod-parse';
import { BOARDS_LIMITS, checkBoardsLimits, storedBytes } from '../../shared/domain/boards';
import { DomainError } from '../../shared/errors';

/** What PUT /market/boards does with a body: the schema's shape rules (400), then the limits (409, 413). */
const parseBoards = (raw: unknown) => checkBoardsLimits(parseAs(BoardsDocument, raw, 'bad_request'));

const widget = (id: string, extra: Record<string, unknown> = {}) => ({ id, type: 'price_chart', ...extra });
const board = (id: string, widgets: unknown[] = [widget('w1')]) => ({ id, name: `Board ${id}`, widgets });
const screen = (id: string) => ({ id, name: `Screen ${id}`, filters: { q: 'ore' } });
const doc = (over: Record<string, unknown> = {}) => ({ dashboards: [board('main')], screens: [screen('s1')], ...over });

const failure = (raw: unknown): { code: string; extra: Record<string, unknown> } | null => {
  try {
    parseBoards(raw);
    return null;
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    return { code: err.code, extra: err.extra };
  }
};

describe('boards document rules', () => {
  it('keeps a valid document, widget fields included', () => {
    const d = doc({ dashboards: [board('main', [widget('w1', { item: 2589, span: [2, 3], opts: { log: true } })])] });
    expect(parseBoards(d)).toEqual(d);
  });

  it('drops fields the document does not define on boards and screens', () => {
    const out = parseBoards({ dashboards: [{ ...board('a'), color: 'red' }], screens: [{ ...screen('s'), pinned: true }], extra: 1 });
    expect(out).toEqual({ dashboards: [board('a')], screens: [screen('s')] });
  });

  it('accepts ids of 1 and 40 characters of A-Za-z0-9_- and names of 1 and 60 characters', () => {
    const id40 = 'aZ09_-'.repeat(7).slice(0, 40);
    expect(
      parseBoards(
        doc({
          dashboards: [
            { id: 'x', name: 'n', widgets: [] },
            { id: id40, name: 'é'.repeat(60), widgets: [] },
          ],
        }),
      ).dashboards,
    ).toHaveLength(2);
  });

  it.each([
    ['an empty id', doc({ dashboards: [board('')] })],
    ['a 41-character id', doc({ dashboards: [board('a'.repeat(41))] })],
    ['a bad id character', doc({ dashboards: [board('a.b')] })],
    ['duplicate dashboard ids', doc({ dashboards: [board('a'), board('a')] })],
    ['duplicate screen ids', doc({ screens: [screen('s'), screen('s')] })],
    ['an empty name', doc({ dashboards: [{ id: 'a', name: '', widgets: [] }] })],
    ['a 61-character name', doc({ dashboards: [{ id: 'a', name: 'n'.repeat(61), widgets: [] }] })],
    ['a widget without a type', doc({ dashboards: [board('a', [{ id: 'w' }])] })],
    ['an upper-case widget type', doc({ dashboards: [board('a', [{ id: 'w', type: 'Chart' }])] })],
    ['a 33-character widget type', doc({ dashboards: [board('a', [{ id: 'w', type: 'a'.repeat(33) }])] })],
    ['a bad widget id', doc({ dashboards: [board('a', [{ id: 'w w', type: 'chart' }])] })],
    ['duplicate widget ids on one board', doc({ dashboards: [board('a', [widget('w'), widget('w')])] })],
    ['a widget that is not an object', doc({ dashboards: [board('a', [[1]])] })],
    ['missing widgets', doc({ dashboards: [{ id: 'a', name: 'A' }] })],
    ['screen filters that are not an object', doc({ screens: [{ id: 's', name: 'S', filters: [] }] })],
    [
      '25 widgets on a board',
      doc({
        dashboards: [
          board(
            'a',
            Array.from({ length: 25 }, (_, i) => widget(`w${i}`)),
          ),
        ],
      }),
    ],
    ['no screens list', { dashboards: [] }],
    ['not an object', [1]],
  ])('answers 400 bad_request for %s', (_, raw) => {
    expect(failure(raw)?.code).toBe('bad_request');
  });

  it('lets the same widget id appear on different boards, and 24 widgets on one board', () => {
    const w24 = Array.from({ length: 24 }, (_, i) => widget(`w${i}`));
    expect(parseBoards(doc({ dashboards: [board('a', w24), board('b', w24)] })).dashboards[0].widgets).toHaveLength(24);
  });

  it('answers 409 too_many with limit above 20 dashboards or 50 screens', () => {
    const boards = (n: number) => Array.from({ length: n }, (_, i) => board(`b${i}`, []));
    const screens = (n: number) => Array.from({ length: n }, (_, i) => screen(`s${i}`));
    expect(failure(doc({ dashboards: boards(20), screens: screens(50) }))).toBeNull();
    expect(failure(doc({ dashboards: boards(21) }))).toEqual({ code: 'too_many', extra: { limit: 20 } });
    expect(failure(doc({ screens: screens(51) }))).toEqual({ code: 'too_many', extra: { limit: 50 } });
  });

  it('checks body rules before counts, and counts before size', () => {
    const many = Array.from({ length: 21 }, (_, i) => board(`b${i}`, []));
    expect(failure(doc({ dashboards: [...many, board('bad id')] }))?.code).toBe('bad_request');
    const huge = Array.from({ length: 21 }, (_, i) => board(`b${i}`, [widget('w', { blob: 'x'.repeat(4000) })]));
    expect(failure(doc({ dashboards: huge }))?.code).toBe('too_many');
  });

  it('accepts a stored document of exactly 65536 bytes and answers 413 too_large one byte above', () => {
    const sized = (n: number) => doc({ dashboards: [board('a', [widget('w', { blob: 'x'.repeat(n) })])] });
    const overhead = storedBytes(sized(0));
    const exact = sized(BOARDS_LIMITS.bytes - overhead);
    expect(storedBytes(exact)).toBe(65536);
    expect(failure(exact)).toBeNull();
    expect(failure(sized(BOARDS_LIMITS.bytes - overhead + 1))?.code).toBe('too_large');
  });

  it('measures the stored size in UTF-8 bytes', () => {
    expect(storedBytes({ dashboards: [{ id: 'a', name: 'é', widgets: [] }], screens: [] })).toBe(
      Buffer.byteLength(JSON.stringify({ dashboards: [{ id: 'a', name: 'é', widgets: [] }], screens: [] })),
    );
  });
});
