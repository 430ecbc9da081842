/**
 * The uploads port: the admission records of uploads (spec Uploads): the 5-minute limit per caller and market,
 * the claim on a market's `at` (duplicate rule), the first answer per retry identity, the credit interval per
 * account and market, and quarantined uploads. Limits and claims are conditional, so concurrent uploads cannot
 * both pass; each can be released again when storing the upload fails, leaving nothing half-written.
 */

/** A slot taken: `previous` is what it held before, to put back on release. */
export type Slot = { won: true; previous: number | null } | { won: false };

/** The answer an upload got (spec Uploads: `{at, credited, reason?}`). */
export interface UploadAnswer {
  at: number;
  credited: boolean;
  reason?: string;
}

/**
 * The retry record of an upload (spec Uploads, Retry): claimed by the attempt that admits it, then holding
 * its answer. `busy`: another attempt holds a fresh claim; `claimed`: this attempt admits the upload under
 * `uploadId` (its own, or that of an attempt whose claim went stale: the steps keyed by it are idempotent).
 */
export type RetryClaim = { kind: 'answered'; answer: UploadAnswer } | { kind: 'claimed'; uploadId: string } | { kind: 'busy' };

export interface QuarantineRecord {
  market: string;
  at: number;
  /** Server time of receipt: the 7 days count from it. */
  received: number;
  /** Bucket path of the gzip body (`quarantine/<market>/<at>-<random>.json.gz`). */
  path: string;
  /** Opaque uploader hash (never the account id). */
  uploader: string;
  items: number;
  complete: boolean;
}

export interface UploadsPort {
  /** When the account's last credited upload of the market was (server time), or null. */
  lastCreditedAt(userId: string, market: string): Promise<number | null>;
  /**
   * Spec Uploads, duplicate rule: the first upload to store a market's `at` claims it until `expiresAt`. Won
   * again by the same retry identity (its own earlier attempt); lost when another caller holds it.
   */
  claimBookAt(market: string, at: number, retryId: string, uploadId: string, expiresAt: number): Promise<boolean>;
  releaseBookAt(market: string, at: number, uploadId: string): Promise<void>;
  /**
   * Claims the retry record, or reads its answer. A claim older than `leaseMs` (longer than the upload
   * function may run) belongs to an attempt that died: it is taken over, so nothing waits on it for ever.
   */
  claimRetry(retryId: string, uploadId: string, now: number, leaseMs: number, expiresAt: number): Promise<RetryClaim>;
  /** Puts the claim back when the attempt ends without an answer to keep (an error), so a repeat starts afresh. */
  releaseRetry(retryId: string, uploadId: string): Promise<void>;
  /** Keeps the claim's answer for retries until `expiresAt`; the first answer written wins. */
  keepAnswer(retryId: string, uploadId: string, answer: UploadAnswer, expiresAt: number): Promise<void>;
  /** Spec Uploads: one accepted book per caller (or `via`) per market every `everyMs`. */
  takeUploadLimit(caller: string, market: string, now: number, everyMs: number, token: string): Promise<Slot>;
  releaseUploadLimit(caller: string, market: string, token: string, previous: number | null, everyMs: number): Promise<void>;
  /** Spec credit rule 4: at most one credited upload per account per market every `everyMs`. */
  takeCreditInterval(userId: string, market: string, now: number, everyMs: number, token: string): Promise<Slot>;
  releaseCreditInterval(userId: string, market: string, token: string, previous: number | null, everyMs: number): Promise<void>;
  putQuarantine(rec: QuarantineRecord, id: string, keepMs: number): Promise<void>;
  /** Records received before `before` (oldest first), with their sort keys for deletion. */
  quarantinedBefore(market: string, before: number): Promise<Array<QuarantineRecord & { sk: string }>>;
  deleteQuarantine(market: string, sk: string): Promise<void>;
}
