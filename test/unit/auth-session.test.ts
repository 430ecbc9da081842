import { createLocalJWKSet, exportJWK, exportPKCS8, generateKeyPair, importPKCS8, type JWTPayload, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { isAllowedOrigin } from '../../shared/auth/origins';
import { remoteKeys, type SessionCheck, verifySessionToken } from '../../shared/auth/session';
import { DomainError } from '../../shared/errors';

const ISS = 'https://idp.example.test';
const ORIGIN = 'https://app.example.test';
const NOW = Date.UTC(2026, 10, 2, 12, 0, 0);
const NOW_S = NOW / 1000;

type Keys = Awaited<ReturnType<typeof generateKeyPair>>;
let good: Keys;
let other: Keys;
let check: SessionCheck;

const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');

function claims(extra: JWTPayload = {}): JWTPayload {
  return {
    sub: 'user_abc',
    iss: ISS,
    azp: ORIGIN,
    iat: NOW_S,
    nbf: NOW_S,
    exp: NOW_S + 60,
    pla: 'u:premium',
    meta: { contributorUntil: NOW + 1000, grants: ['admin'], withhold: ['depth'], partner: true },
    email: 'a@example.test',
    ...extra,
  };
}

function mint(payload: JWTPayload, key = good.privateKey, kid = 'k1'): Promise<string> {
  return new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' }).sign(key);
}

beforeAll(async () => {
  good = await generateKeyPair('RS256', { extractable: true });
  other = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(good.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  check = { keys: createLocalJWKSet({ keys: [jwk] }), issuer: ISS, now: NOW, isAllowedAzp: (azp) => azp === ORIGIN };
});

describe('session token verification', () => {
  it('accepts a valid token and reads its claims', async () => {
    const s = await verifySessionToken(await mint(claims()), check);
    expect(s).toEqual({
      userId: 'user_abc',
      email: 'a@example.test',
      claims: { plan: 'premium', contributorUntil: NOW + 1000, grants: ['admin'], withhold: ['depth'] },
      partner: true,
      expires: (NOW_S + 60) * 1000,
    });
  });

  it('accepts a bare plan name in pla and no meta', async () => {
    const s = await verifySessionToken(await mint(claims({ pla: 'free', meta: undefined })), check);
    expect(s?.claims).toEqual({ plan: 'free', contributorUntil: null, grants: [], withhold: [] });
  });

  it('refuses alg none', async () => {
    const token = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims())}.`;
    expect(await verifySessionToken(token, check)).toBeNull();
  });

  it('refuses HS256, even keyed with the public key', async () => {
    const secret = new TextEncoder().encode(JSON.stringify(await exportJWK(good.publicKey)));
    const token = await new SignJWT(claims()).setProtectedHeader({ alg: 'HS256', kid: 'k1' }).sign(secret);
    expect(await verifySessionToken(token, check)).toBeNull();
  });

  it('refuses RS512 signed by the right key', async () => {
    const sameKey = await importPKCS8(await exportPKCS8(good.privateKey), 'RS512');
    const token = await new SignJWT(claims()).setProtectedHeader({ alg: 'RS512', kid: 'k1' }).sign(sameKey);
    expect(await verifySessionToken(token, check)).toBeNull();
  });

  it('refuses a token signed by another key under the same kid', async () => {
    expect(await verifySessionToken(await mint(claims(), other.privateKey), check)).toBeNull();
  });

  it('refuses a token whose kid the key set lacks', async () => {
    expect(await verifySessionToken(await mint(claims(), good.privateKey, 'k2'), check)).toBeNull();
  });

  it('refuses a wrong or missing iss', async () => {
    expect(await verifySessionToken(await mint(claims({ iss: 'https://other.example.test' })), check)).toBeNull();
    expect(await verifySessionToken(await mint(claims({ iss: undefined })), check)).toBeNull();
  });

  it('refuses a wrong or missing azp', async () => {
    expect(await verifySessionToken(await mint(claims({ azp: 'https://evil.example.test' })), check)).toBeNull();
    expect(await verifySessionToken(await mint(claims({ azp: undefined })), check)).toBeNull();
  });

  it('allows 5 s of skew on exp and no more', async () => {
    const token = await mint(claims({ exp: NOW_S - 4 }));
    expect(await verifySessionToken(token, check)).not.toBeNull();
    expect(await verifySessionToken(await mint(claims({ exp: NOW_S - 6 })), check)).toBeNull();
  });

  it('allows 5 s of skew on nbf and no more', async () => {
    expect(await verifySessionToken(await mint(claims({ nbf: NOW_S + 5 })), check)).not.toBeNull();
    expect(await verifySessionToken(await mint(claims({ nbf: NOW_S + 6 })), check)).toBeNull();
  });

  it('judges time by the clock it is given, not the wall clock', async () => {
    const token = await mint(claims());
    expect(await verifySessionToken(token, { ...check, now: NOW + 120_000 })).toBeNull();
  });

  it('refuses a token without exp or sub', async () => {
    expect(await verifySessionToken(await mint(claims({ exp: undefined })), check)).toBeNull();
    expect(await verifySessionToken(await mint(claims({ sub: undefined })), check)).toBeNull();
  });

  it('refuses malformed tokens', async () => {
    const valid = await mint(claims());
    const [h, p] = valid.split('.');
    for (const t of ['', 'abc', 'a.b.c', `${h}.${p}`, `${h}.${p}.!!!`, `${h}.${b64('x')}.sig`, `${valid}x`]) {
      expect(await verifySessionToken(t, check)).toBeNull();
    }
  });

  it('answers 503 unavailable when the key set cannot be fetched', async () => {
    const keys = remoteKeys('http://127.0.0.1:9/.well-known/jwks.json');
    const err = await verifySessionToken(await mint(claims()), { ...check, keys }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe('unavailable');
  });
});

describe('deployment origins', () => {
  const dev = { env: 'dev' as const, publicBase: 'https://dev.example.test/', origins: ['https://worker.example.test'] };
  const prod = { env: 'production' as const, publicBase: 'https://example.test/', origins: ['https://worker.example.test'] };

  it('allows only its own origin in production', () => {
    expect(isAllowedOrigin('https://example.test', prod)).toBe(true);
    expect(isAllowedOrigin('https://worker.example.test', prod)).toBe(false);
    expect(isAllowedOrigin('http://localhost:3000', prod)).toBe(false);
  });

  it('allows the dev origins, localhost and 127.0.0.1 on any port elsewhere', () => {
    for (const o of ['https://dev.example.test', 'https://worker.example.test', 'http://localhost', 'http://localhost:5173', 'http://127.0.0.1:8787'])
      expect(isAllowedOrigin(o, dev)).toBe(true);
  });

  it('refuses look-alikes, paths, other schemes and absence', () => {
    for (const o of [
      'https://dev.example.test.evil.test',
      'http://localhost.evil.test',
      'https://localhost:3000',
      'http://127.0.0.1:8787/x',
      'null',
      '',
      undefined,
    ]) {
      expect(isAllowedOrigin(o, dev)).toBe(false);
    }
  });
});
