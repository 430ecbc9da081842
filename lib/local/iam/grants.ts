/**
 * The local runtime holds every function to its manifest grants, as IAM does in AWS: a bucket call outside
 * the function's prefixes, or a send to a queue it may not use, fails with AccessDenied. So an integration
 * test that exercises a function also checks that shared/topology.ts grants what its code really touches.
 * Calls made outside any function (the control API, the runtime's own set-up) are the operator's and pass.
 */
import type { QueuePort } from '../../../shared/ports/queues';
import {
  type BucketRight,
  bucketAllows,
  deadLetterQueueName,
  type FunctionName,
  functionSpec,
  MERGE_QUEUES,
  MERGE_REJECTED_QUEUE,
  PUSH_QUEUE,
  QUEUES,
} from '../../../shared/topology';

type Current = () => FunctionName | undefined;

const accessDenied = (message: string): Error =>
  Object.assign(new Error(message), { name: 'AccessDenied', $fault: 'client', $metadata: { httpStatusCode: 403 } });

/** The right and the keys a bucket command needs (keys as sent, stage prefix included); null for any other command. */
function needs(command: string, input: Record<string, unknown>): { right: BucketRight; keys: string[] } | null {
  switch (command) {
    case 'GetObjectCommand':
    case 'HeadObjectCommand':
      return { right: 'read', keys: [String(input.Key)] };
    case 'PutObjectCommand':
      return { right: 'write', keys: [String(input.Key)] };
    case 'DeleteObjectCommand':
      return { right: 'delete', keys: [String(input.Key)] };
    case 'DeleteObjectsCommand':
      return { right: 'delete', keys: ((input.Delete as { Objects?: Array<{ Key?: string }> } | undefined)?.Objects ?? []).map((o) => String(o.Key)) };
    case 'ListObjectsV2Command':
      return { right: 'list', keys: [String(input.Prefix ?? '')] };
    default:
      return null;
  }
}

/** Whether `fn` may use `right` on `key` (a reader may list what it reads: that is how S3 answers it 404). */
function allowed(fn: FunctionName, right: BucketRight, key: string, filesPrefix: string): boolean {
  if (!key.startsWith(filesPrefix)) return false;
  const access = functionSpec(fn).access.bucket;
  const relative = key.slice(filesPrefix.length);
  return bucketAllows(access, right, relative) || (right === 'list' && bucketAllows(access, 'read', relative));
}

/** Why `fn` may not make this bucket call (the AccessDenied message), or null when its grants allow it. */
export function bucketDenial(fn: FunctionName, command: string, input: Record<string, unknown>, buckets: { filesPrefix: string; work: string }): string | null {
  const need = needs(command, input);
  // The private work bucket: read, write and list for the functions whose manifest entry names it.
  const onWork = input.Bucket === buckets.work;
  const mayWork = functionSpec(fn).access.workBucket === 'write' && need !== null && need.right !== 'delete';
  const denied = need === null ? [command] : onWork ? (mayWork ? [] : need.keys) : need.keys.filter((k) => !allowed(fn, need.right, k, buckets.filesPrefix));
  return denied.length > 0 ? `AccessDenied: ${fn} may not ${need?.right ?? 'call'} ${denied.join(', ')} (shared/topology.ts grants it nothing there)` : null;
}

const groupOf = (queue: string): 'merge' | 'push' | undefined =>
  queue === PUSH_QUEUE.name ? 'push' : MERGE_QUEUES.some((q) => q.name === queue) ? 'merge' : undefined;

/** Whether `fn` may send to `queue`: its queue groups, and the rejected merges for functions that handle merge failures. */
function maySend(fn: FunctionName, queue: string): boolean {
  const access = functionSpec(fn).access;
  if (queue === MERGE_REJECTED_QUEUE.name) return access.mergeFailures !== undefined;
  const group = groupOf(queue);
  return group !== undefined && (access.queues?.includes(group) ?? false);
}

/** Whether `fn` may receive and delete messages of `queue`: only the redrive function, from the merge dead letters. */
const mayTake = (fn: FunctionName, queue: string): boolean =>
  functionSpec(fn).access.mergeFailures === 'redrive' && MERGE_QUEUES.some((q) => deadLetterQueueName(q.name) === queue);

/** Whether `fn` consumes the queue of `sourceArn` (its event source mapping may change the visibility of what it received). */
const consumes = (fn: FunctionName, sourceArn: string): boolean => {
  const name = sourceArn.slice(sourceArn.lastIndexOf(':') + 1).replace(/\.fifo$/, '');
  return QUEUES.some((q) => q.name === name && q.consumer === fn);
};

/** The queue port a function sees: only the queues its manifest entry lets it use. */
export function enforceQueueGrants(queues: QueuePort, current: Current, report: (message: string) => void): QueuePort {
  const check = (allowedFor: (fn: FunctionName) => boolean, what: string): void => {
    const fn = current();
    if (fn && !allowedFor(fn)) {
      const message = `AccessDenied: ${fn} may not ${what} (shared/topology.ts)`;
      report(message);
      throw accessDenied(message);
    }
  };
  return {
    send: async (queue, messages) => {
      check((fn) => maySend(fn, queue), `send to queue ${queue}`);
      return queues.send(queue, messages);
    },
    changeVisibility: async (sourceArn, handles, seconds) => {
      check((fn) => consumes(fn, sourceArn), `change the visibility of messages of ${sourceArn}`);
      return queues.changeVisibility(sourceArn, handles, seconds);
    },
    receive: async (queue, max, visibility) => {
      check((fn) => mayTake(fn, queue), `receive from queue ${queue}`);
      return queues.receive(queue, max, visibility);
    },
    delete: async (queue, handles) => {
      check((fn) => mayTake(fn, queue), `delete from queue ${queue}`);
      return queues.delete(queue, handles);
    },
  };
}
