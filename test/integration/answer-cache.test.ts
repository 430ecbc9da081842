import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VIEW_PK_PREFIX } from '../../shared/store/keys';
import { anonAddresses } from '../support/accounts';
import { type Local, startLocal } from '../support/local';
import { DAY, HOUR, MARKET, MINUTE, uploadAt, uploaderKey } from '../support/market-books';

/**
 * Issue 10 point 8: the hourly first answer is keyed on what its route reads, normalized, and the caller's
 * tier. Unknown, reordered or differently written parameters reuse the one stored answer; different
 * effective parameters get their own. Stored answers are counted in the table.
 */
describe('hourly answer cache keys', () => {
  let local: Local;
  let today: number;
  const anon = anonAddresses();
  const get = (path: string) => local.api('GET', path, { headers: anon() });

  /** Distinct stored answers (their head items) in the table. */
  const storedAnswers = async (): Promise<number> => {
    const svc = local.runtime.operator;
    const out = await svc.ddb.send(
      new ScanCommand({
        TableName: svc.config.tableName,
        FilterExpression: 'begins_with(pk, :p) AND sk = :head',
        ExpressionAttributeValues: { ':p': VIEW_PK_PREFIX, ':head': '0' },
      }),
    );
    return out.Items?.length ?? 0;
  };

  /** Every path answers 200 with one and the same body, and the table gains exactly `added` answers. */
  const sameAnswer = async (paths: string[], added: number) => {
    const before = await storedAnswers();
    const bodies: unknown[] = [];
    for (const path of paths) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      bodies.push(res.body);
      // Later spellings come later in the hour: a recomputed answer would carry another `now`.
      await local.advance(MINUTE);
    }
    for (const b of bodies) expect(b).toEqual(bodies[0]);
    expect(await storedAnswers()).toBe(before + added);
    return bodies[0];
  };

  beforeAll(async () => {
    local = await startLocal();
    const start = await local.now();
    const key = await uploaderKey(local);
    await uploadAt(local, key, start + 10 * MINUTE, [
      [2589, 100, 3],
      [2592, 200, 1],
    ]);
    await local.setClock(start + 2 * HOUR + 5 * MINUTE);
    await local.settle();
    today = Math.floor((await local.now()) / DAY);
  });
  afterAll(() => local.close());

  it('reuses one stored history answer for unknown, reordered and clamped equivalents of a from', async () => {
    const from = today - 3;
    const body = await sameAnswer(
      [
        `/api/v1/ah/${MARKET}/history?from=${from}`,
        `/api/v1/ah/${MARKET}/history?from=${from}&foo=1`,
        `/api/v1/ah/${MARKET}/history?foo=2&from=${from}`,
        `/api/v1/ah/${MARKET}/history?bar=${'x'.repeat(500)}&from=${from}&baz`,
      ],
      1,
    );
    expect(body).toMatchObject({ market: MARKET, from, live: false });
    // Any from before the caller's 7 days is served from the same first day: one answer.
    await sameAnswer(
      [`/api/v1/ah/${MARKET}/history?from=0`, `/api/v1/ah/${MARKET}/history?from=${today - 7}`, `/api/v1/ah/${MARKET}/history?from=${today - 50}&x=1`],
      1,
    );
  });

  it('reuses one stored item answer however the item key and the path are written', async () => {
    const body = await sameAnswer(
      [
        `/api/v1/ah/${MARKET}/2589`,
        `/api/v1/ah/${MARKET}/0002589`,
        `/api/v1/ah/${MARKET}/2589?x=1&y=2`,
        `/api/v1/ah/${encodeURIComponent(MARKET).replace(/\./g, '%2E')}/2589`,
      ],
      1,
    );
    expect(body).toMatchObject({ market: MARKET, item: 2589, live: false });
  });

  it('reuses one stored candle answer for every from naming the same window, res defaulting to d1', async () => {
    const dayStart = (today - 2) * DAY;
    await sameAnswer(
      [
        `/api/v1/ah/${MARKET}/2589/candles?from=${dayStart}`,
        `/api/v1/ah/${MARKET}/2589/candles?res=d1&from=${dayStart}`,
        `/api/v1/ah/${MARKET}/2589/candles?from=${dayStart - DAY + 1}&q=1`,
      ],
      1,
    );
  });

  it('keeps different effective parameters apart', async () => {
    const before = await storedAnswers();
    const paths = [
      `/api/v1/ah/${MARKET}/history?from=${today - 1}`,
      `/api/v1/ah/${MARKET}/history?from=${today - 2}`,
      `/api/v1/ah/${MARKET}/2592`,
      `/api/v1/ah/${MARKET}/2592/candles?res=h1`,
      `/api/v1/ah/${MARKET}/2592/candles?res=d1`,
    ];
    for (const p of paths) expect((await get(p)).status, p).toBe(200);
    expect(await storedAnswers()).toBe(before + paths.length);
    const h1 = await get(`/api/v1/ah/${MARKET}/2592/candles?res=h1`);
    const d1 = await get(`/api/v1/ah/${MARKET}/2592/candles?res=d1`);
    expect(h1.body.res).toBe('h1');
    expect(d1.body.res).toBe('d1');
  });
});
