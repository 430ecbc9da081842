import { describe, expect, it } from 'vitest';
import { type Claims, entitlementsOf, ROLE_LIMITS, scopedEntitlements } from '../../shared/domain/roles';
import { socketEntitlements } from '../../shared/live/credentials';

/**
 * Issue 23 point 9: scopes mean what they say. A key has only those of its user's features its scopes name (an
 * empty list: none), and the limits follow the narrowed features: `historyDays` of 90 belongs with contributor's
 * features (spec: "`depth`, `books` and `historyDays` of 90 belong to contributor and premium").
 */

const NOW = Date.UTC(2026, 10, 2, 12);
const CONTRIBUTOR: Claims = { contributorUntil: NOW + 86_400_000 };
const PREMIUM: Claims = { plan: 'premium' };
const key = (claims: Claims, scopes: string[] | null) => scopedEntitlements(entitlementsOf(claims, NOW), scopes);

describe('API key scopes', () => {
  it('give a key with an empty scope list no feature and nothing to make', () => {
    const none = key(PREMIUM, []);
    expect(none.features).toEqual([]);
    expect(none.limits).toMatchObject({ watchlist: 0, alerts: 0, historyDays: 7 });
  });

  it('keep every entitlement of a credential that has no scopes (sessions, devices)', () => {
    expect(key(PREMIUM, null)).toEqual(entitlementsOf(PREMIUM, NOW));
  });

  it('keep a feature only when the user has it and the scopes name it', () => {
    expect(key({}, ['api.read', 'prices.live', 'candles.minute']).features).toEqual(['api.read']);
    expect(key(PREMIUM, ['api.read', 'candles.minute']).features).toEqual(['candles.minute', 'api.read']);
  });

  it("give a contributor's key without prices.live or depth the free role's historyDays", () => {
    expect(entitlementsOf(CONTRIBUTOR, NOW).limits.historyDays).toBe(90);
    expect(key(CONTRIBUTOR, ['api.read']).limits.historyDays).toBe(ROLE_LIMITS.free.historyDays);
    expect(key(CONTRIBUTOR, ['api.read', 'prices.live', 'books']).limits.historyDays).toBe(7);
    expect(key(CONTRIBUTOR, ['api.read', 'depth', 'books']).limits.historyDays).toBe(7);
    expect(key(CONTRIBUTOR, ['api.read', 'prices.live', 'depth', 'books']).limits.historyDays).toBe(90);
    // Premium's own addition (minute candles) is not what the longer history goes with.
    expect(key(PREMIUM, ['api.read', 'prices.live', 'depth', 'books']).limits.historyDays).toBe(90);
    // A free user never had more than 7, whatever the scopes.
    expect(key({}, ['api.read', 'prices.live', 'depth', 'books']).limits.historyDays).toBe(7);
  });

  it("leave the role's watchlist and alerts limits only with their features; boards are 20 for every role", () => {
    const user = entitlementsOf(PREMIUM, NOW).limits;
    expect(key(PREMIUM, ['api.read', 'alerts']).limits).toMatchObject({ alerts: user.alerts, watchlist: 0, boards: 20 });
    expect(key(PREMIUM, ['watchlist']).limits).toMatchObject({ alerts: 0, watchlist: user.watchlist, boards: 20 });
  });

  it("keep the user's request rate and roles: a quota and who the user is, not capabilities", () => {
    const narrowed = key(PREMIUM, []);
    expect(narrowed.limits.apiPerMinute).toBe(ROLE_LIMITS.premium.apiPerMinute);
    expect(narrowed.roles).toEqual(entitlementsOf(PREMIUM, NOW).roles);
  });

  it('narrow a live socket the same way, historyDays included', () => {
    const socket = socketEntitlements(CONTRIBUTOR, ['live', 'api.read'], NOW);
    expect(socket).toEqual(key(CONTRIBUTOR, ['live', 'api.read']));
    expect(socket.limits.historyDays).toBe(7);
  });
});
