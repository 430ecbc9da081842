/**
 * Clerk's side of the seam (issue 24 point 2): `@clerk/clerk-js` with the deployment's publishable key. The
 * library is a dynamic import, so only a deployment whose key names a Clerk instance downloads it (the
 * initial bundle stays small: test/unit/app-budget.test.ts). Clerk keeps `__session` fresh on the site's
 * domain; the app uses the library's documented surface only (`load`, `user`, `session.getToken`,
 * `openSignIn`, `signOut`, `addListener`, `apiKeys`), which test/unit/app-auth.test.ts fakes.
 */
import { type ApiKeyView, AuthError, type AuthProvider } from './provider';

interface ClerkApiKey {
  id: string;
  name: string;
  revoked: boolean;
  createdAt: Date | number;
  secret?: string;
}

/** The part of Clerk's `Clerk` object the app uses. */
export interface ClerkLike {
  load(options?: Record<string, unknown>): Promise<unknown>;
  readonly user: { id: string } | null | undefined;
  readonly session: { getToken(): Promise<string | null> } | null | undefined;
  openSignIn(props?: { forceRedirectUrl?: string; fallbackRedirectUrl?: string }): void;
  signOut(options?: Record<string, unknown>): Promise<unknown>;
  addListener(listener: (resources: { user?: unknown }) => void): unknown;
  readonly apiKeys: {
    getAll(params?: Record<string, unknown>): Promise<{ data: ClerkApiKey[] }>;
    create(params: { name: string }): Promise<ClerkApiKey>;
    revoke(params: { apiKeyID: string }): Promise<unknown>;
  };
}

/** Makes a (not yet loaded) Clerk for a publishable key. */
export type ClerkFactory = (publishableKey: string) => Promise<ClerkLike>;

/** The real library, fetched only when called. */
export const clerkLibrary: ClerkFactory = async (publishableKey) => {
  const { Clerk } = await import('@clerk/clerk-js');
  return new Clerk(publishableKey) as unknown as ClerkLike;
};

const view = (k: ClerkApiKey): ApiKeyView => ({ id: k.id, name: k.name, revoked: k.revoked, created: new Date(k.createdAt).getTime() });

async function attempt<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch {
    throw new AuthError(`Clerk could not ${what} just now: check your connection, reload the page and try again.`);
  }
}

/** The provider on AWS: Clerk loaded with the deployment's key before the app asks who is signed in. */
export async function clerkAuth(publishableKey: string, factory: ClerkFactory = clerkLibrary): Promise<AuthProvider> {
  const clerk = await attempt('load', async () => {
    const c = await factory(publishableKey);
    await c.load();
    return c;
  });
  let signedIn = Boolean(clerk.user);
  return {
    kind: 'clerk',
    async signIn(returnTo) {
      clerk.openSignIn({ forceRedirectUrl: returnTo });
    },
    async signOut() {
      await attempt('sign you out', () => clerk.signOut());
    },
    async token() {
      return (await clerk.session?.getToken()) ?? null;
    },
    onChange(listener) {
      clerk.addListener(({ user }) => {
        if (Boolean(user) === signedIn) return;
        signedIn = Boolean(user);
        listener();
      });
    },
    apiKeys: {
      list: () => attempt('list your API keys', async () => (await clerk.apiKeys.getAll()).data.map(view)),
      create: (name) =>
        attempt('create an API key', async () => {
          const k = await clerk.apiKeys.create({ name });
          if (!k.secret) throw new Error('no secret');
          return { ...view(k), secret: k.secret };
        }),
      revoke: (id) =>
        attempt('revoke the API key', async () => {
          await clerk.apiKeys.revoke({ apiKeyID: id });
        }),
    },
  };
}
