/**
 * The catch-up rule of a live client (spec files-and-live: "Catching up (gap rule)"): which files to
 * fetch next to bring a table from `have` to `target`, and how fetched rows update the table. Pure.
 */
import type { AuctionRow } from '../files/documents';

/** At most this many change files are applied in one step (spec Limits: gap rule). */
export const MAX_CHANGES_PER_STEP = 50;

export interface KnownCheckpoint {
  seq: number;
  url: string;
}

export interface GapState {
  /** The seq of the client's table, or null when it has none. */
  have: number | null;
  /** The newest seq the client learned of. */
  target: number;
  /** Change file URLs the client was told of, by seq. */
  changes: ReadonlyMap<number, string>;
  /** The newest checkpoint the client was told of. */
  checkpoint?: KnownCheckpoint | null;
  /** True once `GET /api/v1/ah/:market/files` was asked for this target. */
  filesAsked: boolean;
}

export type GapStep =
  | { kind: 'none' }
  | { kind: 'changes'; seqs: number[]; urls: string[] }
  | { kind: 'checkpoint'; checkpoint: KnownCheckpoint; seqs: number[]; urls: string[] }
  | { kind: 'files' }
  | { kind: 'table' };

/** The known change URLs of seqs `from … to`, or null when one is unknown. */
function knownRun(changes: ReadonlyMap<number, string>, from: number, to: number): { seqs: number[]; urls: string[] } | null {
  const seqs: number[] = [];
  const urls: string[] = [];
  for (let s = from; s <= to; s++) {
    const url = changes.get(s);
    if (url === undefined) return null;
    seqs.push(s);
    urls.push(url);
  }
  return { seqs, urls };
}

/**
 * The next step of the gap rule: 1 `none` when `have >= target`; 2 the changes `have+1 … target` when at
 * most 50 and all known; 3 a newer known checkpoint and the known changes after it; 4 ask the files route
 * once per target, then load the table (spec: Catching up).
 */
export function nextStep(state: GapState): GapStep {
  const { have, target, changes, checkpoint } = state;
  if (have !== null && have >= target) return { kind: 'none' };
  if (have !== null && target - have <= MAX_CHANGES_PER_STEP) {
    const run = knownRun(changes, have + 1, target);
    if (run) return { kind: 'changes', ...run };
  }
  if (checkpoint && checkpoint.seq <= target && (have === null || checkpoint.seq > have) && target - checkpoint.seq <= MAX_CHANGES_PER_STEP) {
    const run = knownRun(changes, checkpoint.seq + 1, target);
    if (run) return { kind: 'checkpoint', checkpoint: { seq: checkpoint.seq, url: checkpoint.url }, ...run };
  }
  return state.filesAsked ? { kind: 'table' } : { kind: 'files' };
}

/** Applies rows to a table: a row replaces the stored one when there is none or its `at` >= the stored `at` (spec: Catching up). Returns how many replaced. */
export function applyRows(table: Map<number, AuctionRow>, rows: readonly AuctionRow[]): number {
  let applied = 0;
  for (const row of rows) {
    const stored = table.get(row[0]);
    if (stored === undefined || row[3] >= stored[3]) {
      table.set(row[0], row);
      applied++;
    }
  }
  return applied;
}
