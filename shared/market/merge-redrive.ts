/**
 * The redrive schedule (docs/failure-model.md): books that SQS moved to a merge queue's dead-letter queue
 * (a merge that kept dying without answering: timeouts, crashes, an outage longer than the queue's receive
 * limit) go back to their merge queue once the table and the bucket answer again, in their group's order.
 * A book that keeps coming back is set aside in the rejected queue instead; books set aside for their own
 * data never pass through here.
 */

import { MERGE_REDRIVE_LIMIT } from '../domain/merge-retry';
import { fileSize } from '../files/file-store';
import { isDependencyFailure } from '../ports/dependency-failure';
import type { QueueMessage, ReceivedMessage } from '../ports/queues';
import type { Services } from '../services';
import { deadLetterQueueName, MERGE_QUEUES } from '../topology';
import { parseMergeMessage } from '../upload/merge-message';
import { describeFailure, setAside } from './merge-batch';

/** Long enough to send and delete a batch; a run that dies leaves them to the next run. */
const RECEIVE_VISIBILITY_SECONDS = 60;
/** Batches per queue and run: a run stays well inside its timeout; the next run goes on. */
const MAX_BATCHES = 50;
/** Marks a redriven copy's deduplication id: SQS would drop a copy carrying the original id within 5 minutes. */
const REDRIVE_MARK = /~r\d+$/;

export interface RedriveOutcome {
  /** False when the table or the bucket did not answer: nothing was moved. */
  answered: boolean;
  moved: number;
  setAside: number;
}

/** Moves every merge dead letter back to its queue, or aside after `MERGE_REDRIVE_LIMIT` returns. */
export async function redriveMerges(svc: Pick<Services, 'queues' | 'market' | 'files' | 'log'>): Promise<RedriveOutcome> {
  const out: RedriveOutcome = { answered: await dependenciesAnswer(svc), moved: 0, setAside: 0 };
  if (!out.answered) return out;
  for (const spec of MERGE_QUEUES) {
    const dlq = deadLetterQueueName(spec.name);
    for (let i = 0; i < MAX_BATCHES; i++) {
      const batch = await svc.queues.receive(dlq, 10, RECEIVE_VISIBILITY_SECONDS);
      if (batch.length === 0) break;
      const back: QueueMessage[] = [];
      for (const m of batch) {
        const returns = Number(m.attributes.redrives ?? 0) || 0;
        const msg = parseMergeMessage(m.body);
        if (!msg) {
          svc.log('error', 'redrive: malformed dead letter dropped', { queue: spec.name });
        } else if (returns >= MERGE_REDRIVE_LIMIT) {
          await setAside(svc, m.body, msg, 'dead-lettered', `dead-lettered ${returns + 1} times`);
          svc.log('error', 'redrive: a book kept dying in its merge and waits in the rejected queue', { market: msg.market, at: msg.at, returns });
          out.setAside++;
        } else {
          back.push(redriven(m, msg.market, msg.uploadId, returns + 1));
          svc.log('warn', 'redrive: book returned to its merge queue', { market: msg.market, at: msg.at, returns: returns + 1 });
        }
      }
      // One send keeps the batch's order in its group; the dead letters go only once their copies are queued.
      if (back.length > 0) await svc.queues.send(spec.name, back);
      await svc.queues.delete(
        dlq,
        batch.map((m) => m.receiptHandle),
      );
      out.moved += back.length;
    }
  }
  return out;
}

/** The copy sent back: same group, a deduplication id of its own (per return), the count of returns. */
function redriven(m: ReceivedMessage, market: string, uploadId: string, returns: number): QueueMessage {
  const base = (m.dedupId ?? uploadId).replace(REDRIVE_MARK, '');
  return { body: m.body, groupId: m.groupId ?? market, dedupId: `${base}~r${returns}`, attributes: { ...m.attributes, redrives: String(returns) } };
}

/** True when the table and the bucket answer (a missing item or object is an answer). */
async function dependenciesAnswer(svc: Pick<Services, 'market' | 'files' | 'log'>): Promise<boolean> {
  const probes = await Promise.allSettled([svc.market.pages.meta(MERGE_QUEUES[0].market ?? ''), fileSize(svc, 'books/v1/redrive-probe')]);
  const down = probes.flatMap((p) => (p.status === 'rejected' && isDependencyFailure(p.reason) ? [describeFailure(p.reason)] : []));
  if (down.length > 0) svc.log('warn', 'redrive: waiting for the table and the bucket to answer', { errors: down });
  return down.length === 0;
}
