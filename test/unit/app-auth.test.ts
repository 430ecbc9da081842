/**
 * Issue 24 point 2: the app's one sign-in seam (app/auth). Which provider a deployment's publishable key
 * names; Clerk's side against a fake of the library's documented surface (`load`, `user`,
 * `session.getToken`, `openSignIn`, `signOut`, `addListener`, `apiKeys.getAll/create/revoke`); Clerk is
 * loaded only for a Clerk key. The local side is tested end to end (test/integration/site-identity.test.ts,
 * test/e2e/).
 */
import { describe, expect, it } from 'vitest';
import { chooseAuth } from '../../app/auth';
import type { ClerkLike } from '../../app/auth/clerk';
import { AuthError } from '../../app/auth/provider';
import { frontendApiOf, providerKindOf } from '../../app/auth/publishable-key';
import { localDeployment } from '../../lib/local/functions/deployment';
import { stageConfig } from '../../lib/stages';

const ORIGIN = 'http://127.0.0.1:8787';
const localKey = () =>
  localDeployment({ base: ORIGIN, stage: 'local', tableName: 't', bucketName: 'b', workBucketName: 'w', filesPrefix: '' }, {
    values: { identity: {}, vapid: {}, vapidPublic: {}, origin: {}, uploader: {} },
    originVerify: '',
  } as never).identity.publishableKey;
const DEV_KEY = stageConfig('dev').identity.publishableKey;

interface FakeKey {
  id: string;
  name: string;
  revoked: boolean;
  createdAt: Date;
  secret?: string;
}

/** A fake Clerk: records what the app asked, answers as the library's types say. */
function fakeClerk(opts: { user?: { id: string } | null; fail?: boolean } = {}) {
  const calls: string[] = [];
  const keys: FakeKey[] = [{ id: 'ak_1', name: 'old', revoked: false, createdAt: new Date(1000) }];
  const listeners: Array<(r: { user?: unknown }) => void> = [];
  let loaded = false;
  const clerk: ClerkLike & { emit(user: unknown): void } = {
    async load() {
      calls.push('load');
      if (opts.fail) throw new Error('network');
      loaded = true;
    },
    get user() {
      return loaded ? (opts.user ?? null) : undefined;
    },
    get session() {
      return loaded && opts.user ? { getToken: async () => 'jwt-from-clerk' } : null;
    },
    openSignIn(props) {
      calls.push(`openSignIn ${JSON.stringify(props)}`);
    },
    async signOut() {
      calls.push('signOut');
    },
    addListener(listener) {
      listeners.push(listener);
      return () => undefined;
    },
    apiKeys: {
      async getAll() {
        return { data: keys };
      },
      async create({ name }) {
        const k = { id: `ak_${keys.length + 1}`, name, revoked: false, createdAt: new Date(2000), secret: 'ak_secret_once' };
        keys.push({ ...k, secret: undefined });
        return k;
      },
      async revoke({ apiKeyID }) {
        const k = keys.find((x) => x.id === apiKeyID);
        if (!k) throw new Error('not found');
        k.revoked = true;
        return k;
      },
    },
    emit(user) {
      for (const l of listeners) l({ user });
    },
  };
  let made = 0;
  const factory = async (key: string) => {
    made++;
    calls.push(`new Clerk(${key})`);
    return clerk;
  };
  return { clerk, factory, calls, keys, made: () => made };
}

describe('which identity provider a deployment names', () => {
  it('reads the frontend API of a Clerk publishable key', () => {
    expect(frontendApiOf(DEV_KEY)).toBe('dev-market.clerk.accounts.dev');
    expect(frontendApiOf('pk_live_Y2xlcmsubWFya2V0LmV4YW1wbGUuY29tJA')).toBe('clerk.market.example.com');
    expect(frontendApiOf('sk_test_abc')).toBeNull();
    expect(frontendApiOf('pk_test_!!!')).toBeNull();
  });

  it('chooses the local provider for the local runtime’s key on its own origin, Clerk for a Clerk key, none without a key', () => {
    expect(providerKindOf(localKey(), ORIGIN)).toBe('local');
    expect(providerKindOf(DEV_KEY, ORIGIN)).toBe('clerk');
    // The local key names one origin's provider: on any other origin it is not this site's provider.
    expect(providerKindOf(localKey(), 'http://127.0.0.1:9999')).toBe('clerk');
    expect(providerKindOf('', ORIGIN)).toBe('none');
  });

  it('loads Clerk only for a Clerk key', async () => {
    const fake = fakeClerk();
    const local = await chooseAuth(localKey(), ORIGIN, { clerk: fake.factory, navigate: () => undefined });
    expect(local.kind).toBe('local');
    expect(fake.made()).toBe(0);
    const clerk = await chooseAuth(DEV_KEY, ORIGIN, { clerk: fake.factory });
    expect(clerk.kind).toBe('clerk');
    expect(fake.calls.slice(0, 2)).toEqual([`new Clerk(${DEV_KEY})`, 'load']);
  });

  it('says why signing in cannot work on a deployment without a key', async () => {
    const none = await chooseAuth('', ORIGIN);
    await expect(none.signIn('/#/account')).rejects.toThrow(/not set up on this deployment/);
  });
});

describe('Clerk’s side of the seam (a fake of @clerk/clerk-js)', () => {
  it('opens Clerk’s sign-in coming back to the page and route, and signs out through Clerk', async () => {
    const fake = fakeClerk();
    const auth = await chooseAuth(DEV_KEY, ORIGIN, { clerk: fake.factory });
    await auth.signIn('/item/19019#/market/alerts');
    await auth.signOut();
    expect(fake.calls.slice(2)).toEqual(['openSignIn {"forceRedirectUrl":"/item/19019#/market/alerts"}', 'signOut']);
  });

  it('hands out the session token for what cannot send the cookie, and none when signed out', async () => {
    expect(await (await chooseAuth(DEV_KEY, ORIGIN, { clerk: fakeClerk({ user: { id: 'user_1' } }).factory })).token()).toBe('jwt-from-clerk');
    expect(await (await chooseAuth(DEV_KEY, ORIGIN, { clerk: fakeClerk().factory })).token()).toBeNull();
  });

  it('tells the app when Clerk signs someone in or out, once per change', async () => {
    const fake = fakeClerk();
    const auth = await chooseAuth(DEV_KEY, ORIGIN, { clerk: fake.factory });
    let changes = 0;
    auth.onChange(() => changes++);
    fake.clerk.emit({ id: 'user_1' });
    fake.clerk.emit({ id: 'user_1' });
    fake.clerk.emit(null);
    expect(changes).toBe(2);
  });

  it('lists, creates (the secret once) and revokes API keys through Clerk’s apiKeys', async () => {
    const fake = fakeClerk({ user: { id: 'user_1' } });
    const auth = await chooseAuth(DEV_KEY, ORIGIN, { clerk: fake.factory });
    expect(await auth.apiKeys.list()).toEqual([{ id: 'ak_1', name: 'old', revoked: false, created: 1000 }]);
    const made = await auth.apiKeys.create('sheet');
    expect(made).toEqual({ id: 'ak_2', name: 'sheet', revoked: false, created: 2000, secret: 'ak_secret_once' });
    await auth.apiKeys.revoke('ak_1');
    expect((await auth.apiKeys.list()).map((k) => [k.id, k.revoked])).toEqual([
      ['ak_1', true],
      ['ak_2', false],
    ]);
  });

  it('turns Clerk’s failures into a sentence with what to do next', async () => {
    await expect(chooseAuth(DEV_KEY, ORIGIN, { clerk: fakeClerk({ fail: true }).factory })).rejects.toThrow(AuthError);
    const auth = await chooseAuth(DEV_KEY, ORIGIN, { clerk: fakeClerk().factory });
    const err = await auth.apiKeys.revoke('ak_404').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect((err as Error).message).toMatch(/^Clerk could not revoke the API key just now: .*try again\.$/);
  });
});
