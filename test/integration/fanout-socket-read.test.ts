/**
 * Issue 27 point 4 (the fan-out's time): the fan-out's read of a market's sockets (`audiencesOf`) costs one
 * round trip's time, not one per hub listing and then one per hub: hub 0 is read alongside the list of hubs,
 * and a hub's partition is read by several Queries at once. Measured on DynamoDB Local as the number of
 * Queries in flight together; every socket is still listed once.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock';
import { DynamoConnections } from '../../shared/store/dynamo-connections';
import { freshTable } from '../support/engines';

const M = 'forever.normal.alliance.us';
const T0 = Date.UTC(2026, 10, 2, 12, 0, 0);

describe('the fan-out reads a market’s sockets at once (issue 27 point 4)', () => {
  it('runs the Queries of the hub list and of hub 0’s id ranges together', async () => {
    const table = await freshTable(new ManualClock(T0));
    let inFlight = 0;
    let most = 0;
    let queries = 0;
    const ddb = {
      send: async (cmd: { constructor: { name: string } }) => {
        if (cmd.constructor.name !== 'QueryCommand') return table.ddb.send(cmd as never);
        queries++;
        inFlight++;
        most = Math.max(most, inFlight);
        try {
          return await table.ddb.send(cmd as never);
        } finally {
          inFlight--;
        }
      },
    } as unknown as DynamoDBDocumentClient;
    const port = new DynamoConnections({ ...table, ddb });
    const ids = Array.from({ length: 64 }, (_, i) => `${'+/0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'[i]}${i}x=`);
    for (const id of ids)
      await port.add({
        connectionId: id,
        market: M,
        userId: `user_${id.length % 7}`,
        kind: 'session',
        claims: {},
        scopes: null,
        roles: ['free'],
        features: ['live'],
        historyDays: 7,
        validUntil: null,
        connectedAt: T0,
      });
    queries = 0;
    most = 0;
    const listed = await port.audiencesOf(M);
    expect(listed.map((c) => c.connectionId).sort()).toEqual([...ids].sort());
    // The hub list and hub 0's ranges, all in flight at once: one round trip's time.
    expect(queries).toBeGreaterThan(2);
    expect(most).toBe(queries);
  });
});
