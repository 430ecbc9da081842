/**
 * The merge queue's message (DESIGN "Uploads and merges"): a pointer to the stored book, never the book
 * itself (ten bodies would pass the Lambda payload limit). Grouped by market, deduplicated by upload id.
 */
// zod/mini: the merge and redrive parse only this message; full zod would add a third to their bundles' cold start.
import * as z from 'zod/mini';
import { parseBody, type QueueMessage } from '../ports/queues';
import { mergeQueueName } from '../topology';

const MergeMessageSchema = z.object({
  v: z.literal(1),
  kind: z.literal('book'),
  market: z.string().check(z.minLength(1)),
  /** Identity of the accepted upload: the merge is keyed by it, so a redelivery merges nothing twice. */
  uploadId: z.string().check(z.minLength(1)),
  /** Bucket path of the stored book file (`books/v1/<market>/<at>-<cap>.json.gz`). */
  bookPath: z.string().check(z.minLength(1)),
  at: z.int(),
  /** Opaque hash of the uploading account (the partner's for `via`), the rows' `reader`. */
  uploader: z.string().check(z.minLength(1)),
  credited: z.boolean(),
  reason: z.optional(z.string()),
});

export type MergeMessage = z.infer<typeof MergeMessageSchema>;

/** The queue and SQS FIFO message of an accepted upload: MessageGroupId = market, dedup id = upload id. */
export function mergeMessage(m: MergeMessage): { queue: string; message: QueueMessage } {
  return { queue: mergeQueueName(m.market), message: { body: JSON.stringify(m), groupId: m.market, dedupId: m.uploadId } };
}

/** A message body as the merge receives it, or null when it is not one (dropped, never retried). */
export function parseMergeMessage(body: string): MergeMessage | null {
  return parseBody(MergeMessageSchema, body);
}
