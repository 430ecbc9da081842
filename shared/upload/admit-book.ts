/**
 * Admission of a book upload (spec Uploads and credit rules; DESIGN "Uploads and merges" step 1): validate,
 * answer retries with their first answer, hold the 5-minute limit and the market's `at` with conditional
 * writes, judge credit, store the body, enqueue the merge, then credit the account. A storage failure rolls
 * back every record written so far (503 `storage_failed`, nothing half-written).
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as pause } from 'node:timers/promises';
import { extendContributorWindow, recordContribution } from '../auth/contributor';
import type { Principal } from '../auth/principal';
import { BOOK_WINDOW_BEHIND_MS, type Book, decodeBookJson, validateBook, viaField } from '../domain/book';
import { CREDIT_EVERY_MS, type CreditOutcome, judgeUpload, listedInLastDay, QUARANTINE_MS } from '../domain/credit';
import { deriveScan, type Scan } from '../domain/derived-scan';
import { ConflictError, DomainError, UnavailableError } from '../errors';
import type { MarketPages } from '../ports/market';
import type { UploadAnswer } from '../ports/uploads';
import type { Services } from '../services';
import { annotate } from '../telemetry/tracing';
import { BODY_LIMIT, readBody } from './body';
import { deleteStored, storeBookFile, storeQuarantined } from './book-storage';
import { mergeMessage } from './merge-message';
import { requireUploader, requireViaAllowed, retryIdentity, type Uploader, uploaderOf } from './uploader';

/** Spec Limits: one accepted book per caller per market every 5 minutes. */
export const UPLOAD_EVERY_MS = 300_000;
/** Claims and first answers outlive the `at` window (24 h behind the clock, plus slack): later the book is refused anyway. */
const KEEP_AFTER_AT_MS = BOOK_WINDOW_BEHIND_MS + 3_600_000;
/** A retry claim this old (service time) belongs to an attempt that died: the upload function runs at most 29 s. */
const RETRY_LEASE_MS = 60_000;
/** How long (real time) a repeat waits for the answer of the attempt in progress before it is told to try again. */
const REPEAT_WAIT_MS = 8_000;

export interface RawUpload {
  body: Buffer;
  contentEncoding?: string;
}

/** POST /api/v1/ah/books: checks in the DESIGN's order (403 → 413 → 400 → 409), then admits the book. */
export async function admitBook(
  svc: Pick<Services, 'config' | 'clock' | 'queues' | 'identity' | 'uploads' | 'market' | 'files' | 'log'>,
  principal: Principal,
  raw: RawUpload,
): Promise<UploadAnswer> {
  requireUploader(principal);
  const value = decodeBookJson(readBody(raw.body, raw.contentEncoding, BODY_LIMIT, 'bad_book'));
  requireViaAllowed(principal, viaField(value));
  const now = svc.clock.now();
  const book = validateBook(value, now);
  const who = uploaderOf(principal, book.via, svc.config.uploaderKey);
  const retryId = retryIdentity(who, book.market, 'book', book.at);
  const claim = await claimOrAwait(svc, retryId, now, book.at + KEEP_AFTER_AT_MS);
  if ('answer' in claim) return claim.answer;
  // The trace is found by market and upload id (the merge's subsegment carries the same two).
  annotate({ market: book.market, uploadId: claim.uploadId });
  try {
    return await new Admission(svc, book, who, retryId, claim.uploadId, now).run();
  } catch (err) {
    // No answer to keep: the next repeat admits the upload afresh.
    await svc.uploads
      .releaseRetry(retryId, claim.uploadId)
      .catch((e) => svc.log('error', 'upload: retry claim not released', { error: e instanceof Error ? e.message : String(e) }));
    throw err;
  }
}

/**
 * Spec Uploads, Retry, under concurrency: the first attempt claims the retry record and admits the upload;
 * repeats that meet its claim wait (real time, briefly) for its answer and return it, or are told to try again.
 */
async function claimOrAwait(
  svc: Pick<Services, 'uploads'>,
  retryId: string,
  now: number,
  expiresAt: number,
): Promise<{ answer: UploadAnswer } | { uploadId: string }> {
  const uploadId = randomBytes(12).toString('base64url');
  const started = performance.now();
  for (let wait = 20; ; wait = Math.min(wait * 2, 320)) {
    const claim = await svc.uploads.claimRetry(retryId, uploadId, now, RETRY_LEASE_MS, expiresAt);
    if (claim.kind === 'answered') return { answer: claim.answer };
    if (claim.kind === 'claimed') return { uploadId: claim.uploadId };
    if (performance.now() - started >= REPEAT_WAIT_MS) throw new UnavailableError('storage_failed', 'the same upload is still being stored; try again');
    await pause(wait);
  }
}

/** One upload's way through the state rules; `undo` collects what to release if storing fails. */
class Admission {
  private readonly undo: Array<() => Promise<unknown>> = [];
  private readonly scan: Scan;
  private readonly store: MarketPages;

  constructor(
    private readonly svc: Pick<Services, 'config' | 'clock' | 'queues' | 'identity' | 'uploads' | 'market' | 'files' | 'log'>,
    private readonly book: Book,
    private readonly who: Uploader,
    private readonly retryId: string,
    private readonly uploadId: string,
    private readonly now: number,
  ) {
    this.scan = deriveScan(book);
    this.store = svc.market.pages;
  }

  async run(): Promise<UploadAnswer> {
    const { svc, book, who, now } = this;
    const limit = await svc.uploads.takeUploadLimit(who.caller, book.market, now, UPLOAD_EVERY_MS, this.uploadId);
    if (!limit.won) throw new ConflictError('too_soon', 'one book per caller and market every 5 minutes');
    this.undo.push(() => svc.uploads.releaseUploadLimit(who.caller, book.market, this.uploadId, limit.previous, UPLOAD_EVERY_MS));
    try {
      if (!(await svc.uploads.claimBookAt(book.market, book.at, this.retryId, this.uploadId, book.at + KEEP_AFTER_AT_MS))) {
        // Nothing is stored for a duplicate, so it is no accepted book either: the limit goes back.
        await this.rollback();
        return this.finish({ credited: false, reason: 'duplicate' }, false);
      }
      this.undo.push(() => svc.uploads.releaseBookAt(book.market, book.at, this.uploadId));
      const judged = await this.judge();
      const outcome = judged.merge ? await this.accept(judged) : await this.quarantine(judged);
      return await this.finish(outcome, outcome.credited);
    } catch (err) {
      await this.rollback();
      if (err instanceof DomainError) throw err;
      svc.log('error', 'upload: admission failed', { error: err instanceof Error ? err.stack : String(err) });
      throw new UnavailableError('storage_failed', 'the upload could not be stored; try again');
    }
  }

  /** Spec credit rules 1-4 on the derived scan against the market's rows (readers are account hashes). */
  private async judge(): Promise<CreditOutcome> {
    const { svc, book, who, now } = this;
    const [rows, lastCredit] = await Promise.all([this.store.rows(book.market), svc.uploads.lastCreditedAt(who.userId, book.market)]);
    return judgeUpload({
      scan: this.scan,
      account: who.accountHash,
      rows,
      listedLastDay: listedInLastDay(rows.values(), now),
      lastCreditedAt: lastCredit,
      now,
    });
  }

  /** `disagrees`: kept 7 days for review under a private path, never merged. */
  private async quarantine(outcome: CreditOutcome): Promise<CreditOutcome> {
    const { svc, book, who, now } = this;
    const path = await storeQuarantined(svc, book);
    this.undo.push(() => deleteStored(svc, path));
    const rec = { market: book.market, at: book.at, received: now, path, uploader: who.accountHash, items: this.scan.items.length, complete: book.complete };
    await svc.uploads.putQuarantine(rec, this.uploadId, QUARANTINE_MS);
    return outcome;
  }

  /**
   * Stores the book file, takes the account's credit interval when credited (rule 4 again, now atomic: a
   * concurrent credited upload of the same account may have taken it since `judge`), and enqueues the merge.
   */
  private async accept(judged: CreditOutcome): Promise<CreditOutcome> {
    const { svc, book, who, now } = this;
    const bookPath = await storeBookFile(svc, book);
    this.undo.push(() => deleteStored(svc, bookPath));
    let outcome = judged;
    if (judged.credited) {
      const slot = await svc.uploads.takeCreditInterval(who.userId, book.market, now, CREDIT_EVERY_MS, this.uploadId);
      if (slot.won) this.undo.push(() => svc.uploads.releaseCreditInterval(who.userId, book.market, this.uploadId, slot.previous, CREDIT_EVERY_MS));
      else outcome = { merge: true, credited: false, reason: 'too_soon_credit' };
    }
    const { queue, message } = mergeMessage({
      v: 1,
      kind: 'book',
      market: book.market,
      uploadId: this.uploadId,
      bookPath,
      at: book.at,
      uploader: who.accountHash,
      credited: outcome.credited,
      ...(outcome.reason ? { reason: outcome.reason } : {}),
    });
    await svc.queues.send(queue, [message]);
    return outcome;
  }

  /** The answer (kept for retries), then the account's contribution record and, when credited, its window. */
  private async finish(outcome: { credited: boolean; reason?: string }, credited: boolean): Promise<UploadAnswer> {
    const { svc, book, who, now } = this;
    const meta = await this.store.meta(book.market);
    const answer: UploadAnswer = { at: Math.max(meta.newestScanAt ?? book.at, book.at), credited };
    if (outcome.reason) answer.reason = outcome.reason;
    await svc.uploads.keepAnswer(this.retryId, this.uploadId, answer, book.at + KEEP_AFTER_AT_MS);
    try {
      if (credited) await extendContributorWindow(svc, who.userId, now);
      const record = {
        market: book.market,
        at: book.at,
        kind: 'book' as const,
        items: this.scan.items.length,
        complete: book.complete,
        credited,
        ...(answer.reason ? { reason: answer.reason } : {}),
      };
      await recordContribution(svc, who.userId, record, this.uploadId);
    } catch (err) {
      // The upload is accepted and queued; a lost contribution record must not turn it into an error.
      svc.log('error', 'upload: contribution bookkeeping failed', { error: err instanceof Error ? err.message : String(err) });
    }
    return answer;
  }

  private async rollback(): Promise<void> {
    for (const step of this.undo.splice(0).reverse()) {
      await step().catch((err) => this.svc.log('error', 'upload: rollback step failed', { error: err instanceof Error ? err.message : String(err) }));
    }
  }
}
