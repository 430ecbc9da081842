/** The uploads port's contract (admission records, quarantine), run against the DynamoDB adapter and the in-memory fake. */
import { describe, expect, it } from 'vitest';
import { DAY_MS, ManualClock } from '../../shared/clock';
import type { UploadsPort } from '../../shared/ports/uploads';
import { dynamoUploads } from '../../shared/store/dynamo-uploads';
import { MemoryUploads } from '../../shared/store/memory/uploads';
import { freshTable } from '../support/engines';

const T0 = Date.UTC(2026, 10, 2, 12, 0, 0);
const M = 'forever.pvp.horde.us';
const FIVE = 300_000;

const variants: Array<[string, () => Promise<UploadsPort>]> = [
  ['dynamodb', async () => dynamoUploads(await freshTable(new ManualClock(T0)))],
  ['memory', async () => new MemoryUploads()],
];

describe.each(variants)('uploads port (%s)', (_name, make) => {
  it('takes an upload limit once per interval, again for the same token, and puts it back as it was', async () => {
    const port = await make();
    expect(await port.takeUploadLimit('key:1', M, T0, FIVE, 'tok-a')).toEqual({ won: true, previous: null });
    expect(await port.takeUploadLimit('key:1', M, T0 + 1000, FIVE, 'tok-b')).toEqual({ won: false });
    expect(await port.takeUploadLimit('key:1', M, T0 + 1000, FIVE, 'tok-a')).toEqual({ won: true, previous: T0 });
    expect(await port.takeUploadLimit('key:1', 'forever.rp.horde.us', T0, FIVE, 'tok-c')).toEqual({ won: true, previous: null });
    await port.releaseUploadLimit('key:1', M, 'tok-b', null, FIVE);
    expect(await port.takeUploadLimit('key:1', M, T0 + 2000, FIVE, 'tok-b')).toEqual({ won: false });
    await port.releaseUploadLimit('key:1', M, 'tok-a', null, FIVE);
    expect(await port.takeUploadLimit('key:1', M, T0 + 2000, FIVE, 'tok-b')).toEqual({ won: true, previous: null });
    expect(await port.takeUploadLimit('key:1', M, T0 + 2000 + FIVE, FIVE, 'tok-c')).toEqual({ won: true, previous: T0 + 2000 });
  });

  it('keeps the credit interval per account and market, and tells when the last credit was', async () => {
    const port = await make();
    expect(await port.lastCreditedAt('user_1', M)).toBeNull();
    expect(await port.takeCreditInterval('user_1', M, T0, 3_600_000, 'u1')).toEqual({ won: true, previous: null });
    expect(await port.lastCreditedAt('user_1', M)).toBe(T0);
    expect(await port.takeCreditInterval('user_1', M, T0 + 10, 3_600_000, 'u2')).toEqual({ won: false });
    expect(await port.takeCreditInterval('user_1', M, T0 + 3_600_000, 3_600_000, 'u3')).toEqual({ won: true, previous: T0 });
    await port.releaseCreditInterval('user_1', M, 'u3', T0, 3_600_000);
    expect(await port.lastCreditedAt('user_1', M)).toBe(T0);
    expect(await port.takeCreditInterval('user_1', M, T0 + 10, 3_600_000, 'u4')).toEqual({ won: false });
  });

  it('lets one retry identity claim a market’s `at`, and only the claimer release it', async () => {
    const port = await make();
    expect(await port.claimBookAt(M, 1000, 'retry-a', 'up-1', T0 + DAY_MS)).toBe(true);
    expect(await port.claimBookAt(M, 1000, 'retry-b', 'up-2', T0 + DAY_MS)).toBe(false);
    expect(await port.claimBookAt(M, 1000, 'retry-a', 'up-3', T0 + DAY_MS)).toBe(true);
    await port.releaseBookAt(M, 1000, 'up-1');
    expect(await port.claimBookAt(M, 1000, 'retry-b', 'up-2', T0 + DAY_MS)).toBe(false);
    await port.releaseBookAt(M, 1000, 'up-3');
    expect(await port.claimBookAt(M, 1000, 'retry-b', 'up-2', T0 + DAY_MS)).toBe(true);
  });

  it('claims a retry record, answers busy while the claim is fresh, takes a stale one over and keeps the first answer', async () => {
    const port = await make();
    const lease = 60_000;
    expect(await port.claimRetry('r1', 'up-1', T0, lease, T0 + DAY_MS)).toEqual({ kind: 'claimed', uploadId: 'up-1' });
    expect(await port.claimRetry('r1', 'up-2', T0 + 1000, lease, T0 + DAY_MS)).toEqual({ kind: 'busy' });
    expect(await port.claimRetry('r1', 'up-2', T0 + lease, lease, T0 + DAY_MS)).toEqual({ kind: 'claimed', uploadId: 'up-1' });
    await port.keepAnswer('r1', 'up-1', { at: 5, credited: false, reason: 'too_soon_credit' }, T0 + DAY_MS);
    await port.keepAnswer('r1', 'up-1', { at: 6, credited: true }, T0 + DAY_MS);
    expect(await port.claimRetry('r1', 'up-3', T0 + 2 * lease, lease, T0 + DAY_MS)).toEqual({
      kind: 'answered',
      answer: { at: 5, credited: false, reason: 'too_soon_credit' },
    });
    expect(await port.claimRetry('r1', 'up-3', T0 + DAY_MS, lease, T0 + 2 * DAY_MS)).toEqual({ kind: 'claimed', uploadId: 'up-3' });
  });

  it('releases a pending retry claim for its owner only', async () => {
    const port = await make();
    await port.claimRetry('r2', 'up-1', T0, 60_000, T0 + DAY_MS);
    await port.releaseRetry('r2', 'up-9');
    expect(await port.claimRetry('r2', 'up-2', T0 + 1, 60_000, T0 + DAY_MS)).toEqual({ kind: 'busy' });
    await port.releaseRetry('r2', 'up-1');
    expect(await port.claimRetry('r2', 'up-2', T0 + 2, 60_000, T0 + DAY_MS)).toEqual({ kind: 'claimed', uploadId: 'up-2' });
  });

  it('keeps quarantine records, lists those received before a time oldest first, and deletes one', async () => {
    const port = await make();
    const rec = (received: number) => ({
      market: M,
      at: received - 10,
      received,
      path: `quarantine/${M}/${received}-x.json.gz`,
      uploader: 'h',
      items: 3,
      complete: true,
    });
    await port.putQuarantine(rec(T0 + 2), 'b', 7 * DAY_MS);
    await port.putQuarantine(rec(T0 + 1), 'a', 7 * DAY_MS);
    await port.putQuarantine(rec(T0 + 3), 'c', 7 * DAY_MS);
    const before = await port.quarantinedBefore(M, T0 + 3);
    expect(before.map((r) => r.received)).toEqual([T0 + 1, T0 + 2]);
    expect(before[0]).toMatchObject(rec(T0 + 1));
    await port.deleteQuarantine(M, before[0].sk);
    expect((await port.quarantinedBefore(M, T0 + 10)).map((r) => r.received)).toEqual([T0 + 2, T0 + 3]);
    expect(await port.quarantinedBefore('forever.rp.horde.us', T0 + 10)).toEqual([]);
  });
});
