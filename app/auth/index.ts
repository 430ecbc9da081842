/** The seam's one entry: the provider a deployment's configuration names (app/auth/publishable-key.ts). */
import { type ClerkFactory, clerkAuth, clerkLibrary } from './clerk';
import { type LocalAuthOptions, localAuth } from './local';
import { AuthError, type AuthProvider } from './provider';
import { providerKindOf } from './publishable-key';

export type { ApiKeyView, AuthProvider, CreatedApiKey } from './provider';
export { AuthError } from './provider';

const unavailable = (): Promise<never> =>
  Promise.reject(new AuthError('Sign-in is not set up on this deployment: ask its operator to configure the identity provider.'));

/** No identity provider configured: everything public still works; signing in says why it cannot. */
const noProvider: AuthProvider = {
  kind: 'none',
  signIn: unavailable,
  signOut: unavailable,
  token: async () => null,
  onChange() {},
  apiKeys: { list: unavailable, create: unavailable, revoke: unavailable },
};

export interface ChooseOptions extends LocalAuthOptions {
  clerk?: ClerkFactory;
}

/** Clerk for a Clerk key (loaded now), the local provider for the local runtime's key, else none. */
export async function chooseAuth(publishableKey: string, origin: string, opts: ChooseOptions = {}): Promise<AuthProvider> {
  const kind = providerKindOf(publishableKey, origin);
  if (kind === 'clerk') return clerkAuth(publishableKey, opts.clerk ?? clerkLibrary);
  if (kind === 'local') return localAuth(opts);
  return noProvider;
}
