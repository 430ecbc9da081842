import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { CHANGE_STREAM_FILTERS as FANOUT_STREAM_FILTERS } from '../../shared/store/change-stream';
import { matchesPattern, passesFilters } from '../../shared/store/stream-filter';

/** A stream record as Lambda sees it, keys only (filters look at nothing else). */
const record = (eventName: 'INSERT' | 'MODIFY' | 'REMOVE', pk: string, sk: string): DynamoDBRecord => ({
  eventName,
  dynamodb: { Keys: { pk: { S: pk }, sk: { S: sk } }, NewImage: { pk: { S: pk }, sk: { S: sk } } },
});
const passes = (r: DynamoDBRecord) => passesFilters(r, FANOUT_STREAM_FILTERS);

describe('the fan-out stream filters', () => {
  // Written from the fan-out's own rules (shared/live/fanout.ts), with literal keys, not the key builders.
  it.each([
    ['a new socket (hello)', record('INSERT', 'LIVEC#forever.pvp.horde.us#0003', 'conn-1')],
    ['a merge record (ah)', record('INSERT', 'MKT#forever.rp.alliance.us#seq', '000000000042')],
    ['a file state (sealed)', record('MODIFY', 'FILES#forever.normal.horde.us', 'STATE')],
    ['a fired alert', record('INSERT', 'ALERTFIRED#forever.normal.alliance.us', '000001700000000#user_1#a1')],
    ['a profile change (role)', record('MODIFY', 'USER#user_1', 'PROFILE')],
    ['a deleted device', record('REMOVE', 'USER#user_1', 'DEVICE#dev_1')],
  ])('delivers %s', (_, r) => {
    expect(passes(r)).toBe(true);
  });

  it.each([
    ['a rate counter (every API read writes one)', record('MODIFY', 'RATE#ip:203.0.113.0', '28333333')],
    ['market meta and pages', record('MODIFY', 'MKT#forever.rp.alliance.us', 'META')],
    ['a market row page', record('INSERT', 'MKT#forever.rp.alliance.us#r#007', 'P')],
    ['a merge record of no market', record('INSERT', 'MKT#forever.rp.nowhere.us#seq', '000000000042')],
    ['a file state of another kind', record('MODIFY', 'FILES#forever.normal.horde.us', 'OTHER')],
    ['an account contribution', record('INSERT', 'USER#user_1', 'CONTRIB#000001700000000#b1')],
    ['a cached API key verdict', record('INSERT', 'APIKEY#ab12', 'VERIFY')],
    ['a connection pointer', record('INSERT', 'CONN#c1', 'CONN')],
  ])('drops %s', (_, r) => {
    expect(passes(r)).toBe(false);
  });

  it('evaluates patterns as Lambda does: every field must match, a list matches when any element does', () => {
    const pattern = { dynamodb: { Keys: { pk: { S: ['A', { prefix: 'P#' }] }, sk: { S: ['X'] } } } };
    expect(matchesPattern(record('INSERT', 'A', 'X'), pattern)).toBe(true);
    expect(matchesPattern(record('INSERT', 'P#1', 'X'), pattern)).toBe(true);
    expect(matchesPattern(record('INSERT', 'P#1', 'Y'), pattern)).toBe(false);
    expect(matchesPattern(record('INSERT', 'B', 'X'), pattern)).toBe(false);
    expect(matchesPattern({ dynamodb: { Keys: { pk: { N: '1' } } } }, pattern)).toBe(false);
    expect(matchesPattern(null, pattern)).toBe(false);
  });
});
