import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MINUTE_MS } from '../../shared/clock';
import { getObject } from '../../shared/items/bucket';
import { mergeBook } from '../../shared/market/merge-book';
import { storeBookFile } from '../../shared/upload/book-storage';
import { lambdaServices } from '../bench/lambda-services';
import { makeBook } from '../support/books';
import { type Local, startLocal } from '../support/local';

/**
 * Integration (issue 27 point 2): `merge.cpu_ms` times the merge on the merge Lambda's own production clients
 * reaching the engines directly, so the local AWS edge's side of each call (AWS's work on AWS) is not counted
 * as the Lambda's. That is only honest if it is the same merge: the same stored result as the merge through
 * the edge, and not one of its calls passing the edge.
 */
describe("the bench's merge on the Lambda's own clients", () => {
  let local: Local;
  beforeAll(async () => {
    local = await startLocal();
  });
  afterAll(() => local.close());

  /** Every call the edge has seen, by caller and action. */
  const calls = () => JSON.stringify([...local.runtime.awsMeter].map(([caller, m]) => [caller, [...m]]));

  it('stores what the merge through the local AWS edge stores, and none of its calls passes the edge', async () => {
    const edged = local.runtime.operator;
    const direct = lambdaServices(edged, { dynamodb: inject('dynamodbEndpoint'), s3: inject('s3Endpoint') });
    const at = (await local.now()) - 30 * MINUTE_MS;
    const markets = { edge: 'forever.normal.alliance.eu', direct: 'forever.normal.horde.eu' } as const;
    const outcomes: Record<string, unknown> = {};
    const stored: Record<string, unknown> = {};
    for (const [via, market] of Object.entries(markets)) {
      const svc = via === 'direct' ? direct : edged;
      for (const [i, book] of [makeBook(at, { market, keys: 300 }), makeBook(at + 10 * MINUTE_MS, { market, keys: 250, price: (k) => 500 + k })].entries()) {
        const bookPath = await storeBookFile(edged, book);
        const msg = {
          v: 1,
          kind: 'book',
          market,
          uploadId: `lambda-${via}-${i}`,
          bookPath,
          at: book.at,
          uploader: 'a1b2c3d4e5f60718',
          credited: true,
        } as const;
        const before = calls();
        const out = await mergeBook(svc, msg);
        if (via === 'direct') expect(calls()).toBe(before);
        else expect(calls()).not.toBe(before);
        outcomes[`${via}${i}`] = out;
      }
      const pages = edged.market.latest;
      const meta = await pages.meta(market);
      const [record] = await edged.market.merges.after(market, meta.seq - 1, await local.now());
      const change = await getObject(edged, record.changePath);
      stored[via] = {
        seq: meta.seq,
        rows: [...(await pages.rows(market))],
        candles: [...(await pages.candlePage(market, 'h1', Math.floor(at / (60 * MINUTE_MS))))],
        change: change ? (JSON.parse(gunzipSync(change.data).toString('utf8')) as { rows: unknown }).rows : null,
      };
    }
    expect(outcomes.direct0).toEqual(outcomes.edge0);
    expect(outcomes.direct1).toEqual(outcomes.edge1);
    expect((stored.direct as { change: unknown }).change).not.toBeNull();
    expect(stored.direct).toEqual(stored.edge);
  });
});
