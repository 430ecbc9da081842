/**
 * Spec "Alert evaluation": after every merge of a market, every enabled alert of that market whose account
 * has `alerts` now is evaluated at server time `now` with the Alert state table. A firing writes the live
 * fan-out's record (keys.ts `alertFiredPk`) and queues one push message per account (alerts of one merge
 * go out as one). The merge calls `evaluateAlerts` once per merge, after its rows and candles are written.
 */
import { accountClaims } from '../auth/profile';
import {
  type AlertOutcome,
  conditionHolds,
  type DayClose,
  type DealCandidate,
  evaluateMarketDeal,
  evaluateSingle,
  evaluationDay,
  fairPrice,
  isMarketWide,
  type MarketAlert,
  marketDeals,
  type RowReading,
  refClose,
} from '../domain/alerts';
import { entitlementsOf, type Feature } from '../domain/roles';
import type { StoredAlert } from '../ports/settings';
import { enqueuePush } from '../push/enqueue';
import type { Services } from '../services';

/** What the merge hands over: the scan's `at`, the rows after the merge, and day candle closes on demand. */
export interface AlertMergeInput {
  /** The merged scan's `at`; the evaluation's day is floor(at / 86400000). */
  at: number;
  /** The market's rows after the merge (a `RowTable` fits): key → `{price, quantity, at}`. */
  rows: ReadonlyMap<number, RowReading>;
  /**
   * `[day, close]` of the day candles of `keys` on days before `beforeDay` (the 90 retained days cover `ref`;
   * `fair` uses the last 30). Called at most once per evaluation, only when a rise, fall or deal alert needs it.
   */
  dayCloses(keys: readonly number[], beforeDay: number): Promise<ReadonlyMap<number, readonly DayClose[]>>;
}

export interface EvaluateOptions {
  /** The account's features now; default: its stored claims (refreshed from the identity provider every 10 minutes). */
  featuresOf?: (userId: string) => Promise<readonly Feature[]>;
  /** Server time of the evaluation; default the clock. A merge passes its own, so a repeat evaluates at the same time. */
  now?: number;
  /** The merge seq, recorded with each firing (a repeated merge reads its firings back by it). */
  seq?: number;
  /** Queue the firings' pushes (default true); a merge sends them itself with those of an earlier attempt. */
  push?: boolean;
}

export interface FiredAlert {
  userId: string;
  alert: MarketAlert;
}

export interface AlertEvaluation {
  /** Alerts evaluated (enabled, owner holding `alerts`). */
  evaluated: number;
  fired: FiredAlert[];
}

const PARALLEL = 25;

async function inChunks<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += PARALLEL) out.push(...(await Promise.all(items.slice(i, i + PARALLEL).map(fn))));
  return out;
}

/** Accounts among `userIds` holding `alerts` now; an account whose claims cannot be read is skipped this time. */
async function entitledAccounts(
  svc: Pick<Services, 'log'>,
  userIds: string[],
  featuresOf: (userId: string) => Promise<readonly Feature[]>,
): Promise<Set<string>> {
  const ok = await inChunks(userIds, async (userId) => {
    try {
      return (await featuresOf(userId)).includes('alerts');
    } catch (err) {
      svc.log('warn', 'alert owner not evaluated: claims unavailable', { error: err instanceof Error ? err.message : String(err) });
      return false;
    }
  });
  return new Set(userIds.filter((_, i) => ok[i]));
}

const needsCloses = (a: MarketAlert): boolean => isMarketWide(a) || a.kind === 'rise' || a.kind === 'fall' || a.kind === 'deal';

/** Evaluates the market's alerts after one merge, persists their state, announces and queues the firings. */
export async function evaluateAlerts(
  svc: Pick<Services, 'config' | 'clock' | 'queues' | 'settings' | 'identity' | 'log'>,
  market: string,
  input: AlertMergeInput,
  opts: EvaluateOptions = {},
): Promise<AlertEvaluation> {
  const now = opts.now ?? svc.clock.now();
  const stored = await svc.settings.enabledMarketAlerts(market);
  if (stored.length === 0) return { evaluated: 0, fired: [] };
  const featuresOf =
    opts.featuresOf ??
    (async (userId: string) => {
      const { claims } = await accountClaims(svc, userId, now);
      return entitlementsOf(claims, now).features;
    });
  const entitled = await entitledAccounts(svc, [...new Set(stored.map((s) => s.userId))], featuresOf);
  const active = stored.filter((s) => entitled.has(s.userId));
  if (active.length === 0) return { evaluated: 0, fired: [] };

  const day = evaluationDay(input.at);
  const wanted = new Set<number>();
  for (const s of active) {
    if (!needsCloses(s.alert)) continue;
    if (!isMarketWide(s.alert)) wanted.add(s.alert.item);
    else for (const [key, row] of input.rows) if (row.price !== null) wanted.add(key);
  }
  const closes =
    wanted.size > 0
      ? await input.dayCloses(
          [...wanted].sort((a, b) => a - b),
          day,
        )
      : new Map<number, readonly DayClose[]>();
  const fairs = new Map<number, number | null>();
  const fairOf = (key: number): number | null => {
    if (!fairs.has(key)) fairs.set(key, fairPrice(closes.get(key) ?? [], day));
    return fairs.get(key) ?? null;
  };
  const dealsByValue = new Map<number, DealCandidate[]>();

  const outcomeOf = (s: StoredAlert): AlertOutcome => {
    const a = s.alert;
    if (isMarketWide(a)) {
      if (!dealsByValue.has(a.value)) dealsByValue.set(a.value, marketDeals(input.rows, fairOf, a.value));
      return evaluateMarketDeal(a, s.remembered, dealsByValue.get(a.value) ?? [], now);
    }
    const row = input.rows.get(a.item) ?? null;
    const ref = a.kind === 'rise' || a.kind === 'fall' ? refClose(closes.get(a.item) ?? [], day) : null;
    const fair = a.kind === 'deal' ? fairOf(a.item) : null;
    const holds = conditionHolds(a.kind, a.value, row, ref, fair);
    return evaluateSingle(a, holds, [a.item, row?.price ?? null, row?.quantity ?? 0], now);
  };

  const changed = active.map((s) => ({ s, o: outcomeOf(s) })).filter(({ o }) => o.changed);
  const saved = await inChunks(changed, ({ s, o }) =>
    svc.settings.saveEvaluation(
      s,
      o.alert,
      o.remembered,
      o.fired ? { userId: s.userId, market, at: now, alert: o.alert, ...(opts.seq === undefined ? {} : { seq: opts.seq }) } : null,
    ),
  );
  // An alert the account edited meanwhile (its save lost) neither fires nor announces.
  const fired = changed.filter(({ o }, i) => o.fired && saved[i]).map(({ s, o }) => ({ userId: s.userId, alert: o.alert }));
  if (opts.push !== false) await pushFired(svc, fired);
  return { evaluated: active.length, fired };
}

/**
 * Queues the pushes of firings: one message per account (spec: alerts of one merge go out as one). Queued
 * whether or not push is set up: the merge holds no VAPID key (least privilege), so only the push function,
 * which does, can tell; it drops them when push is not configured.
 */
export async function pushFired(svc: Pick<Services, 'queues'>, fired: readonly FiredAlert[]): Promise<void> {
  if (fired.length === 0) return;
  const byUser = new Map<string, MarketAlert[]>();
  for (const f of fired) byUser.set(f.userId, [...(byUser.get(f.userId) ?? []), f.alert]);
  await enqueuePush(
    svc,
    [...byUser].map(([userId, alerts]) => ({ t: 'alerts' as const, userId, alerts })),
  );
}
