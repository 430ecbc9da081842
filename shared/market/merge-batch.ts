/** One SQS FIFO batch of a market's merge queue, merged in order (spec files: seq dense, never repeated). */
import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import type { Services } from '../services';
import { parseMergeMessage } from '../upload/merge-message';
import { mergeBook } from './merge-book';

/**
 * Merges the records in order. After a failure the rest of the batch is reported failed too, unmerged, so
 * the group's order holds when SQS delivers them again. A malformed record is dropped (it can never merge).
 */
export async function mergeBatch(svc: Services, records: readonly SQSRecord[]): Promise<SQSBatchResponse> {
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of records) {
    if (failures.length > 0) {
      failures.push({ itemIdentifier: record.messageId });
      continue;
    }
    const msg = parseMergeMessage(record.body);
    if (!msg) {
      svc.log('error', 'merge: malformed message dropped', { messageId: record.messageId });
      continue;
    }
    try {
      const out = await mergeBook(svc, msg);
      svc.log('info', 'merge', { market: msg.market, at: msg.at, ...out });
    } catch (err) {
      svc.log('error', 'merge failed; received again', { market: msg.market, messageId: record.messageId, error: err instanceof Error ? err.stack : String(err) });
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
}
