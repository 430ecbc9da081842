/** The identity port's contract, run against the DynamoDB adapter (on DynamoDB Local) and the in-memory fake. */
import { describe, expect, it } from 'vitest';
import { DAY_MS, ManualClock, MINUTE_MS } from '../../shared/clock';
import type { ContributionRecord } from '../../shared/domain/contributor';
import type { DeviceRecord, IdentityPort, StoredClaims } from '../../shared/ports/identity';
import { dynamoIdentity } from '../../shared/store/dynamo-identity';
import { MemoryIdentity } from '../../shared/store/memory/identity';
import { freshTable } from '../support/engines';

const T0 = Date.UTC(2026, 10, 2, 12, 0, 0);

const variants: Array<[string, () => Promise<IdentityPort>]> = [
  ['dynamodb', async () => dynamoIdentity(await freshTable(new ManualClock(T0)))],
  ['memory', async () => new MemoryIdentity()],
];

const rec = (at: number, credited: boolean, reason?: string): ContributionRecord => ({
  market: 'forever.pvp.horde.us',
  at,
  kind: 'book',
  items: 10,
  complete: true,
  credited,
  ...(reason ? { reason } : {}),
});
const device = (id: string, userId = 'user_1'): DeviceRecord => ({
  id,
  userId,
  name: `app ${id}`,
  created: T0,
  lastSeen: null,
  collected: false,
  tokenHash: null,
});
const pairing = (pairId: string, expires = T0 + 10 * MINUTE_MS) => ({ pairId, name: 'desktop', created: T0, expires, state: 'waiting' as const });

describe.each(variants)('identity port (%s)', (_name, make) => {
  it('caches API key verdicts until their time, refusals too', async () => {
    const port = await make();
    await port.putKeyVerdict('k1', { ok: true, userId: 'user_1', scopes: ['api.read'], until: T0 + 300_000 });
    await port.putKeyVerdict('k2', { ok: false, until: T0 + 60_000 });
    await port.putKeyVerdict('k3', { ok: true, userId: 'user_2', scopes: null, until: T0 + 300_000 });
    expect(await port.getKeyVerdict('k1', T0)).toEqual({ ok: true, userId: 'user_1', scopes: ['api.read'], until: T0 + 300_000 });
    expect(await port.getKeyVerdict('k2', T0)).toEqual({ ok: false, until: T0 + 60_000 });
    expect(await port.getKeyVerdict('k3', T0)).toEqual({ ok: true, userId: 'user_2', scopes: null, until: T0 + 300_000 });
    // An empty scope list (a key with no feature) is kept as such, never read back as "no scopes given".
    await port.putKeyVerdict('k4', { ok: true, userId: 'user_3', scopes: [], until: T0 + 300_000 });
    expect(await port.getKeyVerdict('k4', T0)).toEqual({ ok: true, userId: 'user_3', scopes: [], until: T0 + 300_000 });
    expect(await port.getKeyVerdict('k2', T0 + 60_000)).toBeNull();
    expect(await port.getKeyVerdict('nope', T0)).toBeNull();
  });

  it('remembers keys the provider accepted for 30 days after their verdict lapses, until a refusal replaces them', async () => {
    const port = await make();
    await port.putKeyVerdict('k1', { ok: true, userId: 'user_1', scopes: null, until: T0 + 300_000 });
    await port.putKeyVerdict('k2', { ok: false, until: T0 + 60_000 });
    expect(await port.wasKeyVerified('k1', T0)).toBe(true);
    // The verdict lapsed (asked again) but the key is still one verified before.
    expect(await port.getKeyVerdict('k1', T0 + 300_000)).toBeNull();
    expect(await port.wasKeyVerified('k1', T0 + 300_000 + 29 * DAY_MS)).toBe(true);
    expect(await port.wasKeyVerified('k1', T0 + 300_000 + 30 * DAY_MS)).toBe(false);
    expect(await port.wasKeyVerified('k2', T0)).toBe(false);
    expect(await port.wasKeyVerified('never', T0)).toBe(false);
    // Revoked: the refusal replaces the record.
    await port.putKeyVerdict('k1', { ok: false, until: T0 + 400_000 });
    expect(await port.wasKeyVerified('k1', T0 + 300_000)).toBe(false);
  });

  it('lists contributions newest first from a time, at most `max`, and counts the credited ones', async () => {
    const port = await make();
    await port.putContribution('user_1', rec(1, true), T0 - 2 * DAY_MS, 'a');
    await port.putContribution('user_1', rec(2, false, 'too_soon_credit'), T0 - DAY_MS, 'b');
    await port.putContribution('user_1', rec(3, true), T0, 'c');
    await port.putContribution('user_1', rec(3, true), T0, 'c');
    await port.putContribution('user_2', rec(4, true), T0);
    expect((await port.queryContributions('user_1', T0 - 3 * DAY_MS, T0, 10)).map((r) => r.at)).toEqual([3, 2, 1]);
    expect(await port.queryContributions('user_1', T0 - DAY_MS, T0, 10)).toEqual([rec(3, true), rec(2, false, 'too_soon_credit')]);
    expect((await port.queryContributions('user_1', 0, T0, 2)).map((r) => r.at)).toEqual([3, 2]);
    expect(await port.countCredited('user_1', T0 - 3 * DAY_MS, T0)).toBe(2);
    expect(await port.countCredited('user_1', T0 - DAY_MS, T0)).toBe(1);
    // Records live 31 days from their receipt.
    expect(await port.queryContributions('user_1', 0, T0 + 30 * DAY_MS, 10)).toEqual([rec(3, true)]);
  });

  it('pairs a device: a code once, bound to one account, collected once, then listed and known by its token', async () => {
    const port = await make();
    expect(await port.putPairing(pairing('p1'), 'code1', T0)).toBe(true);
    expect(await port.putPairing(pairing('p2'), 'code1', T0)).toBe(false);
    expect(await port.pairingByCode('code1', T0)).toEqual(pairing('p1'));
    expect(await port.pairingByCode('other', T0)).toBeNull();
    expect(await port.bindPairing('p1', device('d1'), T0, T0 + 2 * 3_600_000)).toBe(true);
    expect(await port.bindPairing('p1', device('d2'), T0, T0 + 2 * 3_600_000)).toBe(false);
    const bound = await port.getPairing('p1', T0);
    expect(bound).toMatchObject({ state: 'bound', userId: 'user_1', deviceId: 'd1' });
    expect(await port.listDevices('user_1', T0)).toEqual([]);
    expect(await port.getDevice('user_1', 'd1', T0)).toEqual(device('d1'));
    expect(await port.collectPairing(bound!, 'tok1', T0)).toBe(true);
    expect(await port.collectPairing(bound!, 'tok2', T0)).toBe(false);
    expect(await port.getPairing('p1', T0)).toMatchObject({ state: 'paired' });
    expect(await port.listDevices('user_1', T0)).toEqual([{ ...device('d1'), collected: true, tokenHash: 'tok1' }]);
    expect(await port.deviceByToken('tok1')).toEqual({ userId: 'user_1', deviceId: 'd1', seen: null });
  });

  it('lets an expired pairing bind nothing, and an uncollected device die at its time', async () => {
    const port = await make();
    await port.putPairing(pairing('p1', T0 + 1000), 'code1', T0);
    expect(await port.bindPairing('p1', device('d1'), T0 + 1000, T0 + 5000)).toBe(false);
    await port.putPairing(pairing('p2'), 'code2', T0);
    await port.bindPairing('p2', device('d2'), T0, T0 + 5000);
    expect(await port.getDevice('user_1', 'd2', T0 + 5000)).toBeNull();
    // A code is free again once its pairing's afterlife ended.
    expect(await port.putPairing(pairing('p3'), 'code1', T0 + 1000 + DAY_MS)).toBe(true);
  });

  it('touches a device at most once per period and never revives a deleted one', async () => {
    const port = await make();
    await port.putPairing(pairing('p1'), 'code1', T0);
    await port.bindPairing('p1', device('d1'), T0, T0 + 3_600_000);
    await port.collectPairing((await port.getPairing('p1', T0))!, 'tok1', T0);
    const token = (await port.deviceByToken('tok1'))!;
    await port.touchDevice(token, 'tok1', T0 + 1000, T0);
    await port.touchDevice(token, 'tok1', T0 + 2000, T0);
    expect(await port.deviceByToken('tok1')).toMatchObject({ seen: T0 + 1000 });
    expect((await port.getDevice('user_1', 'd1', T0))?.lastSeen).toBe(T0 + 1000);
    const d = (await port.getDevice('user_1', 'd1', T0))!;
    expect(await port.deleteDevice(d)).toBe(true);
    expect(await port.deleteDevice(d)).toBe(false);
    expect(await port.deviceByToken('tok1')).toBeNull();
    await port.touchDevice(token, 'tok1', T0 + 9_000_000, T0 + 8_000_000);
    expect(await port.getDevice('user_1', 'd1', T0)).toBeNull();
  });

  it('counts missed pairing confirms in a window: a place per confirm, none past the limit, one given back', async () => {
    const port = await make();
    const w = 10 * MINUTE_MS;
    expect(await port.takePairingPlace('user_1', T0, 2, w)).toBe(T0);
    expect(await port.takePairingPlace('user_1', T0 + 1, 2, w)).toBe(T0);
    expect(await port.takePairingPlace('user_1', T0 + 2, 2, w)).toBeNull();
    await port.returnPairingPlace('user_1', T0);
    expect(await port.takePairingPlace('user_1', T0 + 3, 2, w)).toBe(T0);
    await port.returnPairingPlace('user_1', T0 - 5);
    expect(await port.takePairingPlace('user_1', T0 + 4, 2, w)).toBeNull();
    expect(await port.takePairingPlace('user_1', T0 + w, 2, w)).toBe(T0 + w);
  });

  it('keeps a profile: claims as read, a window that only rises, and one claim write at a time', async () => {
    const port = await make();
    expect(await port.getProfile('user_1')).toEqual({ claims: null, windowUntil: null, claimAt: null });
    const claims: StoredClaims = {
      email: 'a@example.com',
      plan: 'premium',
      contributorUntil: null,
      grants: ['admin'],
      withhold: [],
      partner: true,
      fetchedAt: T0,
    };
    await port.putClaims('user_1', claims);
    expect(await port.raiseWindow('user_1', T0 + DAY_MS)).toBe(T0 + DAY_MS);
    expect(await port.raiseWindow('user_1', T0)).toBe(T0 + DAY_MS);
    expect(await port.takeClaimSlot('user_1', T0, T0 - 3_600_000)).toEqual({ won: true, previous: null });
    expect(await port.takeClaimSlot('user_1', T0 + 1, T0 - 3_600_000)).toEqual({ won: false, previous: null });
    await port.releaseClaimSlot('user_1', T0, null);
    expect(await port.takeClaimSlot('user_1', T0 + 2, T0 - 3_600_000)).toEqual({ won: true, previous: null });
    expect(await port.takeClaimSlot('user_1', T0 + 3_600_002, T0 + 2)).toEqual({ won: true, previous: T0 + 2 });
    await port.releaseClaimSlot('user_1', T0 + 3_600_002, T0 + 2);
    expect(await port.getProfile('user_1')).toEqual({ claims, windowUntil: T0 + DAY_MS, claimAt: T0 + 2 });
  });

  it('counts a caller’s requests per minute', async () => {
    const port = await make();
    expect(await port.countRequest('ip:1', T0)).toBe(1);
    expect(await port.countRequest('ip:1', T0 + 59_999)).toBe(2);
    expect(await port.countRequest('ip:2', T0)).toBe(1);
    expect(await port.countRequest('ip:1', T0 + 60_000)).toBe(1);
  });

  it('adds a batch of requests in one count (the function meters and writes them together)', async () => {
    const port = await make();
    expect(await port.countRequest('ip:3', T0, 20)).toBe(20);
    expect(await port.countRequest('ip:3', T0 + 1, 1)).toBe(21);
    expect(await port.countRequest('ip:3', T0 + 2, 19)).toBe(40);
    expect(await port.countRequest('ip:3', T0 + 60_000, 7)).toBe(7);
  });

  it('reserves places in a minute only while its count is below the bound, and adds nothing when refused', async () => {
    const port = await make();
    expect(await port.reserveCount('user:1', T0, 20, 60)).toBe(20);
    expect(await port.reserveCount('user:1', T0 + 1, 20, 60)).toBe(40);
    // Below the bound when asked: the whole batch is added, past it.
    expect(await port.reserveCount('user:1', T0 + 2, 25, 60)).toBe(65);
    expect(await port.reserveCount('user:1', T0 + 3, 1, 60)).toBeNull();
    // The plain count shares the minute's counter: nothing was added by the refusal.
    expect(await port.countRequest('user:1', T0 + 4)).toBe(66);
    expect(await port.reserveCount('user:1', T0 + 60_000, 6, 60)).toBe(6);
    expect(await port.reserveCount('user:2', T0, 1, 1)).toBe(1);
    expect(await port.reserveCount('user:2', T0, 1, 1)).toBeNull();
  });

  it('grants exactly the places below the bound to concurrent reservations', async () => {
    const port = await make();
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => port.reserveCount('key:1', T0 + i, 1, 20)));
    expect(answers.filter((a) => a !== null)).toHaveLength(20);
    expect(new Set(answers.filter((a) => a !== null))).toEqual(new Set(Array.from({ length: 20 }, (_, i) => i + 1)));
  });

  it('keeps reservation windows of other lengths apart (the identity provider budget’s 10 s windows)', async () => {
    const port = await make();
    expect(await port.reserveCount('idp:verify', T0, 1, 2, 10_000)).toBe(1);
    expect(await port.reserveCount('idp:verify', T0 + 9_999, 1, 2, 10_000)).toBe(2);
    expect(await port.reserveCount('idp:verify', T0 + 5_000, 1, 2, 10_000)).toBeNull();
    expect(await port.reserveCount('idp:verify', T0 + 10_000, 1, 2, 10_000)).toBe(1);
  });
});
