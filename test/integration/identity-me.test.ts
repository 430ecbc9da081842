import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extendContributorWindow, recordContribution } from '../../shared/auth/contributor';
import type { ContributionRecord } from '../../shared/domain/contributor';
import { FEATURES, ROLE_FEATURES, ROLE_LIMITS } from '../../shared/domain/roles';
import { type Local, startLocal } from '../support/local';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const MARKET = 'forever.normal.alliance.us';

/** Integration: GET /api/v1/me per role, the contributor window and GET /api/v1/contributions. */
describe('account: /me, contributor window and contributions', () => {
  let local: Local;
  const signIn = async (input: Record<string, unknown> = {}) => {
    const u = await local.user(input);
    return { ...u, token: await local.session(u.id, { expiresIn: 90 * 86_400 }) };
  };
  const me = async (token?: string) => (await local.api('GET', '/api/v1/me', { token, headers: { 'x-forwarded-for': '192.0.2.77' } })).body;
  const claimOf = async (userId: string) => (await local.api('GET', `/_local/users/${userId}`)).body.publicMetadata.contributorUntil;
  const record = (over: Partial<ContributionRecord> = {}): ContributionRecord => ({
    market: MARKET,
    at: 0,
    kind: 'book',
    items: 120,
    complete: true,
    credited: true,
    ...over,
  });

  beforeAll(async () => {
    local = await startLocal();
  });
  afterAll(() => local.close());

  describe('GET /api/v1/me', () => {
    it('describes an anonymous caller', async () => {
      const now = await local.now();
      expect(await me()).toEqual({
        user: null,
        roles: ['anon'],
        features: FEATURES.filter((f) => ROLE_FEATURES.anon.includes(f)),
        limits: ROLE_LIMITS.anon,
        contributor: { until: null, scans7d: 0 },
        now,
      });
    });

    it('describes a free account', async () => {
      const u = await signIn({ email: 'free@example.test' });
      const now = await local.now();
      expect(await me(u.token)).toEqual({
        user: { id: u.id, email: 'free@example.test' },
        roles: ['free'],
        features: FEATURES.filter((f) => ROLE_FEATURES.free.includes(f)),
        limits: ROLE_LIMITS.free,
        contributor: { until: null, scans7d: 0 },
        now,
      });
    });

    it('describes a contributor while the window is open, and not after', async () => {
      const now = await local.now();
      const u = await signIn({ contributorUntil: now + DAY });
      const body = await me(u.token);
      expect(body).toMatchObject({ roles: ['free', 'contributor'], limits: ROLE_LIMITS.contributor, contributor: { until: now + DAY, scans7d: 0 } });
      expect(body.features).toEqual(expect.arrayContaining(['prices.live', 'depth', 'books']));
      expect(body.features).not.toContain('candles.minute');
      const lapsed = await signIn({ contributorUntil: now - 1 });
      expect((await me(lapsed.token)).roles).toEqual(['free']);
    });

    it('describes a premium account', async () => {
      const u = await signIn({ plan: 'premium' });
      const body = await me(u.token);
      expect(body).toMatchObject({ roles: ['free', 'premium'], limits: ROLE_LIMITS.premium });
      expect([...body.features].sort()).toEqual([...ROLE_FEATURES.premium].sort());
    });

    it('adds granted features (admin) and removes withheld ones', async () => {
      const admin = await signIn({ grants: ['admin'] });
      const body = await me(admin.token);
      expect(body.roles).toEqual(['free']);
      expect(body.features).toEqual(FEATURES.filter((f) => f === 'admin' || ROLE_FEATURES.free.includes(f)));
      const held = await signIn({ withhold: ['alerts'] });
      expect((await me(held.token)).features).not.toContain('alerts');
    });
  });

  describe('contributor window', () => {
    it('extends to now + 14 days, writes the claim on the first credit, and /me shows the stored end', async () => {
      const u = await signIn();
      const now = await local.now();
      expect(await extendContributorWindow(local.runtime.operator, u.id, now)).toEqual({ until: now + 14 * DAY, claimWritten: true });
      expect(await claimOf(u.id)).toBe(now + 14 * DAY);
      // The session was minted before the credit: its claim lags, the stored window is the truth.
      expect((await me(u.token)).contributor.until).toBe(now + 14 * DAY);
    });

    it('writes the claim at most once an hour, never moving the end back', async () => {
      const u = await signIn();
      const t0 = await local.now();
      await extendContributorWindow(local.runtime.operator, u.id, t0);
      await local.advance(30 * MINUTE);
      expect(await extendContributorWindow(local.runtime.operator, u.id, t0 + 30 * MINUTE)).toEqual({
        until: t0 + 30 * MINUTE + 14 * DAY,
        claimWritten: false,
      });
      expect(await claimOf(u.id)).toBe(t0 + 14 * DAY);
      await local.advance(30 * MINUTE);
      expect(await extendContributorWindow(local.runtime.operator, u.id, t0 + HOUR)).toEqual({ until: t0 + HOUR + 14 * DAY, claimWritten: true });
      expect(await claimOf(u.id)).toBe(t0 + HOUR + 14 * DAY);
      expect((await extendContributorWindow(local.runtime.operator, u.id, t0)).until).toBe(t0 + HOUR + 14 * DAY);
    });

    it('retries a failed claim write on the next credit', async () => {
      const u = await signIn();
      const now = await local.now();
      await local.faults({ identity: 'down' });
      try {
        expect(await extendContributorWindow(local.runtime.operator, u.id, now)).toEqual({ until: now + 14 * DAY, claimWritten: false });
      } finally {
        await local.faults({ identity: 'up' });
      }
      expect(await claimOf(u.id)).toBeUndefined();
      expect((await extendContributorWindow(local.runtime.operator, u.id, now + 1)).claimWritten).toBe(true);
      expect(await claimOf(u.id)).toBe(now + 1 + 14 * DAY);
    });

    it('gives a new session the contributor role from the written claim', async () => {
      const u = await local.user();
      await extendContributorWindow(local.runtime.operator, u.id, await local.now());
      expect((await me(await local.session(u.id))).roles).toEqual(['free', 'contributor']);
    });
  });

  describe('GET /api/v1/contributions', () => {
    it("lists the caller's own uploads newest first with the window end; scans7d counts credited ones", async () => {
      const u = await signIn();
      const other = await signIn();
      const t0 = await local.now();
      await recordContribution(local.runtime.operator, u.id, record({ at: t0 - 1000 }));
      await local.advance(MINUTE);
      await recordContribution(local.runtime.operator, u.id, record({ at: t0, credited: false, reason: 'too_small', items: 3 }));
      await recordContribution(local.runtime.operator, other.id, record());
      const res = await local.api('GET', '/api/v1/contributions', { token: u.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        scans: [
          { market: MARKET, at: t0, kind: 'book', items: 3, complete: true, credited: false, reason: 'too_small' },
          { market: MARKET, at: t0 - 1000, kind: 'book', items: 120, complete: true, credited: true },
        ],
        until: null,
        now: t0 + MINUTE,
      });
      expect((await me(u.token)).contributor.scans7d).toBe(1);
      const since = await local.api('GET', `/api/v1/contributions?from=${t0 + 1}`, { token: u.token });
      // Received since `from`: only the upload recorded a minute later.
      expect(since.body.scans).toEqual([{ market: MARKET, at: t0, kind: 'book', items: 3, complete: true, credited: false, reason: 'too_small' }]);
    });

    it('counts scans7d over 7 days and lists at most 30 days back', async () => {
      const u = await signIn();
      await recordContribution(local.runtime.operator, u.id, record());
      await local.advance(7 * DAY - 1);
      expect((await me(u.token)).contributor.scans7d).toBe(1);
      await local.advance(1);
      expect((await me(u.token)).contributor.scans7d).toBe(1);
      await local.advance(1);
      expect((await me(u.token)).contributor.scans7d).toBe(0);
      await local.advance(23 * DAY - 1);
      expect((await local.api('GET', '/api/v1/contributions?from=0', { token: u.token })).body.scans).toEqual([record()]);
      await local.advance(1);
      expect((await local.api('GET', '/api/v1/contributions?from=0', { token: u.token })).body.scans).toEqual([]);
    });

    it('answers at most 1000 records', async () => {
      const u = await signIn();
      const t0 = await local.now();
      const svc = local.runtime.operator;
      // 11 batches of 91, each received a millisecond after the one before (within a batch no order is defined).
      for (let batch = 0; batch < 11; batch++) {
        if (batch > 0) await local.advance(1);
        await Promise.all(Array.from({ length: 91 }, (_, i) => recordContribution(svc, u.id, record({ at: t0 - batch * 91 - i }), `r${batch}-${i}`)));
      }
      const res = await local.api('GET', '/api/v1/contributions', { token: u.token });
      // 1001 records: the newest 1000, newest first, so one of the first batch received is left out.
      const scans = res.body.scans as ContributionRecord[];
      const batchOf = (r: ContributionRecord) => Math.floor((t0 - r.at) / 91);
      expect(scans.map(batchOf)).toEqual([...Array.from({ length: 10 }, (_, b) => Array(91).fill(10 - b)).flat(), ...Array(90).fill(0)]);
      expect(new Set(scans.map((r) => r.at)).size).toBe(1000);
      expect(scans.every((r) => r.market === MARKET && r.items === 120 && r.credited && r.kind === 'book')).toBe(true);
    });

    it('answers 400 bad_query for a malformed from and 401 to anonymous callers', async () => {
      const u = await signIn();
      for (const from of ['-5', 'yesterday', '1.5']) {
        const res = await local.api('GET', `/api/v1/contributions?from=${from}`, { token: u.token });
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ error: 'bad_query' });
      }
      expect((await local.api('GET', '/api/v1/contributions', { headers: { 'x-forwarded-for': '192.0.2.78' } })).status).toBe(401);
    });
  });
});
