/**
 * The settings port: an account's watchlist and boards document, its market alerts (with the evaluation state a
 * merge keeps and the firings the live fan-out announces), its Web Push subscriptions and push window.
 */

import type { MarketAlert } from '../domain/alerts';
import type { BoardsDocument } from '../domain/boards';
import type { BrowserSubscription, PushPrefs, PushSubscriptionView } from '../domain/push-subscription';

/** An alert as stored: the answer's fields, its owner, a whole-market deal's remembered set and the edit revision. */
export interface StoredAlert {
  userId: string;
  alert: MarketAlert;
  remembered: number[];
  /** Bumped by every account write, so an evaluation never overwrites an edit it did not see. */
  rev: number;
}

/** The live fan-out's record of one firing (see keys.ts `alertFiredPk`). */
export interface AlertFiredRecord {
  userId: string;
  market: string;
  at: number;
  alert: MarketAlert;
  /** The merge seq whose evaluation fired it, so a repeated merge finds its own firings. */
  seq?: number;
}

export interface StoredSubscription extends PushSubscriptionView {
  keys: BrowserSubscription['keys'];
}

/** The account's push window: when it last pushed, the alerts waiting for the window, the flush under way. */
export interface PushState {
  lastSent: number | null;
  /** Alerts waiting (the newest few, for the group text) and how many waited in all. */
  pending: MarketAlert[];
  pendingCount: number;
  /** When a flush message is due; null when none is queued. */
  flushAt: number | null;
  rev: number;
}

export interface SettingsPort {
  /** The account's watchlist (ordered keys); empty before the first PUT. */
  getWatchlist(userId: string): Promise<number[]>;
  putWatchlist(userId: string, items: number[], now: number): Promise<void>;
  /** The account's boards document; empty lists before the first PUT. */
  getBoards(userId: string): Promise<BoardsDocument>;
  putBoards(userId: string, doc: BoardsDocument, now: number): Promise<void>;
  /** The account's alerts in every market, newest first. */
  listAccountAlerts(userId: string): Promise<StoredAlert[]>;
  /** One of the account's alerts by id, or null. */
  getAccountAlert(userId: string, id: string): Promise<StoredAlert | null>;
  /** Stores a new alert unless the account already holds `limit` of them; false when the limit stops it. */
  createAlert(userId: string, alert: MarketAlert, limit: number): Promise<boolean>;
  /**
   * Replaces an alert's input: armed again, the deal set forgotten, `last` kept as stored (an evaluation may have
   * set it since it was read). Moving to another market moves the item. Answers the stored alert, or null when gone.
   */
  replaceStoredAlert(old: StoredAlert, next: MarketAlert): Promise<MarketAlert | null>;
  /** Deletes one of the account's alerts; false when it did not exist. */
  deleteStoredAlert(old: StoredAlert): Promise<boolean>;
  /** Every enabled alert of a market (what one merge evaluates). */
  enabledMarketAlerts(market: string): Promise<StoredAlert[]>;
  /**
   * Persists an evaluation unless the account edited the alert meanwhile (`rev` moved); a firing also writes the
   * live fan-out's record in the same transaction. False when the edit won (nothing written, nothing to announce).
   */
  saveEvaluation(s: StoredAlert, next: MarketAlert, remembered: number[], fired: AlertFiredRecord | null): Promise<boolean>;
  /** The firings recorded for `market` at server time `at` (fired records live a day). */
  firedAt(market: string, at: number): Promise<AlertFiredRecord[]>;
  /** The account's subscriptions, oldest first. */
  listSubscriptions(userId: string): Promise<StoredSubscription[]>;
  /**
   * Subscribes an endpoint for the account, or replaces its prefs (`prefs` undefined keeps them); an endpoint
   * another account held is taken over. Keeps at most `max` subscriptions per account: the oldest go.
   */
  putSubscription(userId: string, sub: BrowserSubscription, prefs: PushPrefs | undefined, now: number, max: number): Promise<StoredSubscription>;
  /** Removes one of the account's subscriptions; false when it held none for that endpoint. */
  deleteSubscription(userId: string, endpoint: string): Promise<boolean>;
  /** The account's push window state (empty when it never pushed). */
  getPushState(userId: string): Promise<PushState>;
  /** Writes the state if nobody else did since it was read (`rev`); false when another delivery won the race. */
  putPushState(userId: string, state: PushState, now: number): Promise<boolean>;
}
