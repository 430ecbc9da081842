import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, inject, it } from 'vitest';
import { StreamPoller } from '../../lib/local/background/stream-poller';
import { ensureTable } from '../../lib/local/engines/storage';

describe('local stream poller (DynamoDB Streams → Lambda contract)', () => {
  it('delivers INSERT, MODIFY and REMOVE records with keys and both images in the Lambda event shape', async () => {
    const endpoint = inject('dynamodbEndpoint');
    const raw = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    const doc = DynamoDBDocumentClient.from(raw);
    const table = `stream-${randomBytes(4).toString('hex')}`;
    await ensureTable(raw, table);
    const records: DynamoDBRecord[] = [];
    const poller = new StreamPoller(
      endpoint,
      raw,
      table,
      async (event) => {
        records.push(...event.Records);
      },
      100,
      [{ dynamodb: { Keys: { pk: { S: ['A'] } } } }],
      (err) => {
        throw err;
      },
    );
    await poller.init(true);

    await doc.send(new PutCommand({ TableName: table, Item: { pk: 'A', sk: '1', n: 1 } }));
    await doc.send(new UpdateCommand({ TableName: table, Key: { pk: 'A', sk: '1' }, UpdateExpression: 'SET n = :n', ExpressionAttributeValues: { ':n': 2 } }));
    await doc.send(new DeleteCommand({ TableName: table, Key: { pk: 'A', sk: '1' } }));
    await doc.send(new PutCommand({ TableName: table, Item: { pk: 'B', sk: '1', n: 1 } }));
    await poller.drain();

    // The record of pk B passes none of the mapping's filters: dropped, as Lambda drops it.
    expect(records.map((r) => r.eventName)).toEqual(['INSERT', 'MODIFY', 'REMOVE']);
    const [ins, mod, rem] = records;
    expect(ins.eventSource).toBe('aws:dynamodb');
    expect(ins.eventSourceARN).toMatch(/stream/);
    expect(ins.dynamodb?.Keys).toEqual({ pk: { S: 'A' }, sk: { S: '1' } });
    expect(ins.dynamodb?.NewImage).toEqual({ pk: { S: 'A' }, sk: { S: '1' }, n: { N: '1' } });
    expect(ins.dynamodb?.OldImage).toBeUndefined();
    expect(mod.dynamodb?.OldImage?.n).toEqual({ N: '1' });
    expect(mod.dynamodb?.NewImage?.n).toEqual({ N: '2' });
    expect(rem.dynamodb?.OldImage?.n).toEqual({ N: '2' });
    expect(rem.dynamodb?.NewImage).toBeUndefined();
    expect(ins.dynamodb?.StreamViewType).toBe('NEW_AND_OLD_IMAGES');
  });

  it('drops records that pass no filter, and a later record after them is delivered once', async () => {
    const endpoint = inject('dynamodbEndpoint');
    const raw = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    const doc = DynamoDBDocumentClient.from(raw);
    const table = `stream-${randomBytes(4).toString('hex')}`;
    await ensureTable(raw, table);
    const batches: string[][] = [];
    const poller = new StreamPoller(
      endpoint,
      raw,
      table,
      async (event) => {
        batches.push(event.Records.map((r) => r.dynamodb?.Keys?.pk?.S ?? ''));
      },
      100,
      [{ dynamodb: { Keys: { pk: { S: [{ prefix: 'KEEP#' }] } } } }],
      (err) => {
        throw err;
      },
    );
    await poller.init(true);
    for (let i = 0; i < 5; i++) await doc.send(new PutCommand({ TableName: table, Item: { pk: `RATE#${i}`, sk: '1' } }));
    await poller.drain();
    expect(batches).toEqual([]);
    await doc.send(new PutCommand({ TableName: table, Item: { pk: 'KEEP#1', sk: '1' } }));
    await doc.send(new PutCommand({ TableName: table, Item: { pk: 'RATE#9', sk: '1' } }));
    await poller.drain();
    await poller.drain();
    expect(batches).toEqual([['KEEP#1']]);
  });
});
