/**
 * The catalogue port: the item name catalogue built from accounts' reports (one entry per key, its name tallies
 * and leader), the catalogue's name revision, and the published item builds (generated files, merged files, the
 * current build).
 */

import type { CatalogueEntry, CatalogueReport } from '../domain/item-catalogue';
import type { CatalogueLeader, MergedState } from '../domain/items';

export interface RecordOutcome {
  added: number;
  known: number;
  /** Some accepted name may have changed (the catalogue's change time was moved to `now`). */
  nameChanged: boolean;
  /** Present when nothing was recorded: the upload's new keys would pass the account's daily quota. */
  overQuota?: true;
}

/** The catalogue's name state: `revision` counts accepted-name changes, `changedAt` is the newest one's time. */
export interface NameRevision {
  revision: number;
  changedAt: number | null;
}

export interface BuildRecord extends MergedState {
  build: string;
  source: string;
  /** When the generated files were (last) published: a merge started before a republish must not be recorded. */
  publishedAt: number;
  /** Time of the newest accepted-name change the merged files include. */
  changedAt: number | null;
}

export interface CurrentBuild {
  build: string;
  hash: string | null;
  at: number;
}

export interface CataloguePort {
  /**
   * Spec Catalogue upload rules: keeps the account's latest report of each key and updates each key's entry;
   * `added` counts keys new to the catalogue, `known` the rest. A report identical to the account's previous
   * one changes nothing but the entry's `lastSeen` (at most hourly). Each key's entry and report are written in
   * one transaction, so a retried upload after a crash can never count an account twice.
   *
   * Every upload notes the account's activity (what `expireCatalogueAccounts` ages). With `newKeysPerDay`,
   * an upload whose keys new to the catalogue would take the account past that many in `now`'s UTC day records
   * nothing and answers `overQuota` (issue 23); keys already in the catalogue never count.
   */
  recordCatalogueReports(account: string, reports: ReadonlyMap<number, CatalogueReport>, now: number, newKeysPerDay?: number): Promise<RecordOutcome>;
  /**
   * Withdraws every report of the accounts whose last upload is older than `before` from their keys' entries
   * and deletes them (issue 23: reports of deleted accounts expire); at most `maxAccounts` accounts per call.
   * Answers how many accounts and reports went.
   */
  expireCatalogueAccounts(before: number, now: number, maxAccounts: number): Promise<{ accounts: number; reports: number }>;
  /** The catalogue entry of a key, or null. */
  catalogueEntry(key: number): Promise<CatalogueEntry | null>;
  /**
   * Every key's leading name with its newest upload's fields, ascending by key: what a merge of the catalogue
   * needs. With `admit`, only the leaders it admits, dropped page by page as they are read, so a rebuild holds
   * what it merges and never the whole catalogue (issue 23: the items job's memory stays bounded).
   */
  catalogueLeaders(admit?: (leader: CatalogueLeader) => boolean): Promise<CatalogueLeader[]>;
  /** The catalogue's current name revision (0 and null before the first change). */
  nameRevision(): Promise<NameRevision>;
  /** A build's record, or null for a build never published. */
  getBuild(build: string): Promise<BuildRecord | null>;
  /** Records freshly published generated files: any merged files of an earlier publication no longer count. */
  putPublishedBuild(build: string, source: string, publishedAt: number): Promise<BuildRecord>;
  /**
   * Records a build's merged files unless the generated files were republished meanwhile or a merge including a
   * newer name revision was recorded first; false when the record was left alone.
   */
  recordMerged(rec: BuildRecord, merged: Pick<BuildRecord, 'hash' | 'mergedAt' | 'revision' | 'changedAt'>): Promise<boolean>;
  /** The current build, or null before anything was published. */
  getCurrent(): Promise<CurrentBuild | null>;
  /** Makes a build current (publishing). */
  setCurrent(current: CurrentBuild): Promise<void>;
  /** Points the current build at new merged files, unless another build became current meanwhile; false then. */
  updateCurrentFiles(current: CurrentBuild): Promise<boolean>;
}
