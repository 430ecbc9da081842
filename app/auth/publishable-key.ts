/**
 * Which identity provider a deployment's `clerkPublishableKey` (GET /api/v1/config) names. A Clerk key is
 * `pk_test_` or `pk_live_` and the base64 of the instance's frontend API host followed by `$`; the local
 * runtime's key has the same form and names its own `/_local/idp` (lib/local/functions/deployment.ts), which is how the
 * app tells a real Clerk instance from the local provider without any other setting.
 */

export type ProviderKind = 'clerk' | 'local' | 'none';

/** The frontend API a publishable key names (`clerk.example.com`, `127.0.0.1:8787/_local/idp`), or null. */
export function frontendApiOf(publishableKey: string): string | null {
  const m = /^pk_(test|live)_([A-Za-z0-9+/=_-]+)$/.exec(publishableKey.trim());
  if (!m) return null;
  let decoded: string;
  try {
    decoded = atob(m[2].replace(/-/g, '+').replace(/_/g, '/'));
  } catch {
    return null;
  }
  return decoded.endsWith('$') && decoded.length > 1 ? decoded.slice(0, -1) : null;
}

/** `local` when the key names this origin's local identity provider, `clerk` for any other key, `none` without one. */
export function providerKindOf(publishableKey: string, origin: string): ProviderKind {
  const api = frontendApiOf(publishableKey);
  if (api === null) return 'none';
  return api === `${new URL(origin).host}/_local/idp` ? 'local' : 'clerk';
}
