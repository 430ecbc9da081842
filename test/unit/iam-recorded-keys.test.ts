import { describe, expect, it } from 'vitest';
import { dynamodbRequests, type LocalNames } from '../../lib/local/iam/calls';

const NAMES: LocalNames = {
  region: 'us-east-1',
  account: '000000000000',
  table: 't',
  bucket: 'b',
  work: 'w',
  filesPrefix: '',
  liveApiId: 'live',
  liveStage: 'dev',
};
const S = (v: string) => ({ S: v });
const keysOf = (command: string, input: Record<string, unknown>) =>
  dynamodbRequests(command, { TableName: 't', ...input }, NAMES).map((r) => [r.action, r.context?.['dynamodb:LeadingKeys'] ?? null]);

/**
 * Unit (issue 23 point 5): the recorder gives the IAM check each call's partition keys as DynamoDB gives them
 * to IAM (`dynamodb:LeadingKeys`), so a key family policy is judged on every keyed call; a Scan has none.
 */
describe('recorded DynamoDB calls', () => {
  it("records each call's partition keys: items, a Query's key condition, batches and transactions per item", () => {
    expect(keysOf('GetItemCommand', { Key: { pk: S('USER#1'), sk: S('PROFILE') } })).toEqual([['dynamodb:GetItem', ['USER#1']]]);
    expect(keysOf('PutItemCommand', { Item: { pk: S('CONN#c'), sk: S('CONN') } })).toEqual([['dynamodb:PutItem', ['CONN#c']]]);
    expect(
      keysOf('QueryCommand', {
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
        ExpressionAttributeValues: { ':pk': S('ALERTS#m'), ':p': S('u#') },
      }),
    ).toEqual([['dynamodb:Query', ['ALERTS#m']]]);
    expect(
      keysOf('QueryCommand', {
        KeyConditionExpression: 'sk > :sk AND #pk = :v',
        ExpressionAttributeNames: { '#pk': 'pk' },
        ExpressionAttributeValues: { ':v': S('MKT#m#seq'), ':sk': S('0') },
      }),
    ).toEqual([['dynamodb:Query', ['MKT#m#seq']]]);
    expect(
      keysOf('BatchGetItemCommand', {
        RequestItems: {
          t: {
            Keys: [
              { pk: S('CAT#01'), sk: S('1') },
              { pk: S('CAT#02'), sk: S('2') },
            ],
          },
        },
      }),
    ).toEqual([['dynamodb:BatchGetItem', ['CAT#01', 'CAT#02']]]);
    expect(
      keysOf('BatchWriteItemCommand', {
        RequestItems: { t: [{ PutRequest: { Item: { pk: S('VIEW#h'), sk: S('0') } } }, { DeleteRequest: { Key: { pk: S('LIVE#m'), sk: S('HUB#0001') } } }] },
      }),
    ).toEqual([['dynamodb:BatchWriteItem', ['VIEW#h', 'LIVE#m']]]);
    expect(
      keysOf('TransactWriteItemsCommand', {
        TransactItems: [
          { Put: { TableName: 't', Item: { pk: S('PAIR#p'), sk: S('PAIR') } } },
          { ConditionCheck: { TableName: 't', Key: { pk: S('PAIRCODE#c'), sk: S('CODE') } } },
        ],
      }),
    ).toEqual([
      ['dynamodb:PutItem', ['PAIR#p']],
      ['dynamodb:ConditionCheckItem', ['PAIRCODE#c']],
    ]);
    expect(keysOf('TransactGetItemsCommand', { TransactItems: [{ Get: { TableName: 't', Key: { pk: S('DEVTOK#h'), sk: S('TOKEN') } } }] })).toEqual([
      ['dynamodb:GetItem', ['DEVTOK#h']],
    ]);
    expect(keysOf('ScanCommand', {})).toEqual([['dynamodb:Scan', null]]);
  });
});
