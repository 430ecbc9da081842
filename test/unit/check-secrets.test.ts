/**
 * The first deploy's checked step (issue 26 point 0): the identity and VAPID secrets start as a known
 * placeholder, and the check names each one an operator has not filled in yet, without printing values.
 */
import { describe, expect, it } from 'vitest';
import { secretProblems } from '../../scripts/check-secrets/check';
import { loadSecretEnv } from '../../shared/platform/secret-env';
import { placeholderVariables, SECRET_PLACEHOLDER } from '../../shared/platform/secret-placeholder';

const PAIR = { publicKey: 'BPublicKeyOfThePair', privateKey: 'privateKeyOfThePair' };

describe('check-secrets', () => {
  it('names every secret still as the first deploy left it', () => {
    const problems = secretProblems({
      IdentitySecretArn: SECRET_PLACEHOLDER,
      VapidSecretArn: JSON.stringify({ publicKey: '', privateKey: SECRET_PLACEHOLDER }),
      VapidPublicSecretArn: JSON.stringify({ publicKey: '' }),
    });
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(/^IdentitySecretArn: still the placeholder/);
    expect(problems[1]).toMatch(/^VapidSecretArn: publicKey and privateKey not set/);
    expect(problems[2]).toMatch(/^VapidPublicSecretArn: publicKey not set/);
    expect(problems.join('\n')).not.toContain(SECRET_PLACEHOLDER);
  });

  it('passes a stage whose secrets are filled in, and never prints a value', () => {
    const ready = {
      IdentitySecretArn: 'sk_live_abc',
      VapidSecretArn: JSON.stringify(PAIR),
      VapidPublicSecretArn: JSON.stringify({ publicKey: PAIR.publicKey }),
    };
    expect(secretProblems(ready)).toEqual([]);
    const mismatched = secretProblems({ ...ready, VapidPublicSecretArn: JSON.stringify({ publicKey: 'BAnotherKey' }) });
    expect(mismatched).toEqual([expect.stringMatching(/^VapidPublicSecretArn: publicKey differs from the pair's/)]);
    expect(mismatched.join('\n')).not.toMatch(/sk_live_abc|privateKeyOfThePair|BAnotherKey/);
  });

  it('refuses a missing or unreadable value and a JSON object stored as the identity key', () => {
    expect(secretProblems({})).toHaveLength(3);
    expect(
      secretProblems({
        IdentitySecretArn: '{"key":"sk_live_abc"}',
        VapidSecretArn: JSON.stringify(PAIR),
        VapidPublicSecretArn: '{"publicKey":"BPublicKeyOfThePair"}',
      }),
    ).toEqual([expect.stringMatching(/^IdentitySecretArn: holds JSON, not the key itself/)]);
  });

  it('names, at a cold start, the variables still holding the placeholder the stack created', async () => {
    const stored: Record<string, string> = {
      'arn:idp': SECRET_PLACEHOLDER,
      'arn:vapid': JSON.stringify({ publicKey: '', privateKey: SECRET_PLACEHOLDER }),
      'arn:uploader': 'a-real-key',
    };
    const secrets = { read: async (arn: string) => stored[arn] };
    const env = { IDP_SECRET_ARN: 'arn:idp', VAPID_SECRET_ARN: 'arn:vapid', UPLOADER_SECRET_ARN: 'arn:uploader' };
    // The VAPID pair without its public key leaves push off (503 push_unconfigured), so only the identity key is named.
    expect(placeholderVariables(await loadSecretEnv(env, secrets))).toEqual(['IDP_SECRET_KEY']);
    expect(placeholderVariables(await loadSecretEnv(env, { read: async (arn: string) => (arn === 'arn:idp' ? 'sk_live_x' : stored[arn]) }))).toEqual([]);
  });
});
