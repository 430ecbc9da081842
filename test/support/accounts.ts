/** Callers for black-box tests: a fresh user with an API key, or a signed-in session of 30 days. */
import type { Local } from './local';

export async function keyedUser(local: Local, input: Record<string, unknown> = {}) {
  const user = await local.user(input);
  return { user, key: await local.apiKey(user.id) };
}

export async function sessionUser(local: Local, input: Record<string, unknown> = {}) {
  const u = await local.user(input);
  return { id: u.id, token: await local.session(u.id, { expiresIn: 30 * 86_400 }) };
}

/** Anonymous callers from distinct addresses, so the per-address rate limit never joins tests together. */
export function anonAddresses(): () => Record<string, string> {
  let ip = 0;
  return () => ({ 'x-forwarded-for': `192.0.2.${(++ip % 250) + 1}` });
}
