/**
 * The deployment-wide ceiling on API key verifications asked of the identity provider (issue 23 point 4).
 * The per-address meter (api-key.ts) cannot protect the provider's quota alone: it is per deployment, and
 * enough addresses spend it, after which every uncached key is 503 and an operator's `withhold` cannot take
 * effect. So every verification also takes a place in a shared counter of the current window (the stage's
 * `keyCheckBudget`, domain/flood-limits.ts), with one conditional `ADD`: a key never verified before only
 * while the window is below the new keys' share, a key verified before while it is below the whole budget.
 * The rest is reserved for keys the deployment verified before, so a flood of new keys cannot starve them.
 *
 * A container that was refused a place remembers it for the rest of the window and refuses without writing
 * (the counter only grows within its window).
 */
import type { KeyCheckBudget } from '../domain/flood-limits';
import type { IdentityPort } from '../ports/identity';

/** The shared counter's id (one per deployment: the table is the deployment's). */
const COUNTER = 'idp:key-checks';

export class KeyCheckMeter {
  /** The last window in which each share was found spent, in this container. */
  private readonly spent = { seen: Number.NEGATIVE_INFINITY, fresh: Number.NEGATIVE_INFINITY };

  constructor(private readonly store: Pick<IdentityPort, 'reserveCount'>) {}

  /** Takes a verification's place in `budget` at `now` for a key verified before (`seen`) or not; false when none is left. */
  async take(budget: KeyCheckBudget, seen: boolean, now: number): Promise<boolean> {
    const window = Math.floor(now / budget.windowMs);
    const share = seen ? 'seen' : 'fresh';
    if (this.spent[share] >= window) return false;
    const below = seen ? budget.perWindow : budget.newKeysPerWindow;
    const taken = await this.store.reserveCount(COUNTER, now, 1, below, budget.windowMs);
    if (taken !== null) return true;
    this.spent[share] = window;
    // The whole budget spent is the new keys' share spent too.
    if (seen) this.spent.fresh = window;
    return false;
  }
}

const meters = new WeakMap<object, KeyCheckMeter>();

/** The container's key-check meter on a counter store (one per store: a local process may run several stages). */
export function keyCheckMeter(store: Pick<IdentityPort, 'reserveCount'>): KeyCheckMeter {
  let m = meters.get(store);
  if (!m) {
    m = new KeyCheckMeter(store);
    meters.set(store, m);
  }
  return m;
}
