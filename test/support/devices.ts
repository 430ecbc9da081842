/**
 * Pairs desktop devices through the HTTP API (spec: Device pairing): an anonymous app asks for a code, a
 * signed-in session confirms it, the app's poll collects the device token.
 */
import type { Local } from './local';

let viewer = 0;

/** A paired device of `userId` (a fresh session confirms it); answers its id and `svc_dev_` token. */
export async function pairDevice(local: Local, userId: string, name = 'Desktop'): Promise<{ id: string; token: string }> {
  // Each anonymous call comes from its own viewer address so the anonymous rate limit never interferes.
  const app = (method: string, path: string, body?: unknown) =>
    local.api(method, path, { body, headers: { 'x-forwarded-for': `198.51.100.${(viewer++ % 250) + 1}` } });
  const pair = await app('POST', '/api/v1/devices/pair', { name });
  if (pair.status !== 200) throw new Error(`pair: ${pair.status} ${JSON.stringify(pair.body)}`);
  const { code, pairId } = pair.body as { code: string; pairId: string };
  const session = await local.session(userId, { expiresIn: 86_400 });
  const confirm = await local.api('POST', '/api/v1/devices/confirm', { token: session, body: { code }, headers: { origin: local.base } });
  if (confirm.status !== 200) throw new Error(`confirm: ${confirm.status} ${JSON.stringify(confirm.body)}`);
  const poll = await app('GET', `/api/v1/devices/pair/${pairId}`);
  if (poll.status !== 200 || typeof poll.body?.token !== 'string') throw new Error(`poll: ${poll.status} ${JSON.stringify(poll.body)}`);
  return { id: (confirm.body as { device: { id: string } }).device.id, token: poll.body.token as string };
}
