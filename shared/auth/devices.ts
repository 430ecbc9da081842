/** Device pairing and the account's devices (spec: "Device pairing" state table; Device resource). */

import { PAIRING_MISS_WINDOW_MS, PAIRING_MISSES } from '../domain/flood-limits';
import { confirmOutcome, normalizePairCode, PAIRING_VALID_MS, type Pairing, pollOutcome, UNCOLLECTED_DEVICE_MS } from '../domain/pairing';
import { DomainError, LimitError, NotFoundError } from '../errors';
import type { Services } from '../services';
import { hashSecret, newCode, newDeviceToken, newId } from './tokens';

/** A device as the account sees it; a device never seen has `lastSeen` = `created`. */
export interface Device {
  id: string;
  name: string;
  created: number;
  lastSeen: number;
}

const CODE_ATTEMPTS = 5;

/** Opens a pairing for an app: a code to show the user and a pair id to poll, both valid 10 minutes. */
export async function openPairing(svc: Pick<Services, 'clock' | 'identity'>, name: string): Promise<{ code: string; pairId: string; expires: number }> {
  const now = svc.clock.now();
  const expires = now + PAIRING_VALID_MS;
  for (let i = 0; i < CODE_ATTEMPTS; i++) {
    const code = newCode();
    const pairing: Pairing = { pairId: newId('pair_'), name, created: now, expires, state: 'waiting' };
    // A code still held by a live pairing is taken: draw another (32^8 codes make this rare).
    if (await svc.identity.putPairing(pairing, hashSecret(code), now)) return { code, pairId: pairing.pairId, expires };
  }
  throw new DomainError('internal', 'no free pairing code');
}

/**
 * Binds a code to the signed-in account (session checks are the route's); answers the device, the same one
 * when confirmed again. Confirms of well-formed codes that bind nothing are counted per account: past
 * {@link PAIRING_MISSES} in {@link PAIRING_MISS_WINDOW_MS} every confirm is 429 until the window ends.
 */
export async function confirmPairing(svc: Pick<Services, 'clock' | 'identity'>, userId: string, rawCode: string): Promise<{ id: string; name: string }> {
  const code = normalizePairCode(rawCode);
  if (!code) throw new NotFoundError('unknown_code', 'no such pairing code');
  const window = await svc.identity.takePairingPlace(userId, svc.clock.now(), PAIRING_MISSES, PAIRING_MISS_WINDOW_MS);
  if (window === null) {
    throw new LimitError('rate_limited', `more than ${PAIRING_MISSES} pairing codes that match nothing; try again later`, {}, 60);
  }
  const device = await bindCode(svc, userId, code);
  await svc.identity.returnPairingPlace(userId, window);
  return device;
}

async function bindCode(svc: Pick<Services, 'clock' | 'identity'>, userId: string, code: string): Promise<{ id: string; name: string }> {
  const codeHash = hashSecret(code);
  for (let attempt = 0; attempt < 2; attempt++) {
    const now = svc.clock.now();
    const p = await svc.identity.pairingByCode(codeHash, now);
    const outcome = confirmOutcome(p, userId, now);
    if (outcome === 'unknown' || !p) throw new NotFoundError('unknown_code', 'no such pairing code');
    if (outcome === 'expired') throw new NotFoundError('expired', 'the pairing code has expired');
    if (outcome === 'same' && p.deviceId) return { id: p.deviceId, name: p.name };
    const device = { id: newId('dev_', 12), userId, name: p.name, created: now, lastSeen: null, collected: false, tokenHash: null };
    if (await svc.identity.bindPairing(p.pairId, device, now, now + UNCOLLECTED_DEVICE_MS)) return { id: device.id, name: device.name };
    // Lost a race (another confirm, or expiry): the next read says which.
  }
  throw new NotFoundError('unknown_code', 'no such pairing code');
}

/** The app's poll: waiting, or the device token exactly once after confirmation; 404 when expired, collected or unknown. */
export async function pollPairing(
  svc: Pick<Services, 'clock' | 'identity'>,
  pairId: string,
): Promise<{ status: 'waiting' } | { status: 'paired'; token: string }> {
  const now = svc.clock.now();
  const p = await svc.identity.getPairing(pairId, now);
  const outcome = pollOutcome(p, now);
  if (outcome === 'waiting') return { status: 'waiting' };
  if (outcome === 'collect' && p) {
    const token = newDeviceToken();
    if (await svc.identity.collectPairing(p, hashSecret(token), now)) return { status: 'paired', token };
  }
  throw new NotFoundError('not_found', 'no such pairing');
}

/** The account's devices, newest first. */
export async function accountDevices(svc: Pick<Services, 'clock' | 'identity'>, userId: string): Promise<Device[]> {
  const devices = await svc.identity.listDevices(userId, svc.clock.now());
  return devices
    .map((d) => ({ id: d.id, name: d.name, created: d.created, lastSeen: d.lastSeen ?? d.created }))
    .sort((a, b) => b.created - a.created || (a.id < b.id ? 1 : -1));
}

/** Deletes one of the account's devices; its token stops working at once. */
export async function removeDevice(svc: Pick<Services, 'clock' | 'identity'>, userId: string, deviceId: string): Promise<boolean> {
  const device = await svc.identity.getDevice(userId, deviceId, svc.clock.now());
  return device ? svc.identity.deleteDevice(device) : false;
}
