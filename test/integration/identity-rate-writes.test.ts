import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Local, startLocal } from '../support/local';
import { services } from '../support/operator';
import { count, rateCalls } from '../support/rate-calls';

/**
 * Integration, the engines' half of the rate limits (test/integration/identity-rate.test.ts is the behaviour, on
 * both backends): the shared counter's writes, counted on the raw table client as DynamoDB receives them (what
 * a request costs in write units).
 */
describe('rate limit counter writes', () => {
  let local: Local;
  const { burst, expectRefused, nextMinute } = rateCalls(() => local);

  beforeAll(async () => {
    local = await startLocal();
  });
  afterAll(() => local.close());

  it('writes the shared counter in batches, not once a request: 100 requests of a minute cost at most 6 counter writes', async () => {
    // Issue 15 point 6: the counter write was one write unit per API read. The function counts a caller's
    // requests and reserves places 20 at a time (a tenth of the premium limit, rate-meter.ts), exact near the limit.
    const u = await local.user({ plan: 'premium' });
    const headers = { authorization: `Bearer ${await local.session(u.id)}` };
    await nextMinute();
    let writes = 0;
    const ddb = services().ddb;
    const name = 'countRateWrites';
    ddb.middlewareStack.add(
      (next, context) => async (args) => {
        // The document client's input, marshalled or not by this step.
        const pk = (args.input as { Key?: { pk?: string | { S?: string } } }).Key?.pk;
        const key = typeof pk === 'string' ? pk : pk?.S;
        if (/^Update(Item)?Command$/.test(context.commandName ?? '') && key?.startsWith('RATE#')) writes++;
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 100; i++) statuses.push((await fetch(`${local.base}/api/v1/me`, { headers })).status);
      expect(count(statuses, 200)).toBe(100);
      expect(writes).toBeGreaterThan(0);
      expect(writes).toBeLessThanOrEqual(6);
      // The rest of the allowance, then the limit holds exactly.
      expect(count(await burst(502, '/api/v1/me', headers), 200)).toBe(500);
      await expectRefused('/api/v1/me', headers);
    } finally {
      ddb.middlewareStack.remove(name);
    }
  });
});
