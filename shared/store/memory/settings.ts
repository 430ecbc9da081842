/** In-memory fake of the settings port (unit tests); the contract suite holds it to the DynamoDB adapter. */
import type { MarketAlert } from '../../domain/alerts';
import { type BoardsDocument, emptyBoards } from '../../domain/boards';
import type { BrowserSubscription, PushPrefs } from '../../domain/push-subscription';
import type { ChangeSink } from '../../ports/changes';
import type { AlertFiredRecord, PushState, SettingsPort, StoredAlert, StoredSubscription } from '../../ports/settings';

const copy = <T>(v: T): T => structuredClone(v);
const PENDING_KEPT = 20;

/** What the table's alert item holds: the alert, its owner, the remembered deal set and the revision. */
interface AlertRecord {
  userId: string;
  alert: MarketAlert;
  remembered: number[];
  rev: number;
}

export class MemorySettings implements SettingsPort {
  private readonly watchlists = new Map<string, number[]>();
  private readonly boards = new Map<string, string>();
  /** By market, then `userId#alertId`. */
  private readonly alerts = new Map<string, Map<string, AlertRecord>>();
  private readonly alertCounts = new Map<string, number>();
  private readonly fired: AlertFiredRecord[] = [];
  /** By account, then endpoint. */
  private readonly subscriptions = new Map<string, Map<string, StoredSubscription>>();
  private readonly endpointOwners = new Map<string, string>();
  private readonly pushStates = new Map<string, PushState>();

  constructor(
    /** Told of each new firing, as the table's stream tells of the fired record's INSERT. */
    private readonly changes?: ChangeSink,
  ) {}

  async getWatchlist(userId: string): Promise<number[]> {
    return copy(this.watchlists.get(userId) ?? []);
  }

  async putWatchlist(userId: string, items: number[], _now: number): Promise<void> {
    this.watchlists.set(userId, copy(items));
  }

  async getBoards(userId: string): Promise<BoardsDocument> {
    const text = this.boards.get(userId);
    return text === undefined ? emptyBoards() : (JSON.parse(text) as BoardsDocument);
  }

  async putBoards(userId: string, doc: BoardsDocument, _now: number): Promise<void> {
    this.boards.set(userId, JSON.stringify(doc));
  }

  private market(market: string): Map<string, AlertRecord> {
    let m = this.alerts.get(market);
    if (!m) {
      m = new Map();
      this.alerts.set(market, m);
    }
    return m;
  }

  private stored(r: AlertRecord): StoredAlert {
    return copy({ userId: r.userId, alert: r.alert, remembered: r.remembered, rev: r.rev });
  }

  async listAccountAlerts(userId: string): Promise<StoredAlert[]> {
    return [...this.alerts.values()]
      .flatMap((m) => [...m.values()].filter((r) => r.userId === userId))
      .map((r) => this.stored(r))
      .sort((a, b) => b.alert.created - a.alert.created || (a.alert.id < b.alert.id ? 1 : -1));
  }

  async getAccountAlert(userId: string, id: string): Promise<StoredAlert | null> {
    for (const m of this.alerts.values()) {
      const r = m.get(`${userId}#${id}`);
      if (r) return this.stored(r);
    }
    return null;
  }

  async createAlert(userId: string, alert: MarketAlert, limit: number): Promise<boolean> {
    const n = this.alertCounts.get(userId) ?? 0;
    const m = this.market(alert.market);
    if (limit <= 0 || n >= limit || m.has(`${userId}#${alert.id}`)) return false;
    this.alertCounts.set(userId, n + 1);
    m.set(`${userId}#${alert.id}`, { userId, alert: copy(alert), remembered: [], rev: 1 });
    return true;
  }

  async replaceStoredAlert(old: StoredAlert, next: MarketAlert): Promise<MarketAlert | null> {
    const key = `${old.userId}#${old.alert.id}`;
    if (next.market !== old.alert.market) {
      const from = this.market(old.alert.market);
      if (from.get(key)?.rev !== old.rev) return null;
      from.delete(key);
      this.market(next.market).set(`${old.userId}#${next.id}`, { userId: old.userId, alert: copy(next), remembered: [], rev: old.rev + 1 });
      return copy(next);
    }
    const r = this.market(next.market).get(`${old.userId}#${next.id}`);
    if (!r) return null;
    const alert: MarketAlert = { ...r.alert, kind: next.kind, item: next.item, value: next.value, enabled: next.enabled, armed: true };
    delete alert.name;
    delete alert.note;
    if (next.name !== undefined) alert.name = next.name;
    if (next.note !== undefined) alert.note = next.note;
    Object.assign(r, { alert: copy(alert), remembered: [], rev: r.rev + 1 });
    return copy(alert);
  }

  async deleteStoredAlert(old: StoredAlert): Promise<boolean> {
    if (!this.market(old.alert.market).delete(`${old.userId}#${old.alert.id}`)) return false;
    this.alertCounts.set(old.userId, (this.alertCounts.get(old.userId) ?? 1) - 1);
    return true;
  }

  async enabledMarketAlerts(market: string): Promise<StoredAlert[]> {
    return [...this.market(market).values()]
      .sort((a, b) => (`${a.userId}#${a.alert.id}` < `${b.userId}#${b.alert.id}` ? -1 : 1))
      .filter((r) => r.alert.enabled)
      .map((r) => this.stored(r));
  }

  async saveEvaluation(s: StoredAlert, next: MarketAlert, remembered: number[], fired: AlertFiredRecord | null): Promise<boolean> {
    const r = this.market(s.alert.market).get(`${s.userId}#${s.alert.id}`);
    if (!r || r.rev !== s.rev) return false;
    r.alert = { ...r.alert, armed: next.armed, last: copy(next.last) };
    r.remembered = [...remembered];
    if (fired) {
      // The table keeps one record per (market, at, account, alert): a second write of it is no new firing.
      const again = this.fired.some((f) => f.market === fired.market && f.at === fired.at && f.userId === fired.userId && f.alert.id === fired.alert.id);
      this.fired.push(copy(fired));
      if (!again) this.changes?.publish({ type: 'alert-fired', firing: copy(fired) });
    }
    return true;
  }

  async firedAt(market: string, at: number): Promise<AlertFiredRecord[]> {
    return this.fired
      .filter((f) => f.market === market && f.at === at)
      .sort((a, b) => (`${a.userId}#${a.alert.id}` < `${b.userId}#${b.alert.id}` ? -1 : 1))
      .map((f) => copy(f));
  }

  async listSubscriptions(userId: string): Promise<StoredSubscription[]> {
    return [...(this.subscriptions.get(userId)?.values() ?? [])]
      .map((s) => copy(s))
      .sort((a, b) => a.created - b.created || (a.endpoint < b.endpoint ? -1 : 1));
  }

  async putSubscription(userId: string, sub: BrowserSubscription, prefs: PushPrefs | undefined, now: number, max: number): Promise<StoredSubscription> {
    const previousOwner = this.endpointOwners.get(sub.endpoint);
    if (previousOwner && previousOwner !== userId) this.subscriptions.get(previousOwner)?.delete(sub.endpoint);
    const mine = this.subscriptions.get(userId) ?? new Map<string, StoredSubscription>();
    this.subscriptions.set(userId, mine);
    const existing = mine.get(sub.endpoint);
    const stored: StoredSubscription = {
      endpoint: sub.endpoint,
      keys: copy(sub.keys),
      prefs: copy(prefs ?? existing?.prefs ?? {}),
      created: existing?.created ?? now,
    };
    mine.set(sub.endpoint, copy(stored));
    this.endpointOwners.set(sub.endpoint, userId);
    const all = await this.listSubscriptions(userId);
    const excess = all.filter((s) => s.endpoint !== sub.endpoint).slice(0, Math.max(0, all.length - max));
    for (const s of excess) await this.deleteSubscription(userId, s.endpoint);
    return stored;
  }

  async deleteSubscription(userId: string, endpoint: string): Promise<boolean> {
    const existed = this.subscriptions.get(userId)?.delete(endpoint) ?? false;
    if (this.endpointOwners.get(endpoint) === userId) this.endpointOwners.delete(endpoint);
    return existed;
  }

  async getPushState(userId: string): Promise<PushState> {
    return copy(this.pushStates.get(userId) ?? { lastSent: null, pending: [], pendingCount: 0, flushAt: null, rev: 0 });
  }

  async putPushState(userId: string, state: PushState, _now: number): Promise<boolean> {
    const stored = this.pushStates.get(userId);
    if (state.rev === 0 ? stored !== undefined : stored?.rev !== state.rev) return false;
    this.pushStates.set(userId, copy({ ...state, pending: state.pending.slice(-PENDING_KEPT), rev: state.rev + 1 }));
    return true;
  }
}
