/** In-memory fake of the uploads port (unit tests); the contract suite holds it to the DynamoDB adapter. */
import type { QuarantineRecord, RetryClaim, Slot, UploadAnswer, UploadsPort } from '../../ports/uploads';

const copy = <T>(v: T): T => structuredClone(v);
const ttlAt = (ms: number): number => Math.ceil(ms / 1000);

interface SlotItem {
  last: number;
  token?: string;
}

interface RetryItem {
  state: 'pending' | 'answered';
  uploadId: string;
  claimedAt?: number;
  answer?: UploadAnswer;
  ttl: number;
}

export class MemoryUploads implements UploadsPort {
  private readonly slots = new Map<string, SlotItem>();
  private readonly claims = new Map<string, { retryId: string; uploadId: string }>();
  private readonly retries = new Map<string, RetryItem>();
  private readonly quarantine = new Map<string, Map<string, QuarantineRecord>>();

  private takeSlot(key: string, now: number, everyMs: number, token: string): Slot {
    const item = this.slots.get(key);
    if (item && item.last > now - everyMs && item.token !== token) return { won: false };
    this.slots.set(key, { last: now, token });
    return { won: true, previous: item ? item.last : null };
  }

  private releaseSlot(key: string, token: string, previous: number | null): void {
    const item = this.slots.get(key);
    if (item?.token !== token) return;
    if (previous === null) this.slots.delete(key);
    else this.slots.set(key, { last: previous });
  }

  async takeUploadLimit(caller: string, market: string, now: number, everyMs: number, token: string): Promise<Slot> {
    return this.takeSlot(`limit#${caller}#${market}`, now, everyMs, token);
  }

  async releaseUploadLimit(caller: string, market: string, token: string, previous: number | null, _everyMs: number): Promise<void> {
    this.releaseSlot(`limit#${caller}#${market}`, token, previous);
  }

  async takeCreditInterval(userId: string, market: string, now: number, everyMs: number, token: string): Promise<Slot> {
    return this.takeSlot(`credit#${userId}#${market}`, now, everyMs, token);
  }

  async releaseCreditInterval(userId: string, market: string, token: string, previous: number | null, _everyMs: number): Promise<void> {
    this.releaseSlot(`credit#${userId}#${market}`, token, previous);
  }

  async lastCreditedAt(userId: string, market: string): Promise<number | null> {
    return this.slots.get(`credit#${userId}#${market}`)?.last ?? null;
  }

  async claimBookAt(market: string, at: number, retryId: string, uploadId: string, _expiresAt: number): Promise<boolean> {
    const key = `${market}#${at}`;
    const held = this.claims.get(key);
    if (held && held.retryId !== retryId) return false;
    this.claims.set(key, { retryId, uploadId });
    return true;
  }

  async releaseBookAt(market: string, at: number, uploadId: string): Promise<void> {
    const key = `${market}#${at}`;
    if (this.claims.get(key)?.uploadId === uploadId) this.claims.delete(key);
  }

  async claimRetry(retryId: string, uploadId: string, now: number, leaseMs: number, expiresAt: number): Promise<RetryClaim> {
    const item = this.retries.get(retryId);
    const live = item !== undefined && item.ttl * 1000 > now;
    if (live && item.state !== 'pending') return { kind: 'answered', answer: copy(item.answer as UploadAnswer) };
    if (live && item.claimedAt !== undefined && item.claimedAt + leaseMs > now) return { kind: 'busy' };
    const owner = live ? item.uploadId : uploadId;
    this.retries.set(retryId, { state: 'pending', uploadId: owner, claimedAt: now, ttl: ttlAt(expiresAt) });
    return { kind: 'claimed', uploadId: owner };
  }

  async releaseRetry(retryId: string, uploadId: string): Promise<void> {
    const item = this.retries.get(retryId);
    if (item?.uploadId === uploadId && item.state === 'pending') this.retries.delete(retryId);
  }

  async keepAnswer(retryId: string, uploadId: string, answer: UploadAnswer, expiresAt: number): Promise<void> {
    const item = this.retries.get(retryId);
    if (item && !(item.uploadId === uploadId && item.state === 'pending')) return;
    this.retries.set(retryId, { state: 'answered', uploadId, answer: copy(answer), ttl: ttlAt(expiresAt) });
  }

  async putQuarantine(rec: QuarantineRecord, id: string, _keepMs: number): Promise<void> {
    const m = this.quarantine.get(rec.market) ?? new Map<string, QuarantineRecord>();
    m.set(`${String(rec.received).padStart(15, '0')}#${id}`, copy(rec));
    this.quarantine.set(rec.market, m);
  }

  async quarantinedBefore(market: string, before: number): Promise<Array<QuarantineRecord & { sk: string }>> {
    const bound = `${String(before).padStart(15, '0')}#`;
    return [...(this.quarantine.get(market) ?? [])]
      .filter(([sk]) => sk < bound)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([sk, r]) => ({ ...copy(r), sk }));
  }

  async deleteQuarantine(market: string, sk: string): Promise<void> {
    this.quarantine.get(market)?.delete(sk);
  }
}
