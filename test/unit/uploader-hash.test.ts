import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { uploaderHash } from '../../shared/upload/uploader';

const KEY_A = 'a'.repeat(43);
const KEY_B = 'b'.repeat(43);

describe('uploader hash (issue 11, point 8: identities stay apart)', () => {
  it('is an HMAC-SHA256 of the account id under the deployment key, 16 base64url characters', () => {
    const expected = createHmac('sha256', KEY_A).update('user_2abc', 'utf8').digest('base64url').slice(0, 16);
    expect(uploaderHash('user_2abc', KEY_A)).toBe(expected);
    expect(uploaderHash('user_2abc', KEY_A)).toMatch(/^[A-Za-z0-9_-]{16}$/);
  });

  it('is stable within a deployment and differs across deployments and accounts', () => {
    expect(uploaderHash('user_2abc', KEY_A)).toBe(uploaderHash('user_2abc', KEY_A));
    expect(uploaderHash('user_2abc', KEY_A)).not.toBe(uploaderHash('user_2abc', KEY_B));
    expect(uploaderHash('user_2abc', KEY_A)).not.toBe(uploaderHash('user_2abd', KEY_A));
  });

  it('cannot be recomputed from the account id with the old fixed salt', () => {
    const salted = createHash('sha256').update('market-data/uploader/v1\n').update('user_2abc', 'utf8').digest('base64url').slice(0, 16);
    expect(uploaderHash('user_2abc', KEY_A)).not.toBe(salted);
  });

  it('refuses to hash without a configured key', () => {
    expect(() => uploaderHash('user_2abc', '')).toThrow(/not configured/);
    expect(() => uploaderHash('user_2abc', 'short')).toThrow(/not configured/);
  });
});
