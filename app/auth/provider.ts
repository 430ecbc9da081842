/**
 * The one seam between the app and whoever signs people in (issue 24 point 2): Clerk's browser library on
 * AWS, the local identity provider in the local runtime. Either way the service sees the same `__session`
 * cookie (spec api.md Authentication), so everything past sign-in is the same code.
 */

/** An API key as the account page lists it (never its secret, which is shown once, when made). */
export interface ApiKeyView {
  id: string;
  name: string;
  created: number;
  revoked: boolean;
}

export interface CreatedApiKey extends ApiKeyView {
  /** The key itself (`ak_…`): shown once. */
  secret: string;
}

export interface AuthProvider {
  readonly kind: 'clerk' | 'local' | 'none';
  /** Starts signing in; `returnTo` is the site path (with its hash route) to come back to. */
  signIn(returnTo: string): Promise<void>;
  /** Ends the session: the `__session` cookie is gone afterwards. */
  signOut(): Promise<void>;
  /** A session token for what cannot send the cookie (null: the cookie is all there is). */
  token(): Promise<string | null>;
  /** Called when the provider signs someone in or out by itself (Clerk's modal, a session ending). */
  onChange(listener: () => void): void;
  /** API keys (spec api.md Account: "created and revoked on the account page"). */
  apiKeys: {
    list(): Promise<ApiKeyView[]>;
    create(name: string): Promise<CreatedApiKey>;
    revoke(id: string): Promise<void>;
  };
}

/** A provider could not do what was asked; `message` is a sentence for people, with what to do next. */
export class AuthError extends Error {
  override name = 'AuthError';
}
