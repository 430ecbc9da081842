/**
 * What a caller sees of the market (spec api.md Freshness, Roles): live answers with `prices.live`, else the
 * hourly view as of the top of the service's hour; chart resolutions by the candle features. Pure: times come
 * from the service's answers (`now`), never from the browser's clock.
 */

const HOUR_MS = 3_600_000;

export type Resolution = 'd1' | 'h1' | 'm1';

/** Each resolution, the feature it needs (spec api.md Market reads: candles) and its name for people. */
export const RESOLUTIONS: ReadonlyArray<{ res: Resolution; feature: string; label: string }> = [
  { res: 'd1', feature: 'candles.daily', label: 'Daily' },
  { res: 'h1', feature: 'candles.hourly', label: 'Hourly' },
  { res: 'm1', feature: 'candles.minute', label: 'Minute' },
];

/** The resolutions the caller's features allow, coarsest first. */
export const allowedResolutions = (features: readonly string[]): Resolution[] => RESOLUTIONS.filter((r) => features.includes(r.feature)).map((r) => r.res);

/** The resolution to show: the one asked for when allowed, else the finest allowed below minutes (hourly), else the first. */
export function pickResolution(features: readonly string[], asked: string | null): Resolution | null {
  const allowed = allowedResolutions(features);
  if (asked && (allowed as string[]).includes(asked)) return asked as Resolution;
  return allowed.includes('h1') ? 'h1' : (allowed[0] ?? null);
}

/** Whether the caller reads live prices (and may open the live table). */
export const readsLive = (features: readonly string[]): boolean => features.includes('prices.live') && features.includes('live');

/** The start of the hour the hourly view shows (spec: `cut` = floor(now / 3600000) * 3600000). */
export const hourlyCut = (now: number): number => Math.floor(now / HOUR_MS) * HOUR_MS;

/** `Hourly view as of 14:00 UTC, 2 Nov 2026`: the time the hourly view shows, in UTC so it reads the same everywhere. */
export function hourlyLabel(now: number): string {
  const d = new Date(hourlyCut(now));
  const month = d.toLocaleString('en-GB', { month: 'short', timeZone: 'UTC' });
  return `Hourly view as of ${String(d.getUTCHours()).padStart(2, '0')}:00 UTC, ${d.getUTCDate()} ${month} ${d.getUTCFullYear()}`;
}

/** What the caller should do to see live prices: sign in, or earn or buy the feature. */
export function liveHint(signedIn: boolean): string {
  return signedIn
    ? 'Live prices come with the contributor and premium plans: upload a complete order book from the desktop app to become a contributor for 14 days.'
    : 'Sign in to see live prices (contributor and premium plans).';
}
