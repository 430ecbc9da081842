/** In-memory fake of the catalogue port (unit tests); the contract suite holds it to the DynamoDB adapter. */
import { applyReport, type CatalogueEntry, type CatalogueReport, leaderOf, type StoredReport, sameReport, withdrawReport } from '../../domain/item-catalogue';
import type { CatalogueLeader } from '../../domain/items';
import type { BuildRecord, CataloguePort, CurrentBuild, NameRevision, RecordOutcome } from '../../ports/catalogue';

const copy = <T>(v: T): T => structuredClone(v);
/** Unchanged reports refresh an entry's `lastSeen` at most this often (as the adapter does). */
const LAST_SEEN_REFRESH_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** A reporting account as the adapter keeps it: its last upload and its UTC day's count of new keys. */
interface Account {
  last: number;
  day: number;
  added: number;
}

export class MemoryCatalogue implements CataloguePort {
  private readonly entries = new Map<number, CatalogueEntry>();
  /** Reports by account, then key (the adapter keeps them under the account too). */
  private readonly reports = new Map<string, Map<number, StoredReport>>();
  private readonly accounts = new Map<string, Account>();
  private revision: NameRevision = { revision: 0, changedAt: null };
  private readonly builds = new Map<string, BuildRecord>();
  private current: CurrentBuild | null = null;

  async recordCatalogueReports(account: string, reports: ReadonlyMap<number, CatalogueReport>, now: number, newKeysPerDay?: number): Promise<RecordOutcome> {
    const fresh = [...reports.keys()].filter((k) => !this.entries.has(k)).length;
    if (!this.noteUpload(account, fresh, now, newKeysPerDay)) return { added: 0, known: 0, nameChanged: false, overQuota: true };
    const mine = this.reports.get(account) ?? new Map<number, StoredReport>();
    this.reports.set(account, mine);
    let added = 0;
    let nameChanged = false;
    for (const [key, report] of reports) {
      const current = this.entries.get(key) ?? null;
      const previous = mine.get(key) ?? null;
      if (!current || !sameReport(previous, report)) {
        const outcome = applyReport(current, key, previous, report, now);
        this.entries.set(key, copy(outcome.entry));
        mine.set(key, { ...copy(report), at: now });
        if (outcome.added) added++;
        if (outcome.nameChanged) nameChanged = true;
      } else if (now - current.lastSeen >= LAST_SEEN_REFRESH_MS) {
        current.lastSeen = now;
      }
    }
    if (nameChanged) this.revision = { revision: this.revision.revision + 1, changedAt: now };
    return { added, known: reports.size - added, nameChanged };
  }

  /** As the adapter's account item: refused past the day's quota; the last upload refreshed at most daily when nothing is added. */
  private noteUpload(account: string, fresh: number, now: number, newKeysPerDay?: number): boolean {
    const day = Math.floor(now / DAY_MS);
    const a = this.accounts.get(account);
    if (fresh === 0 || newKeysPerDay === undefined) {
      if (!a) this.accounts.set(account, { last: now, day: -1, added: 0 });
      else if (a.last <= now - DAY_MS) a.last = now;
      return true;
    }
    const used = a && a.day === day ? a.added : 0;
    if (used + fresh > newKeysPerDay) return false;
    this.accounts.set(account, { last: now, day, added: used + fresh });
    return true;
  }

  async expireCatalogueAccounts(before: number, now: number, maxAccounts: number): Promise<{ accounts: number; reports: number }> {
    const stale = [...this.accounts].filter(([, a]) => a.last < before).slice(0, maxAccounts);
    let reports = 0;
    let nameChanged = false;
    for (const [account] of stale) {
      const mine = this.reports.get(account) ?? new Map<number, StoredReport>();
      for (const [key, report] of mine) {
        if (report.at >= before) continue;
        const entry = this.entries.get(key);
        if (entry) {
          const out = withdrawReport(entry, report);
          this.entries.set(key, copy(out.entry));
          nameChanged ||= out.nameChanged;
        }
        mine.delete(key);
        reports++;
      }
      this.accounts.delete(account);
    }
    if (nameChanged) this.revision = { revision: this.revision.revision + 1, changedAt: now };
    return { accounts: stale.length, reports };
  }

  async catalogueEntry(key: number): Promise<CatalogueEntry | null> {
    const e = this.entries.get(key);
    return e ? copy(e) : null;
  }

  async catalogueLeaders(admit?: (leader: CatalogueLeader) => boolean): Promise<CatalogueLeader[]> {
    return [...this.entries.values()]
      .map(leaderOf)
      .filter((l): l is CatalogueLeader => l !== null && (!admit || admit(l)))
      .sort((a, b) => a.key - b.key);
  }

  async nameRevision(): Promise<NameRevision> {
    return { ...this.revision };
  }

  async getBuild(build: string): Promise<BuildRecord | null> {
    const b = this.builds.get(build);
    return b ? copy(b) : null;
  }

  async putPublishedBuild(build: string, source: string, publishedAt: number): Promise<BuildRecord> {
    const record: BuildRecord = { build, source, publishedAt, hash: null, mergedAt: null, revision: -1, changedAt: null };
    this.builds.set(build, copy(record));
    return record;
  }

  async recordMerged(rec: BuildRecord, merged: Pick<BuildRecord, 'hash' | 'mergedAt' | 'revision' | 'changedAt'>): Promise<boolean> {
    const stored = this.builds.get(rec.build);
    if (!stored || stored.publishedAt !== rec.publishedAt || stored.revision > merged.revision) return false;
    Object.assign(stored, copy(merged));
    return true;
  }

  async getCurrent(): Promise<CurrentBuild | null> {
    return this.current ? { ...this.current } : null;
  }

  async setCurrent(current: CurrentBuild): Promise<void> {
    this.current = { ...current };
  }

  async updateCurrentFiles(current: CurrentBuild): Promise<boolean> {
    if (this.current?.build !== current.build) return false;
    this.current = { ...current };
    return true;
  }
}
