/** In-memory fake of the catalogue port (unit tests); the contract suite holds it to the DynamoDB adapter. */
import { applyReport, type CatalogueEntry, type CatalogueReport, leaderOf, type StoredReport, sameReport } from '../../domain/item-catalogue';
import type { CatalogueLeader } from '../../domain/items';
import type { BuildRecord, CataloguePort, CurrentBuild, NameRevision, RecordOutcome } from '../../ports/catalogue';

const copy = <T>(v: T): T => structuredClone(v);
/** Unchanged reports refresh an entry's `lastSeen` at most this often (as the adapter does). */
const LAST_SEEN_REFRESH_MS = 3_600_000;

export class MemoryCatalogue implements CataloguePort {
  private readonly entries = new Map<number, CatalogueEntry>();
  private readonly reports = new Map<string, StoredReport>();
  private revision: NameRevision = { revision: 0, changedAt: null };
  private readonly builds = new Map<string, BuildRecord>();
  private current: CurrentBuild | null = null;

  async recordCatalogueReports(account: string, reports: ReadonlyMap<number, CatalogueReport>, now: number): Promise<RecordOutcome> {
    let added = 0;
    let nameChanged = false;
    for (const [key, report] of reports) {
      const current = this.entries.get(key) ?? null;
      const previous = this.reports.get(`${key}#${account}`) ?? null;
      if (!current || !sameReport(previous, report)) {
        const outcome = applyReport(current, key, previous, report, now);
        this.entries.set(key, copy(outcome.entry));
        this.reports.set(`${key}#${account}`, { ...copy(report), at: now });
        if (outcome.added) added++;
        if (outcome.nameChanged) nameChanged = true;
      } else if (now - current.lastSeen >= LAST_SEEN_REFRESH_MS) {
        current.lastSeen = now;
      }
    }
    if (nameChanged) this.revision = { revision: this.revision.revision + 1, changedAt: now };
    return { added, known: reports.size - added, nameChanged };
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
