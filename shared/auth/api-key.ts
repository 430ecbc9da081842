/**
 * API key verification (spec: Authentication rule 4): asked of the identity provider, the verdict cached
 * 5 minutes (a refusal 60 s) in DynamoDB and in memory. Organization keys are refused. Keys that would need
 * the provider are metered per client address first (IPv6 per /48), then against the deployment's budget of
 * verifications (idp-budget.ts), so random keys cannot spend the provider's quota.
 */
import { MINUTE_MS } from '../clock';
import { lookupAddressKey } from '../domain/address-key';
import { KEY_LOOKUPS_PER_MINUTE, keyCheckBudget } from '../domain/flood-limits';
import { LimitError, UnauthenticatedError, UnavailableError } from '../errors';
import type { KeyVerdict } from '../ports/identity';
import type { Services } from '../services';
import { verifyApiKey } from './idp';
import { keyCheckMeter } from './idp-budget';
import { Memo, SingleFlight } from './memo';

export const API_KEY_PREFIX = 'ak_';
export const KEY_CACHE_MS = 5 * MINUTE_MS;
export const KEY_REFUSAL_CACHE_MS = MINUTE_MS;

const memo = new Memo<KeyVerdict>();
const lookups = new SingleFlight<KeyVerdict>();

export interface VerifiedKey {
  userId: string;
  /** The key's scopes: the only features of its user it has (empty: none). */
  scopes: string[];
  /** When the cached verdict lapses and the key is asked about again. */
  until: number;
}

/**
 * The key's user and scopes; 401 for a refused or organization key, 503 when the provider cannot be asked,
 * or when the deployment's budget of verifications is spent (keys verified before keep a share of it), 429
 * when the caller's address already had its share of provider lookups this minute (`ip`: its address key).
 */
export async function resolveApiKey(
  svc: Pick<Services, 'config' | 'identity' | 'log'>,
  key: string,
  keyHash: string,
  now: number,
  ip: string,
): Promise<VerifiedKey> {
  // Several deployments (tests, local runtimes) can share one process: the provider URL scopes the entry.
  const memoKey = `${svc.config.idp.apiUrl}|${keyHash}`;
  let verdict = memo.get(memoKey, now);
  if (!verdict) {
    verdict = await lookups.run(memoKey, async () => {
      const stored = await svc.identity.getKeyVerdict(keyHash, now);
      if (stored) return stored;
      await meterLookup(svc, ip, now);
      await takeKeyCheck(svc, keyHash, now);
      const fresh = await ask(svc, key, now);
      await svc.identity.putKeyVerdict(keyHash, fresh);
      return fresh;
    });
    memo.set(memoKey, verdict, verdict.until);
  }
  if (!verdict.ok) throw new UnauthenticatedError('the API key is not valid');
  // A verdict without scopes was cached before empty scopes meant none (they were stored as null): none.
  return { userId: verdict.userId, scopes: verdict.scopes ?? [], until: verdict.until };
}

/**
 * Counts a provider lookup of an address (atomically, so a concurrent flood cannot pass; IPv6 per /48);
 * 429 past the limit.
 */
async function meterLookup(svc: Pick<Services, 'identity'>, ip: string, now: number): Promise<void> {
  const n = await svc.identity.countRequest(`keylookup:${lookupAddressKey(ip)}`, now);
  if (n > KEY_LOOKUPS_PER_MINUTE) {
    throw new LimitError('rate_limited', `more than ${KEY_LOOKUPS_PER_MINUTE} unknown API keys a minute from this address`, {}, 60);
  }
}

/**
 * Takes a place in the deployment's budget of verifications (idp-budget.ts): from the new keys' share, else,
 * for a key the provider accepted before, from the share kept for those. None left: 503 `unavailable`, as
 * for a provider that cannot be asked (spec: Authentication rule 4); nothing is cached, so it is asked again.
 */
async function takeKeyCheck(svc: Pick<Services, 'config' | 'identity'>, keyHash: string, now: number): Promise<void> {
  const meter = keyCheckMeter(svc.identity);
  const budget = keyCheckBudget(svc.config.env);
  if (await meter.take(budget, false, now)) return;
  if ((await svc.identity.wasKeyVerified(keyHash, now)) && (await meter.take(budget, true, now))) return;
  throw new UnavailableError('unavailable', 'the identity provider cannot be asked about more keys just now');
}

async function ask(svc: Pick<Services, 'config' | 'log'>, key: string, now: number): Promise<KeyVerdict> {
  const check = await verifyApiKey(svc, key);
  if (!check.ok || !check.subject.startsWith('user_')) return { ok: false, until: now + KEY_REFUSAL_CACHE_MS };
  return { ok: true, userId: check.subject, scopes: check.scopes, until: now + KEY_CACHE_MS };
}
