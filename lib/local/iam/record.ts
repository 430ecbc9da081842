/**
 * Attaches the call recorder (lib/local/iam/calls.ts) to the SDK clients and the queue port the local
 * runtime gives the handlers, the way the fault middlewares are attached: one middleware a client, first in
 * line, so a call the local grant checks refuse is recorded too.
 */
import type { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import type { S3Client } from '@aws-sdk/client-s3';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { QueuePort } from '../../../shared/ports/queues';
import type { FunctionName } from '../../../shared/topology';
import { deadLetterQueueName, MERGE_QUEUES, MERGE_REJECTED_QUEUE, QUEUES } from '../../../shared/topology';
import { runAs } from '../lambda';
import { type CallRecorder, connectionsRequest, dynamodbRequests, queueArn, s3Requests } from './calls';

const commandOf = (context: unknown): string => String((context as { commandName?: string }).commandName);

/** Whether a manifest queue (or a merge queue's dead letters, or the rejected merges) is FIFO. */
function fifo(queue: string): boolean {
  const name = queue.replace(/\.fifo$/, '');
  if (name === MERGE_REJECTED_QUEUE.name) return MERGE_REJECTED_QUEUE.fifo;
  if (MERGE_QUEUES.some((q) => deadLetterQueueName(q.name) === name)) return true;
  return QUEUES.find((q) => q.name === name || deadLetterQueueName(q.name) === name)?.fifo ?? false;
}

/** The queue name of an event source ARN (`arn:aws:sqs:<region>:<account>:<name>`). */
const nameOfArn = (arn: string): string => arn.slice(arn.lastIndexOf(':') + 1);

export function recordClientCalls(
  clients: { s3: S3Client; ddb: DynamoDBDocumentClient; connections: ApiGatewayManagementApiClient },
  recorder: CallRecorder,
): void {
  clients.s3.middlewareStack.add(
    (next, context) => async (args) => {
      recorder.record(s3Requests(commandOf(context), args.input as Record<string, unknown>));
      return next(args);
    },
    { step: 'initialize', priority: 'high', name: 'localIamRecord' },
  );
  // At `build` the document client has marshalled the input: partition keys read as DynamoDB sends them.
  clients.ddb.middlewareStack.add(
    (next, context) => async (args) => {
      recorder.record(dynamodbRequests(commandOf(context), args.input as Record<string, unknown>, recorder.names));
      return next(args);
    },
    { step: 'build', name: 'localIamRecord' },
  );
  // The fan-out's poster signs and sends through the client's request handler, past the middleware stack.
  const handler = clients.connections.config.requestHandler as { handle: (request: { method: string; path: string }, ...rest: unknown[]) => Promise<unknown> };
  const handle = handler.handle.bind(handler);
  handler.handle = (request, ...rest) => {
    const r = connectionsRequest(request.method, request.path, recorder.names);
    if (r) recorder.record([r]);
    return handle(request, ...rest);
  };
}

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

/**
 * What a sandbox's S3 and DynamoDB calls (`--bundles`: posted by lib/local/bundle-worker.mjs with the input its
 * middleware saw, at the same steps as `recordClientCalls`) are recorded as: the function's.
 */
export function sandboxCallRecorder(recorder: CallRecorder): (fn: FunctionName, service: string, command: string, input: Record<string, unknown>) => void {
  return (fn, service, command, input) => {
    void runAs(fn, async () => recorder.record(service === 'S3' ? s3Requests(command, input) : dynamodbRequests(command, input, recorder.names)));
  };
}
