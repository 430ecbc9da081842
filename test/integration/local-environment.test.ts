/**
 * Issue 13 point 5 (local side): the local runtime gives each handler the environment the stack gives it,
 * from the same builder (lib/environment.ts): a function sees only the bucket, queues and secrets its
 * manifest entry grants, as in AWS.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queuesOf } from '../../lib/environment';
import { FUNCTIONS, functionSpec } from '../../shared/topology';
import { type Local, startLocal } from '../support/local';

let local: Local;

beforeAll(async () => {
  local = await startLocal();
});

afterAll(async () => {
  await local?.close();
});

const configOf = async (fn: (typeof FUNCTIONS)[number]['name']) => local.runtime.platform(fn).config;

describe('local function environment', () => {
  it("gives each function its own config from the stack's builder: work bucket, queues and secrets as granted", async () => {
    for (const spec of FUNCTIONS) {
      const config = await configOf(spec.name);
      const secrets = spec.access.secrets ?? [];
      expect(config.workBucketName !== '', spec.name).toBe(spec.access.workBucket === 'write');
      expect(Object.keys(config.queueUrls).sort(), spec.name).toEqual(queuesOf(spec).sort());
      expect(config.idp.secretKey !== '', spec.name).toBe(secrets.includes('identity'));
      expect(config.vapid !== null, spec.name).toBe(secrets.includes('vapid'));
      // The api tells browsers the public key and never signs: it holds the public half only (issue 23 point 5).
      expect(config.vapidPublicKey !== '', spec.name).toBe(secrets.includes('vapid') || secrets.includes('vapidPublic'));
      expect(config.originVerify.length > 0, spec.name).toBe(secrets.includes('origin'));
      expect(config.uploaderKey !== '', spec.name).toBe(secrets.includes('uploader'));
      expect(config.tableName).toBe(local.runtime.tableName);
    }
    expect(functionSpec('pages').access.workBucket).toBeUndefined();
  });

  it("keeps the full configuration for the operator's calls outside any invocation (the control API)", () => {
    const config = local.runtime.operator.config;
    expect(config.workBucketName).toBe(local.runtime.workBucketName);
    expect(config.vapid).not.toBeNull();
  });

  it('gives the api the VAPID public key and not the private one', async () => {
    const config = await configOf('api');
    expect(config.vapidPublicKey).toBe(local.runtime.operator.config.vapid?.publicKey);
    expect(config.vapid).toBeNull();
  });
});
