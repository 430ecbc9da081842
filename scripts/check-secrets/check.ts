/**
 * What the first deploy leaves for an operator: the third-party secrets start as a known placeholder
 * (lib/constructs/secrets.ts), never a silent random value, so a stage whose identity secret or VAPID pair
 * was not filled in is found by a check rather than by failing sign-ins. Pure: the CLI beside it reads the values.
 */
import { SECRET_PLACEHOLDER } from '../../shared/platform/secret-placeholder';

/** The stack outputs naming the secrets an operator fills in (lib/stack.ts), with what each must hold. */
export const OPERATOR_SECRETS = {
  IdentitySecretArn: 'the identity provider secret key (sk_live_… / sk_test_…), as a plain string',
  VapidSecretArn: 'the VAPID key pair as JSON {"publicKey":"…","privateKey":"…"} (npx web-push generate-vapid-keys --json)',
  VapidPublicSecretArn: 'the same public key alone as JSON {"publicKey":"…"}',
} as const;

export type OperatorSecret = keyof typeof OPERATOR_SECRETS;

const fields = (raw: string): Record<string, unknown> => {
  try {
    const value = JSON.parse(raw) as unknown;
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};

const filled = (v: unknown): boolean => typeof v === 'string' && v !== '' && !v.includes(SECRET_PLACEHOLDER);

/** What is wrong with one secret's value (undefined: unreadable or missing), or null when it is filled in. */
export function secretProblem(name: OperatorSecret, value: string | undefined, vapidPublicKey?: string): string | null {
  if (value === undefined || value === '') return `${name}: no value; store ${OPERATOR_SECRETS[name]}`;
  if (name === 'IdentitySecretArn') {
    if (!filled(value)) return `${name}: still the placeholder; store ${OPERATOR_SECRETS[name]}`;
    return value.trim().startsWith('{') ? `${name}: holds JSON, not the key itself; store ${OPERATOR_SECRETS[name]}` : null;
  }
  const f = fields(value);
  const wanted = name === 'VapidSecretArn' ? ['publicKey', 'privateKey'] : ['publicKey'];
  const missing = wanted.filter((k) => !filled(f[k]));
  if (missing.length > 0) return `${name}: ${missing.join(' and ')} not set (push stays off); store ${OPERATOR_SECRETS[name]}`;
  if (vapidPublicKey !== undefined && name === 'VapidPublicSecretArn' && f.publicKey !== vapidPublicKey) {
    return `${name}: publicKey differs from the pair's in VapidSecretArn; browsers would subscribe with a key the push function does not sign with`;
  }
  return null;
}

/** Every problem of a stage's operator secrets, by output name → value; empty when the stage is ready. */
export function secretProblems(values: Partial<Record<OperatorSecret, string>>): string[] {
  const pairPublic = fields(values.VapidSecretArn ?? '').publicKey;
  return (Object.keys(OPERATOR_SECRETS) as OperatorSecret[])
    .map((name) => secretProblem(name, values[name], typeof pairPublic === 'string' && pairPublic !== '' ? pairPublic : undefined))
    .filter((p): p is string => p !== null);
}
