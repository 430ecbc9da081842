/**
 * The live socket's messages and the files route's answer (spec files-and-live: Events; api.md
 * `GET /api/v1/ah/:market/files`), built per caller from one view of the market. Pure. A caller learns a
 * cap only where its features grant what the file needs (capability rule 2): change and checkpoint URLs
 * with `prices.live`, book URLs with `books`, caps as `capsFor` gives them.
 */
import { dayOf } from '../clock';
import { type CapState, type Caps, capsFor } from '../domain/caps';
import { fileUrl, snapshotPath } from '../domain/file-paths';
import type { FilesState, SealRes } from '../domain/files-state';
import type { Feature, Role } from '../domain/roles';
import { periodStartOf } from '../files/seal-plan';
import type { MergeRecord } from '../ports/market';
import type { AhMessage, AlertMessage, AuthMessage, ErrorMessage, HelloMessage, LiveErrorCode, RolesMessage, SealedMessage } from './message-types';

/** What the service knows of one market for hello and the files route; paths relative to `cdnBase`. */
export interface MarketView {
  market: string;
  /** Newest merge seq (0 before the first) and its scan `at` (null before the first). */
  seq: number;
  at: number | null;
  /** Newest retained checkpoint and every change after it, ascending. */
  checkpoint: { seq: number; path: string } | null;
  changes: Array<{ seq: number; path: string }>;
  files: FilesState;
  /** Day caps that exist (m1: 3 days, h1: 15 days). */
  m1DayCaps: ReadonlyMap<number, string>;
  h1DayCaps: ReadonlyMap<number, string>;
}

/** The caller as messages see it. */
export interface Audience {
  roles: readonly Role[];
  features: readonly Feature[];
  historyDays: number;
}

const has = (a: Audience, f: Feature): boolean => a.features.includes(f);
const longHistory = (a: Audience): boolean => a.historyDays > 7;

function capState(view: MarketView, cdnBase: string): CapState {
  return {
    m1DayCaps: view.m1DayCaps,
    h1DayCaps: view.h1DayCaps,
    d1Url: view.files.d1cPath ? fileUrl(cdnBase, view.files.d1cPath) : undefined,
    volumeUrl: view.files.volumePath ? fileUrl(cdnBase, view.files.volumePath) : undefined,
  };
}

/** The caller's caps: `{}` for anonymous and free callers (spec: Caps object). */
export const callerCaps = (view: MarketView, a: Audience, cdnBase: string, now: number): Caps =>
  capsFor({ features: [...a.features], limits: { historyDays: a.historyDays } }, capState(view, cdnBase), dayOf(now));

/** `checkpoint` and `changes` for a caller with `prices.live`, else null and []. */
function liveFiles(view: MarketView, a: Audience, cdnBase: string) {
  if (!has(a, 'prices.live')) return { checkpoint: null, changes: [] as [number, string][] };
  return {
    checkpoint: view.checkpoint ? { seq: view.checkpoint.seq, url: fileUrl(cdnBase, view.checkpoint.path) } : null,
    changes: view.changes.map((c): [number, string] => [c.seq, fileUrl(cdnBase, c.path)]),
  };
}

/** `hello`: the first message (spec Events); before anything exists `at` is null, `seq` 0 and `sealed` values null. */
export function helloMessage(view: MarketView, a: Audience, cdnBase: string, now: number): HelloMessage {
  return {
    t: 'hello',
    market: view.market,
    seq: view.seq,
    at: view.at,
    ...liveFiles(view, a, cdnBase),
    sealed: view.files.sealed,
    caps: callerCaps(view, a, cdnBase, now),
    roles: [...a.roles],
    features: [...a.features],
    now,
  };
}

/**
 * `ah` after a merge: `url` (the change file) only with `prices.live`, absent otherwise (the caller may not
 * read it); `book` with `books` when the merge was a book.
 */
export function ahMessage(r: MergeRecord, a: Audience, cdnBase: string): AhMessage {
  const msg: AhMessage = { t: 'ah', market: r.market, seq: r.seq, at: r.at };
  if (has(a, 'prices.live')) msg.url = fileUrl(cdnBase, r.changePath);
  if (r.bookPath && has(a, 'books')) msg.book = fileUrl(cdnBase, r.bookPath);
  return msg;
}

/**
 * `sealed` for the newest period of a resolution, with the file the caller may read: the public hour file;
 * the full day file with `historyDays` above 7, else the public one; the minute block only with
 * `candles.minute` (null: not sent).
 */
export function sealedMessage(files: FilesState, res: SealRes, a: Audience, cdnBase: string): SealedMessage | null {
  const period = files.sealed[res];
  if (period === null) return null;
  let path: string | undefined;
  if (res === 'h1') path = files.h1Path;
  else if (res === 'd1') path = longHistory(a) && files.d1cPath ? files.d1cPath : files.d1Path;
  else if (has(a, 'candles.minute')) path = files.m1Path;
  if (!path) return null;
  return { t: 'sealed', market: files.market, res, start: periodStartOf(res, period), url: fileUrl(cdnBase, path) };
}

/** `alert`: one of the caller's alerts on this market fired. */
export const alertMessage = (alert: Record<string, unknown>): AlertMessage => ({ t: 'alert', alert });
/** `roles`: the caller's features changed. */
export const rolesMessage = (a: Audience): RolesMessage => ({ t: 'roles', roles: [...a.roles], features: [...a.features] });
/** `auth`: the answer to a renewal (`until` null for a device). */
export const authMessage = (until: number | null): AuthMessage => ({ t: 'auth', until });
/** `error`: a bad client message or a failed renewal. */
export const errorMessage = (error: LiveErrorCode): ErrorMessage => ({ t: 'error', error });

export interface BookRef {
  at: number;
  complete: boolean;
  path: string;
}

/**
 * The files route's answer (api.md): `snapshot` the newest immutable snapshot (null before the first), `d1`
 * the newest public day file (null before the first), `live` with `prices.live`, `caps` as in `hello`,
 * `books` (last 30 days) with `books`.
 */
export function filesAnswer(view: MarketView, a: Audience, cdnBase: string, now: number, books: readonly BookRef[] | null) {
  const answer: Record<string, unknown> = {
    market: view.market,
    cdnBase,
    snapshot: view.files.snapHour === null ? null : fileUrl(cdnBase, snapshotPath(view.market, view.files.snapHour)),
    d1: view.files.d1Path ? fileUrl(cdnBase, view.files.d1Path) : null,
    sealed: view.files.sealed,
  };
  if (has(a, 'prices.live')) answer.live = { seq: view.seq, at: view.at, ...liveFiles(view, a, cdnBase) };
  answer.caps = callerCaps(view, a, cdnBase, now);
  if (has(a, 'books') && books) answer.books = books.map((b) => ({ at: b.at, complete: b.complete, url: fileUrl(cdnBase, b.path) }));
  answer.now = now;
  return answer;
}

/** The start in Unix ms of a sealed period (for tests and clients). */
export const sealedStart = (res: SealRes, period: number): number => periodStartOf(res, period);
