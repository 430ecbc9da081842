/**
 * One SQS FIFO batch of a market's merge queue, merged in order (spec files: seq dense, never repeated), and
 * what happens to a book whose merge fails (docs/failure-model.md): it is received again after a backoff
 * that grows with its receives; a failure of its own making counts against its budget, after which it is
 * set aside in the rejected queue with an alarm; a dependency's failure only delays it.
 */
import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import { blanksMarket, replaysSnapshot } from '../domain/book-watch';
import { MERGE_FAILURE_BUDGET, mergeRetryDelaySeconds, type RejectReason } from '../domain/merge-retry';
import { isDependencyFailure } from '../ports/dependency-failure';
import type { Services } from '../services';
import { metric } from '../telemetry/function-telemetry';
import { METRIC } from '../telemetry/metric-names';
import { inSubsegment } from '../telemetry/tracing';
import { MERGE_REJECTED_QUEUE } from '../topology';
import { type MergeMessage, parseMergeMessage } from '../upload/merge-message';
import { type MergeWatch, mergeBook } from './merge-book';

/**
 * Merges the records in order. After a failure the rest of the batch is reported failed too, unmerged, so
 * the group's order holds when SQS delivers them again. A malformed record is dropped (it can never merge).
 */
export async function mergeBatch(
  svc: Pick<Services, 'config' | 'clock' | 'queues' | 'settings' | 'identity' | 'market' | 'files' | 'log'>,
  records: readonly SQSRecord[],
): Promise<SQSBatchResponse> {
  for (let i = 0; i < records.length; i++) {
    const record = records[i];
    const msg = parseMergeMessage(record.body);
    if (!msg) {
      svc.log('error', 'merge: malformed message dropped', { messageId: record.messageId });
      continue;
    }
    try {
      const started = performance.now();
      // A subsegment per book, found in X-Ray by the market and upload id its upload's trace carries.
      const out = await inSubsegment('merge book', { market: msg.market, uploadId: msg.uploadId }, () => mergeBook(svc, msg));
      svc.log('info', 'merge', { market: msg.market, at: msg.at, ...out });
      if (out.merged) {
        // Wall time of the work, not the service clock (a manual clock locally).
        metric(METRIC.mergeDurationMs, Math.round(performance.now() - started), { market: msg.market });
        metric(METRIC.mergeRowsChanged, out.rowsChanged, { market: msg.market });
        watchRisks(svc, msg, out.watch);
      }
    } catch (err) {
      if ((await afterFailure(svc, record, msg, err)) === 'set-aside') continue;
      const rest = records.slice(i);
      await backOff(svc, rest, receiveCount(record));
      return { batchItemFailures: rest.map((r) => ({ itemIdentifier: r.messageId })) };
    }
  }
  return { batchItemFailures: [] };
}

/**
 * The two watched risks (shared/domain/book-watch.ts): counted without a market dimension, so one alarm per
 * metric covers every market, and logged with the market, the book's time and the uploader's opaque hash,
 * so the operator knows what to withhold, restore or redrive (docs/security.md).
 */
function watchRisks(svc: Pick<Services, 'log'>, msg: MergeMessage, watch: MergeWatch): void {
  const book = { market: msg.market, at: msg.at, uploader: msg.uploader };
  if (blanksMarket(watch.listedBefore, watch.gone)) {
    metric(METRIC.mergeBlankedMarket, 1);
    svc.log('warn', 'merge: one complete book marked most of the market gone', { ...book, listedBefore: watch.listedBefore, gone: watch.gone });
  }
  if (watch.echo && replaysSnapshot(watch.echo)) {
    metric(METRIC.mergeSnapshotReplay, 1);
    svc.log('warn', 'merge: a credited book repeats the last hourly snapshot', { ...book, ...watch.echo });
  }
}

const receiveCount = (r: SQSRecord): number => Number(r.attributes.ApproximateReceiveCount) || 1;

/** Decides a failed book's fate: received again, or (its budget spent) set aside for an operator. */
async function afterFailure(
  svc: Pick<Services, 'clock' | 'queues' | 'market' | 'log'>,
  record: SQSRecord,
  msg: MergeMessage,
  err: unknown,
): Promise<'retry' | 'set-aside'> {
  const where = { market: msg.market, at: msg.at, receives: receiveCount(record) };
  const error = describeFailure(err);
  if (isDependencyFailure(err)) {
    svc.log('warn', 'merge waits for a dependency; received again', { ...where, error });
    return 'retry';
  }
  let failures: number;
  try {
    failures = await svc.market.failures.count(msg.market, msg.uploadId, error, svc.clock.now());
  } catch (countErr) {
    // The table went away meanwhile: nothing is counted, the book is simply received again.
    svc.log('warn', 'merge failed and its failure could not be counted; received again', { ...where, error, countError: describeFailure(countErr) });
    return 'retry';
  }
  if (failures < MERGE_FAILURE_BUDGET) {
    svc.log('error', 'merge failed; received again', { ...where, failures, error });
    return 'retry';
  }
  try {
    await setAside(svc, record.body, msg, 'data', error);
  } catch (sendErr) {
    svc.log('error', 'merge failed and could not be set aside; received again', { ...where, failures, error, sendError: describeFailure(sendErr) });
    return 'retry';
  }
  svc.log('error', 'merge rejected: the book failed for its own data and waits in the rejected queue', { ...where, failures, error });
  return 'set-aside';
}

/** Puts a merge message in the rejected queue (FIFO per market), with why; it is never redriven. */
export async function setAside(
  svc: Pick<Services, 'queues'>,
  body: string,
  msg: Pick<MergeMessage, 'market' | 'uploadId' | 'at'>,
  reason: RejectReason,
  error: string,
): Promise<void> {
  await svc.queues.send(MERGE_REJECTED_QUEUE.name, [
    { body, groupId: msg.market, dedupId: msg.uploadId, attributes: { reason, error: error.slice(0, 256), market: msg.market, at: String(msg.at) } },
  ]);
}

/** Hides the failed record and the ones behind it until their next receive is due (the first retry is immediate). */
async function backOff(svc: Pick<Services, 'queues' | 'log'>, records: readonly SQSRecord[], receives: number): Promise<void> {
  try {
    await svc.queues.changeVisibility(
      records[0].eventSourceARN,
      records.map((r) => r.receiptHandle),
      mergeRetryDelaySeconds(receives),
    );
  } catch (err) {
    // SQS itself failed: the messages come back after the queue's visibility timeout instead.
    svc.log('warn', 'merge: could not change the visibility of failed messages', { error: describeFailure(err) });
  }
}

/**
 * An error for the logs: its name and message, with capability paths cut to their prefix (a book path's
 * cap must never reach a log line).
 */
export function describeFailure(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  // A cap is 22 base64url characters, alone or after `<number>-` (book, change and checkpoint file names).
  return text.replace(/(^|[^A-Za-z0-9_-]|\d-)[A-Za-z0-9_-]{22}(?![A-Za-z0-9_-])/g, '$1<cap>');
}
