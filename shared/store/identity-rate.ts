/**
 * DynamoDB adapter of per-caller request counters (one item per caller and window, gone after the window):
 * an unconditional count, and a reservation that adds only while the window is below a bound.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { MINUTE_MS } from '../clock';
import { ttlAt } from './identity-items';
import { ratePk, rateSk } from './keys';
import type { Table } from './table';
import { unlessLost, updateItem } from './writes';

/** The counter's item for the window holding `now`, kept a window past its end (it is keyed by window, so never read again). */
function counterItem(callerId: string, now: number, windowMs: number) {
  const window = Math.floor(now / windowMs);
  return { key: { pk: ratePk(callerId), sk: rateSk(window) }, ttl: ttlAt((window + 2) * windowMs) };
}

/** Counts `n` requests of a caller in the current minute (one atomic `ADD`); answers the minute's count so far. */
export async function countRequest(t: Table, callerId: string, now: number, n = 1): Promise<number> {
  const { key, ttl } = counterItem(callerId, now, MINUTE_MS);
  const out = await t.ddb.send(
    new UpdateCommand({
      TableName: t.name,
      Key: key,
      UpdateExpression: 'ADD n :n SET #ttl = if_not_exists(#ttl, :ttl)',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':n': n, ':ttl': ttl },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(out.Attributes?.n ?? n);
}

/**
 * Adds `n` to a counter's window (the minute by default) in one conditional `ADD`, only while its count is
 * below `below`; answers the new count, or null when the window was already at or past `below` (nothing added).
 */
export async function reserveCount(t: Table, callerId: string, now: number, n: number, below: number, windowMs = MINUTE_MS): Promise<number | null> {
  const { key, ttl } = counterItem(callerId, now, windowMs);
  const out = await unlessLost(
    updateItem(t, {
      Key: key,
      UpdateExpression: 'ADD n :n SET #ttl = if_not_exists(#ttl, :ttl)',
      ConditionExpression: 'attribute_not_exists(n) OR n < :below',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':n': n, ':ttl': ttl, ':below': below },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return out ? Number(out.Attributes?.n ?? n) : null;
}
