/**
 * In-memory fake of the identity port (unit tests); the contract suite holds it to the DynamoDB adapter. Items
 * that expire are kept with their expiry and read as the adapter reads them (DynamoDB deletes lazily).
 */
import { randomBytes } from 'node:crypto';
import { DAY_MS, MINUTE_MS, minuteOf } from '../../clock';
import { CONTRIBUTIONS_BACK_MS, type ContributionRecord } from '../../domain/contributor';
import { KEY_SEEN_MS } from '../../domain/flood-limits';
import type { Pairing } from '../../domain/pairing';
import { type ChangeSink, profileChange } from '../../ports/changes';
import type { DeviceRecord, DeviceTokenRecord, IdentityPort, KeyVerdict, Profile, StoredClaims } from '../../ports/identity';

const copy = <T>(v: T): T => structuredClone(v);
/** Pairings and codes outlive their expiry by a day (a late confirm answers 410, not 404). */
const AFTERLIFE_MS = DAY_MS;
/** Expiry in whole seconds, as the table's `ttl` attribute holds it. */
const ttlAt = (ms: number): number => Math.ceil(ms / 1000);
const live = (ttl: number | undefined, now: number): boolean => ttl === undefined || ttl * 1000 > now;

interface Contribution {
  userId: string;
  sk: string;
  rec: ContributionRecord;
  ttl: number;
}

export class MemoryIdentity implements IdentityPort {
  private readonly verdicts = new Map<string, { verdict: KeyVerdict; ttl: number }>();
  private readonly contributions: Contribution[] = [];
  private readonly codes = new Map<string, { pairId: string; ttl: number }>();
  private readonly pairings = new Map<string, Pairing & { ttl: number }>();
  /** By `userId#deviceId`. */
  private readonly devices = new Map<string, DeviceRecord & { ttl?: number }>();
  private readonly tokens = new Map<string, DeviceTokenRecord>();
  private readonly misses = new Map<string, { w: number; n: number }>();
  private readonly profiles = new Map<string, Profile>();
  private readonly counters = new Map<string, number>();

  constructor(
    /** Told of profile changes and device deletions, as the table's stream tells of their items' writes. */
    private readonly changes?: ChangeSink,
  ) {}

  /** Runs a profile write and tells of it when the account's claims or window changed. */
  private writeProfile<T>(userId: string, write: (p: Profile) => T): T {
    const before = this.profiles.has(userId) ? copy(this.profile(userId)) : null;
    const out = write(this.profile(userId));
    const event = profileChange(userId, before, this.profile(userId));
    if (event) this.changes?.publish(event);
    return out;
  }

  async getKeyVerdict(keyHash: string, now: number): Promise<KeyVerdict | null> {
    const v = this.verdicts.get(keyHash);
    if (!v || !live(v.ttl, now) || v.verdict.until <= now) return null;
    return copy(v.verdict);
  }

  async putKeyVerdict(keyHash: string, v: KeyVerdict): Promise<void> {
    this.verdicts.set(keyHash, { verdict: copy(v), ttl: ttlAt(v.ok ? v.until + KEY_SEEN_MS : v.until) });
  }

  async wasKeyVerified(keyHash: string, now: number): Promise<boolean> {
    const v = this.verdicts.get(keyHash);
    return v !== undefined && live(v.ttl, now) && v.verdict.ok;
  }

  async putContribution(userId: string, rec: ContributionRecord, received: number, id = randomBytes(6).toString('base64url')): Promise<void> {
    const sk = `${String(received).padStart(15, '0')}#${id}`;
    const at = this.contributions.findIndex((c) => c.userId === userId && c.sk === sk);
    const entry = { userId, sk, rec: copy(rec), ttl: ttlAt(received + CONTRIBUTIONS_BACK_MS + DAY_MS) };
    if (at >= 0) this.contributions[at] = entry;
    else this.contributions.push(entry);
  }

  private contributionsFrom(userId: string, from: number): Contribution[] {
    const lower = `${String(from).padStart(15, '0')}#`;
    return this.contributions.filter((c) => c.userId === userId && c.sk >= lower).sort((a, b) => (a.sk < b.sk ? 1 : -1));
  }

  async queryContributions(userId: string, from: number, now: number, max: number): Promise<ContributionRecord[]> {
    return this.contributionsFrom(userId, from)
      .filter((c) => live(c.ttl, now))
      .slice(0, max)
      .map((c) => copy(c.rec));
  }

  async countCredited(userId: string, from: number, now: number): Promise<number> {
    return this.contributionsFrom(userId, from).filter((c) => c.rec.credited && live(c.ttl, now)).length;
  }

  async putPairing(p: Pairing, codeHash: string, now: number): Promise<boolean> {
    const code = this.codes.get(codeHash);
    if ((code && code.ttl > Math.floor(now / 1000)) || this.pairings.has(p.pairId)) return false;
    const ttl = ttlAt(p.expires + AFTERLIFE_MS);
    this.codes.set(codeHash, { pairId: p.pairId, ttl });
    this.pairings.set(p.pairId, { pairId: p.pairId, name: p.name, created: p.created, expires: p.expires, state: p.state, ttl });
    return true;
  }

  async pairingByCode(codeHash: string, now: number): Promise<Pairing | null> {
    const code = this.codes.get(codeHash);
    return code && live(code.ttl, now) ? this.getPairing(code.pairId, now) : null;
  }

  async getPairing(pairId: string, now: number): Promise<Pairing | null> {
    const p = this.pairings.get(pairId);
    if (!p || !live(p.ttl, now)) return null;
    const { ttl: _ttl, ...pairing } = copy(p);
    return { ...pairing, userId: pairing.userId, deviceId: pairing.deviceId };
  }

  async bindPairing(pairId: string, device: DeviceRecord, now: number, deleteAt: number): Promise<boolean> {
    const p = this.pairings.get(pairId);
    const key = `${device.userId}#${device.id}`;
    if (p?.state !== 'waiting' || !(p.expires > now) || this.devices.has(key)) return false;
    Object.assign(p, { state: 'bound', userId: device.userId, deviceId: device.id });
    this.devices.set(key, {
      id: device.id,
      userId: device.userId,
      name: device.name,
      created: device.created,
      lastSeen: null,
      collected: false,
      tokenHash: null,
      ttl: ttlAt(deleteAt),
    });
    return true;
  }

  async collectPairing(p: Pairing, tokenHash: string, now: number): Promise<boolean> {
    if (!p.userId || !p.deviceId) return false;
    const stored = this.pairings.get(p.pairId);
    const device = this.devices.get(`${p.userId}#${p.deviceId}`);
    if (stored?.state !== 'bound' || !(stored.expires > now) || !device || this.tokens.has(tokenHash)) return false;
    stored.state = 'paired';
    Object.assign(device, { collected: true, tokenHash });
    delete device.ttl;
    this.tokens.set(tokenHash, { userId: p.userId, deviceId: p.deviceId, seen: null });
    return true;
  }

  async getDevice(userId: string, deviceId: string, now: number): Promise<DeviceRecord | null> {
    const d = this.devices.get(`${userId}#${deviceId}`);
    if (!d || !live(d.ttl, now)) return null;
    const { ttl: _ttl, ...device } = copy(d);
    return device;
  }

  async listDevices(userId: string, now: number): Promise<DeviceRecord[]> {
    return [...this.devices.values()]
      .filter((d) => d.userId === userId && d.collected && live(d.ttl, now))
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .map(({ ttl: _ttl, ...d }) => copy(d));
  }

  async deleteDevice(device: DeviceRecord): Promise<boolean> {
    if (!this.devices.delete(`${device.userId}#${device.id}`)) return false;
    if (device.tokenHash) this.tokens.delete(device.tokenHash);
    this.changes?.publish({ type: 'device-removed', userId: device.userId, deviceId: device.id });
    return true;
  }

  async deviceByToken(tokenHash: string): Promise<DeviceTokenRecord | null> {
    const t = this.tokens.get(tokenHash);
    return t ? copy(t) : null;
  }

  async touchDevice(token: DeviceTokenRecord, tokenHash: string, now: number, cutoff: number): Promise<void> {
    const stored = this.tokens.get(tokenHash);
    const device = this.devices.get(`${token.userId}#${token.deviceId}`);
    if (!stored || (stored.seen !== null && stored.seen > cutoff) || !device) return;
    stored.seen = now;
    device.lastSeen = now;
  }

  async takePairingPlace(userId: string, now: number, limit: number, windowMs: number): Promise<number | null> {
    const m = this.misses.get(userId);
    if (m && m.w > now - windowMs) {
      if (m.n >= limit) return null;
      m.n++;
      return m.w;
    }
    this.misses.set(userId, { w: now, n: 1 });
    return now;
  }

  async returnPairingPlace(userId: string, windowStart: number): Promise<void> {
    const m = this.misses.get(userId);
    if (m && m.w === windowStart && m.n > 0) m.n--;
  }

  private profile(userId: string): Profile {
    let p = this.profiles.get(userId);
    if (!p) {
      p = { claims: null, windowUntil: null, claimAt: null };
      this.profiles.set(userId, p);
    }
    return p;
  }

  async getProfile(userId: string): Promise<Profile> {
    return copy(this.profiles.get(userId) ?? { claims: null, windowUntil: null, claimAt: null });
  }

  async putClaims(userId: string, claims: StoredClaims): Promise<void> {
    this.writeProfile(userId, (p) => {
      p.claims = copy(claims);
    });
  }

  async raiseWindow(userId: string, until: number): Promise<number> {
    return this.writeProfile(userId, (p) => {
      if (p.windowUntil === null || p.windowUntil < until) p.windowUntil = until;
      return p.windowUntil === until ? until : p.windowUntil;
    });
  }

  async takeClaimSlot(userId: string, now: number, cutoff: number): Promise<{ won: boolean; previous: number | null }> {
    const p = this.profile(userId);
    if (p.claimAt !== null && p.claimAt > cutoff) return { won: false, previous: null };
    const previous = p.claimAt;
    p.claimAt = now;
    return { won: true, previous };
  }

  async releaseClaimSlot(userId: string, taken: number, previous: number | null): Promise<void> {
    const p = this.profiles.get(userId);
    if (p && p.claimAt === taken) p.claimAt = previous;
  }

  async countRequest(callerId: string, now: number, n = 1): Promise<number> {
    const key = `${callerId}#${minuteOf(now)}`;
    const total = (this.counters.get(key) ?? 0) + n;
    this.counters.set(key, total);
    return total;
  }

  async reserveCount(callerId: string, now: number, n: number, below: number, windowMs = MINUTE_MS): Promise<number | null> {
    // Minute windows share the plain counters' items, as the adapter's keys do.
    const key = `${callerId}#${Math.floor(now / windowMs)}`;
    const count = this.counters.get(key) ?? 0;
    if (count >= below) return null;
    this.counters.set(key, count + n);
    return count + n;
  }
}
