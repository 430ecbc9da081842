import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, BatchWriteCommand, DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { type AwsClientStub, mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureTable } from '../../lib/local/engines/storage';
import { decodeHistoryParts } from '../../shared/page-format/history-parts';
import { encodeHistory } from '../../shared/page-format/page-codec';
import { HISTORY_SHARDS, shardOf } from '../../shared/page-format/shard-layout';
import type { HistoryPage } from '../../shared/ports/market';
import { historyPk, shardSk } from '../../shared/store/keys';
import { MarketStore } from '../../shared/store/market-store';
import { variantHistory, variantKeys } from '../support/many-variants';

/**
 * Split history shards under interleaved writes and reads, on DynamoDB Local: a write landing between a
 * reader's head and its parts, a write that dies between its parts and its head, and an old single-item shard.
 * The interleavings are real writes through a second store, run at the moment the reader's client sends.
 */
const DAY = 20_400;
const KEYS = variantKeys(800);
const SHARD = shardOf(KEYS[0], HISTORY_SHARDS);

describe('split history shards under interleavings', () => {
  let raw: DynamoDBClient;
  let ddb: DynamoDBDocumentClient;
  let table: string;
  // Two contents of the one shard, both past the item limit (different seeds: different bytes).
  const first = variantHistory(KEYS, DAY, 89, 1);
  const second = variantHistory(KEYS, DAY, 89, 2);
  const closeOf = (page: HistoryPage, key: number) => page.get(DAY)?.candles.get(key)?.close;

  const mocks: Array<AwsClientStub<DynamoDBDocumentClient>> = [];
  afterEach(() => {
    for (const m of mocks.splice(0)) m.restore();
  });
  /**
   * A store on a document client of its own (aws-sdk-client-mock): every command the store sends goes through to
   * DynamoDB Local, except as `arrange` says (what no engine does by itself: a crash between two writes, a write
   * landing between two reads). A command `arrange` sets again replaces its pass-through: it says what follows.
   */
  const storeWith = (arrange: (mock: AwsClientStub<DynamoDBDocumentClient>, through: (command: object) => Promise<never>) => void): MarketStore => {
    const own = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
    const mock = mockClient(own);
    mocks.push(mock);
    const through = (command: object) => ddb.send(command as never) as Promise<never>;
    mock.on(GetCommand).callsFake((input) => through(new GetCommand(input)));
    mock.on(BatchGetCommand).callsFake((input) => through(new BatchGetCommand(input)));
    mock.on(QueryCommand).callsFake((input) => through(new QueryCommand(input)));
    mock.on(PutCommand).callsFake((input) => through(new PutCommand(input)));
    mock.on(BatchWriteCommand).callsFake((input) => through(new BatchWriteCommand(input)));
    mock.on(DeleteCommand).callsFake((input) => through(new DeleteCommand(input)));
    arrange(mock, through);
    return new MarketStore(own, table);
  };
  const partItems = async (market: string) => {
    const got = await ddb.send(
      new QueryCommand({ TableName: table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': historyPk(market) }, ConsistentRead: true }),
    );
    return (got.Items ?? []).map((i) => String(i.sk)).filter((sk) => sk.includes('#'));
  };

  beforeAll(async () => {
    table = `hist-races-${randomBytes(4).toString('hex')}`;
    raw = new DynamoDBClient({
      region: 'us-east-1',
      endpoint: inject('dynamodbEndpoint'),
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    await ensureTable(raw, table);
    ddb = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
  });

  it('a reader whose parts were replaced after it read the head answers the newer write whole', async () => {
    const M = 'forever.normal.horde.us';
    const writer = new MarketStore(ddb, table);
    await writer.writeHistories(M, new Map([[SHARD, first]]));
    expect(closeOf(await writer.historyOf(M, KEYS[799]), KEYS[799])).toBe(closeOf(first, KEYS[799]));
    // The reader reads the head of `first`; before it fetches the parts, `second` replaces the shard.
    const reader = storeWith((mock, through) =>
      mock
        .on(BatchGetCommand)
        .callsFakeOnce(async (input) => {
          await writer.writeHistories(M, new Map([[SHARD, second]]));
          return through(new BatchGetCommand(input));
        })
        .callsFake((input) => through(new BatchGetCommand(input))),
    );
    const read = await reader.historyOf(M, KEYS[799]);
    expect(closeOf(read, KEYS[799])).toBe(closeOf(second, KEYS[799]));
    expect(read.get(DAY)?.candles.get(KEYS[799])).toEqual(second.get(DAY)?.candles.get(KEYS[799]));
    // The whole-shard read agrees, and only the newer write's parts are left.
    const whole = (await writer.histories(M)).get(SHARD) as HistoryPage;
    expect(whole.get(DAY)?.candles).toEqual(second.get(DAY)?.candles);
    const parts = await partItems(M);
    expect(parts.length).toBeGreaterThan(0);
    expect(new Set(parts.map((sk) => sk.split('#')[1])).size).toBe(1);
  }, 120_000);

  it('a write that dies between its parts and its head leaves the old shard readable; its retry adopts the parts', async () => {
    const M = 'forever.normal.alliance.eu';
    const writer = new MarketStore(ddb, table);
    await writer.writeHistories(M, new Map([[SHARD, first]]));
    const dying = storeWith((mock) => mock.on(PutCommand).rejects(new Error('crashed before the head')));
    await expect(dying.writeHistories(M, new Map([[SHARD, second]]))).rejects.toThrow('crashed before the head');
    expect((await writer.historyOf(M, KEYS[0])).get(DAY)?.candles.get(KEYS[0])).toEqual(first.get(DAY)?.candles.get(KEYS[0]));
    expect(closeOf((await writer.histories(M)).get(SHARD) as HistoryPage, KEYS[799])).toBe(closeOf(first, KEYS[799]));
    // The retry writes the same content: the same generation, so no part is left behind.
    await writer.writeHistories(M, new Map([[SHARD, second]]));
    expect((await writer.historyOf(M, KEYS[0])).get(DAY)?.candles.get(KEYS[0])).toEqual(second.get(DAY)?.candles.get(KEYS[0]));
    const parts = await partItems(M);
    expect(new Set(parts.map((sk) => sk.split('#')[1])).size).toBe(1);
  }, 120_000);

  it('reads an old single-item shard, and splits it on the next write', async () => {
    const M = 'forever.pvp.alliance.us';
    const small = variantHistory(KEYS.slice(0, 20), DAY, 30, 3);
    await ddb.send(new PutCommand({ TableName: table, Item: { pk: historyPk(M), sk: shardSk(SHARD), d: encodeHistory(small, HISTORY_SHARDS) } }));
    const store = new MarketStore(ddb, table);
    expect((await store.historyOf(M, KEYS[5])).get(DAY)?.candles.get(KEYS[5])).toEqual(small.get(DAY)?.candles.get(KEYS[5]));
    expect((await store.histories(M)).get(SHARD)?.size).toBe(30);
    await store.writeHistories(M, new Map([[SHARD, first]]));
    expect((await partItems(M)).length).toBeGreaterThan(0);
    expect(closeOf(await store.historyOf(M, KEYS[5]), KEYS[5])).toBe(closeOf(first, KEYS[5]));
  }, 120_000);

  it('answers a split shard’s stored bytes whole: every part, decoding to the page the whole-shard read gives', async () => {
    const M = 'forever.pvp.horde.eu';
    const store = new MarketStore(ddb, table);
    expect(await store.historyShardBytes(M, SHARD)).toEqual([]);
    await store.writeHistories(M, new Map([[SHARD, first]]));
    const stored = await store.historyShardBytes(M, SHARD);
    expect(stored.length).toBe((await partItems(M)).length);
    expect(stored.length).toBeGreaterThan(1);
    expect(decodeHistoryParts(stored)).toEqual((await store.histories(M)).get(SHARD));
  }, 120_000);
});
