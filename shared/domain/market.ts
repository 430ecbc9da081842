import { ValidationError } from '../errors';

export const RULESETS = ['normal', 'pvp', 'rp'] as const;
export const FACTIONS = ['alliance', 'horde'] as const;

/** The six markets: `forever.<ruleset>.<faction>.us`. */
export const MARKETS: readonly string[] = RULESETS.flatMap((r) => FACTIONS.map((f) => `forever.${r}.${f}.us`));

export const DEFAULT_MARKET = 'forever.normal.alliance.us';

const MARKET_SET = new Set(MARKETS);

export const isMarket = (value: unknown): value is string => typeof value === 'string' && MARKET_SET.has(value);

/** A market id or 400 `bad_market` (missing or unknown). */
export function parseMarket(value: unknown): string {
  if (!isMarket(value)) throw new ValidationError('bad_market', value ? 'unknown market' : 'market is required');
  return value;
}

/** A short, file-safe label for a market: `normal-alliance`. */
export const marketLabel = (market: string): string => market.split('.').slice(1, 3).join('-');
