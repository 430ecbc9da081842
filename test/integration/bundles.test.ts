import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Local, startLocal } from '../support/local';

describe('bundles smoke', () => {
  let local: Local;
  beforeAll(async () => {
    local = await startLocal({ bundles: true });
  });
  afterAll(() => local?.close());

  it('answers config', async () => {
    const res = await local.api('GET', '/api/v1/config');
    expect(res.status).toBe(200);
    console.log(JSON.stringify([...local.runtime.sandboxes!.served]));
    await local.advance(3_600_000);
    console.log(await local.tick());
    await local.runtime.queues.send('push', [{ body: '{"probe":"now"}' }]);
    await local.settle();
    console.log(JSON.stringify([...local.runtime.sandboxes!.served]));
  });
});
