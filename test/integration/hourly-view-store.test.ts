import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureTable } from '../../lib/local/engines/storage';
import type { OperatorServices } from '../../lib/local/functions/operator';
import { DAY_MS, HOUR_MS, ManualClock } from '../../shared/clock';
import { type Candle, type CandleRes, foldCandles } from '../../shared/domain/candles';
import type { ScanItem } from '../../shared/domain/derived-scan';
import { reuseHourly } from '../../shared/http/answer-cache';
import { daySoFar } from '../../shared/market/day-so-far';
import { compactHistories, historyMark } from '../../shared/market/history-compaction';
import { itemAsOf, tableAsOf } from '../../shared/market/hourly-view';
import { itemsDays } from '../../shared/market/item-read';
import { readSources } from '../../shared/market/sources';
import type { MarketPages } from '../../shared/ports/market';
import { dynamoMarket } from '../../shared/store/dynamo-market';
import { daySoFarPk, shardSk } from '../../shared/store/keys';
import { MarketStore } from '../../shared/store/market-store';
import { type FillTarget, mergeDirect } from '../support/market-fill';

/** The hourly view, its stored day-so-far folds, compaction and the answer cache against DynamoDB Local. */
const M = 'forever.pvp.horde.us';
const D = 20_400;
const H = (h: number, m = 0) => D * DAY_MS + h * HOUR_MS + m * 60_000;
// Keys in different page shards (key mod 16) and one pet key.
const A = 2589;
const B = 2590;
const C = 2591 + 2147483648 * 70000;

describe('hourly view over the store', () => {
  const clock = new ManualClock(H(0));
  let svc: OperatorServices;
  let fill: FillTarget;
  const at = async (t: number, items: ScanItem[], complete = true) => {
    clock.set(t);
    await mergeDirect(fill, M, { at: t, complete, items }, t);
  };

  beforeAll(async () => {
    const table = `reads-unit-${randomBytes(4).toString('hex')}`;
    const raw = new DynamoDBClient({
      region: 'us-east-1',
      endpoint: inject('dynamodbEndpoint'),
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    await ensureTable(raw, table);
    const ddb = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
    svc = { ddb, clock, config: { tableName: table }, log: () => undefined, market: dynamoMarket({ ddb, name: table, clock }) } as unknown as OperatorServices;
    fill = { ddb, table, clock };
    await at(H(-30), [[A, 50, 1]]);
    await at(H(-20), [
      [A, 55, 2],
      [B, 70, 1],
    ]);
    await at(H(1, 10), [
      [A, 60, 3],
      [B, 80, 2],
      [C, 900, 1],
    ]);
    await at(H(2, 10), [
      [A, 40, 1],
      [B, 75, 2],
    ]);
    await at(H(3, 10), [
      [A, 45, 4],
      [C, 950, 1],
    ]);
  });

  const foldOfHours = async (key: number, from: number, to: number): Promise<Candle | undefined> => {
    const store = new MarketStore(svc.ddb, svc.config.tableName);
    const pages = await store.candlesOf(
      M,
      'h1',
      Array.from({ length: to - from }, (_, i) => from + i),
      [key],
    );
    const list = [...pages].sort((a, b) => a[0] - b[0]).flatMap(([, p]) => (p.get(key) ? [p.get(key) as Candle] : []));
    return foldCandles(list);
  };

  it('folds the day so far from the hour pages before the cut, stores it, and grows it hour by hour', async () => {
    const src = readSources(svc);
    const at3 = await daySoFar(src, M, H(3));
    expect(at3.get(A)).toEqual(await foldOfHours(A, D * 24, D * 24 + 3));
    expect(at3.get(A)).toMatchObject({ open: 60, high: 60, low: 40, close: 40, quantity: 1 });
    const stored = await svc.ddb.send(new GetCommand({ TableName: svc.config.tableName, Key: { pk: daySoFarPk(M, D * 24 + 3), sk: shardSk(A % 16) } }));
    expect(stored.Item?.seq).toBe(5);
    const at4 = await daySoFar(src, M, H(4));
    expect(at4.get(A)).toEqual(await foldOfHours(A, D * 24, D * 24 + 4));
    expect(at4.get(C)).toMatchObject({ open: 900, close: 950, quantity: 1 });
    // The 05:00 fold is the 04:00 fold plus hour 4's page: no earlier hour page is read again.
    const asked: string[] = [];
    const pages = src.store;
    const spied: MarketPages = Object.assign(Object.create(pages) as MarketPages, {
      candleShards: (market: string, res: CandleRes, wanted: ReadonlyArray<{ period: number; shard: number }>) => {
        asked.push(...wanted.map((w) => `${res}#${w.period}`));
        return pages.candleShards(market, res, wanted);
      },
    });
    const at5 = await daySoFar({ ...src, store: spied }, M, H(5));
    expect(at5.get(A)).toEqual(await foldOfHours(A, D * 24, D * 24 + 5));
    expect(new Set(asked.filter((p) => p.startsWith('h1#')))).toEqual(new Set([`h1#${D * 24 + 4}`]));
    expect(await daySoFar(src, M, H(0))).toEqual(new Map());
  });

  it('rebuilds a stored fold once a book read before its cut is merged late', async () => {
    const src = readSources(svc);
    await daySoFar(src, M, H(4));
    // A book observed at 01:30, merged at 04:20: the 04:00 fold no longer holds every reading before 04:00.
    clock.set(H(4, 20));
    await mergeDirect(fill, M, { at: H(1, 30), complete: false, items: [[A, 20, 9]] }, H(4, 20));
    const again = await daySoFar(readSources(svc), M, H(4));
    expect(again.get(A)).toMatchObject({ low: 20, close: 45 });
  });

  it('answers every key alike through the single-item and the whole-market paths', async () => {
    clock.set(H(4, 30));
    await at(H(4, 30), [[B, 85, 3]]);
    for (const cut of [H(2), H(3), H(4), H(5)]) {
      const table = await tableAsOf(readSources(svc), M, cut);
      for (const key of [A, B, C, 4444]) {
        const one = await itemAsOf(readSources(svc), M, key, cut, D - 7, false);
        expect(one.row, `${key} at ${cut}`).toEqual(table.rows.get(key) ?? null);
      }
    }
    // As of 05:00 A was marked gone by the complete 04:30 book; as of 04:00 it shows the 03:10 reading.
    expect((await tableAsOf(readSources(svc), M, H(5))).rows.get(A)).toEqual([A, null, 0, H(4, 30)]);
    expect((await tableAsOf(readSources(svc), M, H(4))).rows.get(A)).toEqual([A, 45, 4, H(3, 10)]);
  });

  it('answers an item read after the cut from the day before in the first hour of a day', async () => {
    clock.set(H(24, 20));
    await at(H(24, 20), [
      [A, 30, 1],
      [B, 90, 1],
      [C, 990, 2],
    ]);
    expect((await itemAsOf(readSources(svc), M, B, H(24), D - 6, false)).row).toEqual([B, 85, 3, H(4, 30)]);
    // C's last listing (03:10) was followed by the complete 04:30 book without it: gone as of the cut.
    const one = await itemAsOf(readSources(svc), M, C, H(24), D - 6, false);
    expect(one.row).toEqual([C, null, 0, H(4, 30)]);
    expect(one.days.candles.get(D)).toMatchObject({ open: 900, close: 950 });
    expect(one.days.candles.has(D + 1)).toBe(false);
  });

  it('compacts final days into history once, and reads the same days afterwards', async () => {
    clock.set(H(72, 30));
    const before = await itemsDays(readSources(svc), M, [A, B, C], D - 5, D + 3, true);
    const result = await compactHistories(svc, M, D + 3);
    // Day D+2 may still receive a book observed up to 24 hours before it arrives: only D+1 and earlier are final.
    // The first day folded is the day before the first merge's (its book may have been read a day earlier).
    expect(result).toEqual({ through: D + 1, days: [D - 3, D - 2, D - 1, D, D + 1] });
    expect(await historyMark(readSources(svc), M)).toBe(D + 1);
    expect(await compactHistories(svc, M, D + 3)).toEqual({ through: D + 1, days: [] });
    const after = await itemsDays(readSources(svc), M, [A, B, C], D - 5, D + 3, true);
    expect(after).toEqual(before);
    expect(after.get(A)?.candles.get(D - 2)).toMatchObject({ close: 50 });
    const store = new MarketStore(svc.ddb, svc.config.tableName);
    expect((await store.historyOf(M, A)).get(D)?.candles.get(A)).toMatchObject({ low: 20, close: 45 });
  });

  it('reuses the first answer of the hour, chunked past the item size limit, and not in the next hour', async () => {
    clock.set(H(80, 10));
    const big = { text: randomBytes(600_000).toString('base64') };
    let computed = 0;
    const key = { route: 'history', params: ['x', 1], restriction: 'h7' };
    const first = await reuseHourly(svc, key, async () => {
      computed++;
      return big;
    });
    clock.set(H(80, 50));
    const second = await reuseHourly(svc, key, async () => {
      computed++;
      return { other: true };
    });
    expect(computed).toBe(1);
    expect(JSON.parse(second.body as string)).toEqual(big);
    expect(first.headers).toMatchObject({ 'cache-control': 'public, max-age=3000' });
    expect(second.headers).toMatchObject({ 'cache-control': 'public, max-age=600', vary: 'Authorization, Cookie' });
    const otherTier = await reuseHourly(svc, { ...key, restriction: 'h90+depth+books' }, async () => {
      computed++;
      return { tier: 2 };
    });
    expect(JSON.parse(otherTier.body as string)).toEqual({ tier: 2 });
    clock.set(H(81, 1));
    const nextHour = await reuseHourly(svc, key, async () => {
      computed++;
      return { hour: 81 };
    });
    expect(JSON.parse(nextHour.body as string)).toEqual({ hour: 81 });
    expect(computed).toBe(3);
  });
});
