/**
 * Issue 25 point 4: the memory mode has no local DynamoDB endpoint, yet its gateway is the local runtime's, which
 * keeps a socket open as long as its client does (API Gateway closes it at 2 hours). The configuration says so in
 * `localGateway` (LOCAL_GATEWAY=on, or implied by a local DynamoDB endpoint); the live sweep reads it there. On
 * main the sweep read the endpoint, so on the memory mode it forgot every socket older than 2 hours.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock';
import { sweepSockets } from '../../shared/live/socket';
import { memoryConfig, memoryServices } from '../../shared/store/memory/services';

const T0 = Date.UTC(2026, 10, 2, 12, 0, 0);
const HOUR = 3_600_000;

async function sweepAfter(overrides: Record<string, string>, hours: number) {
  const clock = new ManualClock(T0);
  const svc = memoryServices(clock, memoryConfig(overrides), () => undefined);
  svc.sockets.connect('c1');
  await svc.connections.add({
    connectionId: 'c1',
    market: 'forever.normal.alliance.us',
    userId: 'user_1',
    kind: 'device',
    claims: { plan: 'free', contributorUntil: null, grants: [], withhold: [] },
    scopes: null,
    roles: ['free'],
    features: ['live'],
    historyDays: 7,
    validUntil: null,
    connectedAt: T0,
  });
  clock.advance(hours * HOUR);
  const counts = await sweepSockets(svc);
  return { gone: counts.gone, stored: await svc.connections.get('c1') };
}

describe("the live sweep and the local runtime's gateway", () => {
  it('reads the local gateway from LOCAL_GATEWAY=on or a local DynamoDB endpoint, and AWS otherwise', () => {
    expect(memoryConfig().localGateway).toBe(false);
    expect(memoryConfig({ LOCAL_GATEWAY: 'on' }).localGateway).toBe(true);
    expect(memoryConfig({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' }).localGateway).toBe(true);
    expect(() => memoryConfig({ LOCAL_GATEWAY: 'yes' })).toThrow();
  });

  it("forgets a socket past API Gateway's 2 hours on AWS, and keeps it on the local gateway with no DynamoDB endpoint (the memory mode)", async () => {
    const aws = await sweepAfter({}, 3);
    expect(aws.gone).toBe(1);
    expect(aws.stored).toBeNull();
    const local = await sweepAfter({ LOCAL_GATEWAY: 'on' }, 3);
    expect(local.gone).toBe(0);
    expect(local.stored).not.toBeNull();
  });
});
