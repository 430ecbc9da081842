/**
 * What market reads read from: the market's pages and its scan, book and merge logs (the market port), the
 * service clock, and the store's name for in-process caches of what never changes again (final days).
 */
import type { Clock } from '../clock';
import type { AnswerStore, BookLogPort, MarketPages, MarketPort, MergeLogPort, ScanLogPort } from '../ports/market';

/**
 * The API function's read caches for one request (page-cache.ts): the market's merge `seq` and `rowsRev` read
 * strongly consistent at the request's start, and the strongly consistent store that fills a miss. Absent: read fresh.
 */
export interface PageCacheUse {
  seq: number;
  /** META's `rowsRev`: bumped by retention, the one writer of rows besides merges (0 before any). */
  rowsRev: number;
  latest: MarketPages;
}

export interface ReadSources {
  store: MarketPages;
  /**
   * The strongly consistent side of `store`: an uncached item read that finds no history shard at all beside a
   * compaction mark reads it again from here (a replica may not have seen its first write). Absent: trusted.
   */
  latest?: MarketPages;
  scans: ScanLogPort;
  books: BookLogPort;
  merges: MergeLogPort;
  clock: Clock;
  /** Names the store (caches of final days are kept per store). */
  scope: string;
  /** The caller may not write the table (the pages function): read caches are not stored (IAM would refuse). */
  readOnly?: boolean;
  /** Stored answer fragments of days and hours (market-read.ts); absent: every period is built from its pages. */
  fragments?: Pick<AnswerStore, 'readFragment' | 'writeFragment'>;
  /** Only the API function's live item and candle reads set this (merge, seal, snapshot, retention read fresh). */
  cache?: PageCacheUse;
}

/** The read sources of a function's dependencies. */
export function readSources(deps: { market: MarketPort; clock: Clock }, readOnly = false): ReadSources {
  const { market } = deps;
  return {
    store: market.pages,
    latest: market.latest,
    scans: market.scans,
    books: market.books,
    merges: market.merges,
    clock: deps.clock,
    scope: market.scope,
    readOnly,
    fragments: market.answers,
  };
}
