/**
 * The table stream's decoder on records no engine writes (issue 25 point 2): what the contract suite cannot
 * make DynamoDB Local produce. A record that cannot be read is skipped and told, the rest of its batch still
 * decoded (a batch that throws would be retried until it expires, holding every later notice back); an empty
 * attribute value some stream readers emit reads as null; a record no filter lets through is no event.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { decodeChangeRecords } from '../../shared/store/change-stream';

const M = 'forever.normal.alliance.us';

const record = (eventName: 'INSERT' | 'MODIFY' | 'REMOVE', pk: string, sk: string, next?: object, prev?: object): DynamoDBRecord => ({
  eventName,
  dynamodb: {
    Keys: { pk: { S: pk }, sk: { S: sk } },
    ...(next ? { NewImage: { pk: { S: pk }, sk: { S: sk }, ...next } } : {}),
    ...(prev ? { OldImage: { pk: { S: pk }, sk: { S: sk }, ...prev } } : {}),
  } as DynamoDBRecord['dynamodb'],
});

const mergeImage = (seq: number) => ({
  market: { S: M },
  seq: { N: String(seq) },
  at: { N: '1000' },
  mergedAt: { N: '1000' },
  changePath: { S: `live/v1/${M}/${seq}-A.json.gz` },
  ttl: { N: '99' },
});

describe('the change stream decoder', () => {
  it('skips an unreadable record, tells of it, and decodes the rest of the batch', () => {
    const told: unknown[] = [];
    const events = decodeChangeRecords(
      [record('INSERT', `MKT#${M}#seq`, '000000000001', { market: { Z: 'no such type' } }), record('INSERT', `MKT#${M}#seq`, '000000000002', mergeImage(2))],
      (err) => told.push(err),
    );
    expect(told).toHaveLength(1);
    expect(events).toEqual([{ type: 'merged', record: { market: M, seq: 2, at: 1000, mergedAt: 1000, changePath: `live/v1/${M}/2-A.json.gz` } }]);
  });

  it('reads an empty attribute value as null', () => {
    const [event] = decodeChangeRecords([
      record('MODIFY', 'USER#user_1', 'PROFILE', { claims: { M: { plan: {}, grants: { L: [{ S: 'books' }] } } }, windowUntil: {} }, {}),
    ]);
    expect(event).toEqual({
      type: 'profile-changed',
      userId: 'user_1',
      claims: { plan: null, contributorUntil: null, grants: ['books'], withhold: [] },
      windowUntil: null,
    });
  });

  it('makes no event of records no filter lets through, nor of the wrong kind of write to one it does', () => {
    expect(
      decodeChangeRecords([
        record('INSERT', 'RATE#ip:203.0.113.0', '28333333', { n: { N: '1' } }),
        record('INSERT', `MKT#${M}`, 'META', { seq: { N: '3' } }),
        record('INSERT', 'CONN#c1', 'CONN', { market: { S: M } }),
        record('MODIFY', `MKT#${M}#seq`, '000000000002', mergeImage(2), mergeImage(2)),
        record('REMOVE', `FILES#${M}`, 'STATE', undefined, { m1: { N: '5' } }),
        record('INSERT', 'USER#user_1', 'DEVICE#dev_1', { id: { S: 'dev_1' } }),
        record('REMOVE', 'USER#user_1', 'PROFILE', undefined, { windowUntil: { N: '5' } }),
      ]),
    ).toEqual([]);
  });
});
