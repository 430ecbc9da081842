/** Roles, features and limits (DESIGN: "Decisions the spec leaves open"). Pure: `now` is passed in. */
export const FEATURES = [
  'prices.live',
  'candles.daily',
  'candles.hourly',
  'candles.minute',
  'depth',
  'books',
  'live',
  'watchlist',
  'alerts',
  'boards',
  'api.keys',
  'api.read',
  'api.upload',
  'upload.device',
  'admin',
] as const;
export type Feature = (typeof FEATURES)[number];

export type Role = 'anon' | 'free' | 'contributor' | 'premium';

/** How a caller proved who it is (none: anonymous). */
export type CallerKind = 'anon' | 'session' | 'device' | 'apiKey';
/** The credentials a live socket can be opened with: every kind but anonymous. */
export type SocketKind = Exclude<CallerKind, 'anon'>;

const ANON: Feature[] = ['candles.daily', 'candles.hourly'];
const FREE: Feature[] = [...ANON, 'live', 'watchlist', 'alerts', 'boards', 'api.keys', 'api.read', 'api.upload', 'upload.device'];
const CONTRIBUTOR: Feature[] = [...FREE, 'prices.live', 'depth', 'books'];
const PREMIUM: Feature[] = [...CONTRIBUTOR, 'candles.minute'];

export const ROLE_FEATURES: Record<Role, readonly Feature[]> = { anon: ANON, free: FREE, contributor: CONTRIBUTOR, premium: PREMIUM };

export interface Limits {
  apiPerMinute: number;
  watchlist: number;
  alerts: number;
  historyDays: number;
  boards: number;
  /**
   * Live sockets an account may have open at once, across markets and credentials (issue 23 point 3): one
   * per market for each of three clients is 18, so 20 leaves room for a reload whose old socket is not gone
   * yet; premium accounts run more screens. Anonymous callers get no socket at all (401).
   */
  liveSockets: number;
}

export const ROLE_LIMITS: Record<Role, Limits> = {
  anon: { apiPerMinute: 60, watchlist: 0, alerts: 0, historyDays: 7, boards: 20, liveSockets: 0 },
  free: { apiPerMinute: 120, watchlist: 50, alerts: 10, historyDays: 7, boards: 20, liveSockets: 20 },
  contributor: { apiPerMinute: 300, watchlist: 100, alerts: 50, historyDays: 90, boards: 20, liveSockets: 20 },
  premium: { apiPerMinute: 600, watchlist: 200, alerts: 200, historyDays: 90, boards: 20, liveSockets: 40 },
};

/** What an identity claims, from a session token or the identity provider's user record. */
export interface Claims {
  plan?: string | null;
  contributorUntil?: number | null;
  grants?: readonly string[];
  withhold?: readonly string[];
}

export interface Entitlements {
  roles: Role[];
  features: Feature[];
  limits: Limits;
}

const isFeature = (f: string): f is Feature => (FEATURES as readonly string[]).includes(f);

/** Roles of a signed-in account: `free` always, `contributor` while the window is open, `premium` from the plan. */
export function entitlementsOf(claims: Claims | null, now: number): Entitlements {
  if (!claims) return { roles: ['anon'], features: [...ANON], limits: { ...ROLE_LIMITS.anon } };
  const roles: Role[] = ['free'];
  if (typeof claims.contributorUntil === 'number' && claims.contributorUntil > now) roles.push('contributor');
  if (claims.plan === 'premium') roles.push('premium');
  const top = roles[roles.length - 1];
  const features = new Set<Feature>(ROLE_FEATURES[top]);
  for (const r of roles) for (const f of ROLE_FEATURES[r]) features.add(f);
  for (const g of claims.grants ?? []) if (isFeature(g)) features.add(g);
  for (const w of claims.withhold ?? []) if (isFeature(w)) features.delete(w);
  const limits = { ...ROLE_LIMITS[top] };
  return { roles, features: FEATURES.filter((f) => features.has(f)), limits };
}

/**
 * Role limits that count something only a feature lets the caller make: without the feature the limit is 0 (as
 * anonymous callers have it). `boards` is not one: the spec gives every role the same 20.
 */
const LIMIT_FEATURE = { watchlist: 'watchlist', alerts: 'alerts' } as const satisfies Partial<Record<keyof Limits, Feature>>;
/** What contributor adds over free (spec: "`depth`, `books` and `historyDays` of 90 belong to contributor and premium"). */
const LONG_HISTORY_FEATURES = CONTRIBUTOR.filter((f) => !FREE.includes(f));

/**
 * An API key's entitlements (spec Authentication rule 5; DESIGN: `POST /_local/api-keys`): its user's, narrowed
 * to the key's scopes, and the limits with them, so no answer offers a key more than its features allow.
 * `scopes` null: not a scoped credential (sessions, devices), the entitlements as they are; an empty list
 * names no feature, so such a key has none. The narrowed limits:
 * - `watchlist`, `alerts`: 0 without the feature that writes them;
 * - `historyDays`: the free role's (7) unless the key keeps every one of its user's features that contributor
 *   adds over free (`prices.live`, `depth`, `books`), the features the longer history belongs with;
 * - `apiPerMinute` stays the user's: a quota of the key's own requests, not a capability.
 * Roles stay the user's (they say who the user is, not what the key may do).
 */
export function scopedEntitlements(ent: Entitlements, scopes: readonly string[] | null): Entitlements {
  if (scopes === null) return ent;
  const features = ent.features.filter((f) => scopes.includes(f));
  const limits: Limits = { ...ent.limits };
  for (const [limit, feature] of Object.entries(LIMIT_FEATURE) as Array<[keyof typeof LIMIT_FEATURE, Feature]>) {
    if (!features.includes(feature)) limits[limit] = 0;
  }
  const keepsLongHistory = LONG_HISTORY_FEATURES.every((f) => !ent.features.includes(f) || features.includes(f));
  if (!keepsLongHistory) limits.historyDays = Math.min(limits.historyDays, ROLE_LIMITS.free.historyDays);
  return { roles: ent.roles, features, limits };
}
