/**
 * The item catalogue (spec api.md: Catalogue upload rules): the upload body, each account's latest report per
 * key, and the naming rule's tallies kept on the key's catalogue entry. Pure: `now` is passed in.
 */
import { createHash } from 'node:crypto';
import type { CatalogueLeader } from './items';

/** Spec Limits: catalogue upload. */
export const CATALOGUE_MAX_ENTRIES = 5000;
export const CATALOGUE_MAX_BYTES = 4 * 1024 * 1024;
export const CATALOGUE_NAME_MAX = 200;
/**
 * Names tallied per key. The entry is one DynamoDB item (400 KB at most): 100 names of 200 characters stay
 * under 100 KB, however many accounts report a key. Real keys see a handful of names (one per client locale).
 */
export const CATALOGUE_NAMES_KEPT = 100;

/**
 * Keys new to the catalogue one account may add per UTC day (issue 23): past it, 429 `rate_limited`. Keys
 * already in the catalogue never count, and every key a market carries is in it once any app has reported it,
 * so a real app's first run adds few; twice a full request (5000) leaves room for a new patch's items.
 */
export const CATALOGUE_NEW_KEYS_PER_DAY = 10_000;
/**
 * An account that has not uploaded to the catalogue for this long has its reports withdrawn (issue 23: reports
 * of deleted accounts expire). Apps report what they see at every market read, so a living account refreshes
 * its time long before; one that comes back reports again.
 */
export const CATALOGUE_REPORT_LIFETIME_MS = 180 * 86_400_000;

/** One account's report of a key: `[key, name, quality, iconFileID, flags]` as uploaded (`fi` 0 = none). */
export interface CatalogueReport {
  n: string;
  q: number;
  fi: number;
  fl: number;
}

/** A stored report: the account's latest, with when it was made. */
export interface StoredReport extends CatalogueReport {
  at: number;
}

/** How many accounts' latest reports give one name, when it was first seen, and its newest upload's fields. */
export interface NameTally {
  n: string;
  accounts: number;
  first: number;
  q: number;
  fi: number;
  fl: number;
  /** Time of the newest upload of this name. */
  at: number;
}

/** Spec Item data: the catalogue entry kept per key (name, quality, icon file id and flags are the leader's). */
export interface CatalogueEntry {
  key: number;
  names: NameTally[];
  accounts: number;
  firstSeen: number;
  lastSeen: number;
}

export interface CatalogueUpload {
  build?: string;
  /** Key → report; a key given twice keeps its last entry. */
  items: Map<number, CatalogueReport>;
}

export const sameReport = (a: CatalogueReport | null, b: CatalogueReport): boolean =>
  a !== null && a.n === b.n && a.q === b.q && a.fi === b.fi && a.fl === b.fl;

/** Spec naming: the name given by most accounts, tie: the one seen first (then the lower name, for determinism). */
export function leadingTally(names: readonly NameTally[]): NameTally | null {
  let best: NameTally | null = null;
  for (const t of names) {
    if (t.accounts < 1) continue;
    if (!best || t.accounts > best.accounts || (t.accounts === best.accounts && (t.first < best.first || (t.first === best.first && t.n < best.n)))) best = t;
  }
  return best;
}

/** The entry's leader in the shape the merge takes, or null when no account names the key. */
export function leaderOf(entry: CatalogueEntry): CatalogueLeader | null {
  const t = leadingTally(entry.names);
  return t ? { key: entry.key, n: t.n, accounts: t.accounts, q: t.q, fi: t.fi, fl: t.fl } : null;
}

export interface ReportOutcome {
  entry: CatalogueEntry;
  /** The key was new to the catalogue. */
  added: boolean;
  /** The leading name, or whether it has two accounts (the threshold of acceptance), changed. */
  nameChanged: boolean;
}

/**
 * The tallies without the one least likely to lead, never `keep` (the name just reported): fewest accounts,
 * then seen last, then the greater name. Its accounts stop counting; were one to report it again, it restarts at 1.
 */
function withoutWeakest(names: NameTally[], keep: string): NameTally[] {
  let weakest: NameTally | null = null;
  for (const t of names) {
    if (t.n === keep) continue;
    if (
      !weakest ||
      t.accounts < weakest.accounts ||
      (t.accounts === weakest.accounts && (t.first > weakest.first || (t.first === weakest.first && t.n > weakest.n)))
    )
      weakest = t;
  }
  return names.filter((t) => t !== weakest);
}

/**
 * Applies one account's report of a key to its entry: the account's previous report (`previous`) stops
 * counting for its name, the new one counts for its name, and the name's quality, icon and flags become those
 * of this newest upload. `nameChanged` says whether an accepted name may have changed.
 */
export function applyReport(entry: CatalogueEntry | null, key: number, previous: CatalogueReport | null, report: CatalogueReport, now: number): ReportOutcome {
  const base: CatalogueEntry = entry ? { ...entry, names: entry.names.map((t) => ({ ...t })) } : { key, names: [], accounts: 0, firstSeen: now, lastSeen: now };
  const lead = leadingTally(base.names);
  // Copied: the tallies are updated in place below.
  const before = lead ? { n: lead.n, accounts: lead.accounts } : null;
  let names = base.names;
  if (previous && previous.n !== report.n) {
    names = names.map((t) => (t.n === previous.n ? { ...t, accounts: t.accounts - 1 } : t)).filter((t) => t.accounts > 0);
  }
  const counts = !previous || previous.n !== report.n;
  const tally = names.find((t) => t.n === report.n);
  if (tally) {
    if (counts) tally.accounts++;
    Object.assign(tally, { q: report.q, fi: report.fi, fl: report.fl, at: now });
  } else {
    names.push({ n: report.n, accounts: 1, first: now, q: report.q, fi: report.fi, fl: report.fl, at: now });
    if (names.length > CATALOGUE_NAMES_KEPT) names = withoutWeakest(names, report.n);
  }
  const next: CatalogueEntry = { ...base, names, accounts: base.accounts + (previous ? 0 : 1), lastSeen: Math.max(base.lastSeen, now) };
  const after = leadingTally(names);
  const nameChanged = before?.n !== after?.n || (before?.accounts ?? 0) >= 2 !== (after?.accounts ?? 0) >= 2;
  return { entry: next, added: entry === null, nameChanged };
}

/**
 * Withdraws one account's report (`previous`) from a key's entry (its account expired): its name loses the
 * account's vote (a name no one gives any more is dropped) and the entry one account. `nameChanged` as above.
 */
export function withdrawReport(entry: CatalogueEntry, previous: CatalogueReport): Omit<ReportOutcome, 'added'> {
  const before = leadingTally(entry.names);
  const names = entry.names.map((t) => (t.n === previous.n ? { ...t, accounts: t.accounts - 1 } : { ...t })).filter((t) => t.accounts > 0);
  const after = leadingTally(names);
  const nameChanged = before?.n !== after?.n || (before?.accounts ?? 0) >= 2 !== (after?.accounts ?? 0) >= 2;
  return { entry: { ...entry, names, accounts: Math.max(0, entry.accounts - 1) }, nameChanged };
}

/** An account as the catalogue stores it: an opaque hash, never the id. */
export const catalogueAccount = (userId: string): string => createHash('sha256').update(`catalogue:${userId}`, 'utf8').digest('hex').slice(0, 32);
