/**
 * Attaches the call recorder (lib/local/iam/calls.ts) where the local AWS edge does not see the calls: the
 * in-process queue port, first in line, so a call the grants refuse is recorded too. DynamoDB, S3 and
 * `@connections` calls are recorded at the edge (lib/local/aws-edge/).
 */
import type { QueuePort } from '../../../shared/ports/queues';
import { deadLetterQueueName, MERGE_QUEUES, MERGE_REJECTED_QUEUE, QUEUES } from '../../../shared/topology';
import { type CallRecorder, queueArn } from './calls';

/** Whether a manifest queue (or a merge queue's dead letters, or the rejected merges) is FIFO. */
function fifo(queue: string): boolean {
  const name = queue.replace(/\.fifo$/, '');
  if (name === MERGE_REJECTED_QUEUE.name) return MERGE_REJECTED_QUEUE.fifo;
  if (MERGE_QUEUES.some((q) => deadLetterQueueName(q.name) === name)) return true;
  return QUEUES.find((q) => q.name === name || deadLetterQueueName(q.name) === name)?.fifo ?? false;
}

/** The queue name of an event source ARN (`arn:aws:sqs:<region>:<account>:<name>`). */
const nameOfArn = (arn: string): string => arn.slice(arn.lastIndexOf(':') + 1);

/** The queue port with every call recorded as the SQS action it is in AWS. */
export function recordQueueCalls(queues: QueuePort, recorder: CallRecorder): QueuePort {
  const arn = (queue: string) => queueArn(recorder.names, queue, fifo(queue));
  return {
    send: async (queue, messages) => {
      recorder.record([{ action: 'sqs:SendMessage', resource: arn(queue) }]);
      return queues.send(queue, messages);
    },
    changeVisibility: async (sourceArn, handles, seconds) => {
      recorder.record([{ action: 'sqs:ChangeMessageVisibility', resource: arn(nameOfArn(sourceArn)) }]);
      return queues.changeVisibility(sourceArn, handles, seconds);
    },
    receive: async (queue, max, visibility) => {
      recorder.record([{ action: 'sqs:ReceiveMessage', resource: arn(queue) }]);
      return queues.receive(queue, max, visibility);
    },
    delete: async (queue, handles) => {
      recorder.record([{ action: 'sqs:DeleteMessage', resource: arn(queue) }]);
      return queues.delete(queue, handles);
    },
  };
}
