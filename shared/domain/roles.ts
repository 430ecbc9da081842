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
