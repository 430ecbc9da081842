/**
 * SQS on a local HTTP endpoint, for the sandboxes of the `--bundles` mode (lib/local/functions/sandboxes.ts): the four
 * actions the service uses (shared/store/queue.ts), in SQS's JSON protocol (`POST /`, `X-Amz-Target:
 * AmazonSQS.<Action>`, `application/x-amz-json-1.0`), on the runtime's in-process queues. The caller is the
 * function whose credentials signed the request (each sandbox's access key id is its function's name, as each
 * function has its own role on AWS), so the manifest's queue grants (lib/local/iam/grants.ts) hold per function.
 * As on AWS, the signature must be that function's: each sandbox gets a secret key the runtime makes at start
 * (lib/local/functions/sandbox-environment.ts), and the endpoint answers only its own loopback `Host` (no DNS rebinding),
 * so neither a page in a browser nor another process on the machine can send or take the service's messages.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { QueueMessage, QueuePort } from '../../../shared/ports/queues';
import { SqsRefusal } from '../../../shared/store/memory/queues';
import { FUNCTIONS, type FunctionName } from '../../../shared/topology';
import { runAs } from '../functions/lambda';
import { LOCAL_ACCOUNT } from '../iam/calls';
import { checkSignature } from './sigv4-check';

const CONTENT_TYPE = 'application/x-amz-json-1.0';
const MAX_BATCH = 10;
/** SQS's largest message and batch (1 MiB since 2025). */
const MAX_BATCH_BYTES = 1_048_576;

/**
 * SQS's own host name (`sqs.<region>.amazonaws.com`), which a sandbox's request to a queue URL derived from an
 * event source ARN carries (the bootstrap routes it here, lib/local/functions/bundle-worker.mjs); no page can have that
 * name resolve to 127.0.0.1, so it opens no DNS rebinding.
 */
const SQS_HOST = /^sqs\.[a-z0-9-]+\.amazonaws\.com$/;

const md5 = (s: string): string => createHash('md5').update(s, 'utf8').digest('hex');

/** An SQS error as the JSON protocol carries it (the SDK names the error after `__type`'s last part). */
class SqsError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

interface Entry {
  Id?: string;
  MessageBody?: string;
  MessageGroupId?: string;
  MessageDeduplicationId?: string;
  DelaySeconds?: number;
  MessageAttributes?: Record<string, { DataType?: string; StringValue?: string }>;
  ReceiptHandle?: string;
  VisibilityTimeout?: number;
}

/** The queue a URL names (`<endpoint>/<account>/<name>`, `.fifo` or not), as the local queues name it. */
const queueOf = (url: unknown, known: (name: string) => boolean): { name: string; segment: string } => {
  const segment = typeof url === 'string' ? (url.split('?')[0].split('/').pop() ?? '') : '';
  const name = segment.replace(/\.fifo$/, '');
  if (!known(name)) throw new SqsError(400, 'com.amazonaws.sqs#QueueDoesNotExist', `The specified queue does not exist: ${String(url)}`);
  return { name, segment };
};

/**
 * The function that signed the request: the access key id of its SigV4 `Authorization`, the signature made
 * with the secret the runtime issued to that function (`secretOf`).
 */
async function callerOf(req: IncomingMessage, body: Buffer, secretOf: (fn: FunctionName) => string | undefined): Promise<FunctionName> {
  const check = await checkSignature(req, body, 'sqs', (key) => {
    const fn = FUNCTIONS.find((f) => f.name === key)?.name;
    return fn && secretOf(fn);
  });
  if (check.ok) return check.accessKeyId as FunctionName;
  if (check.reason === 'mismatch')
    throw new SqsError(
      403,
      'com.amazonaws.sqs#SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided (signed with the secret the runtime issued to the function?)',
    );
  throw new SqsError(
    403,
    'com.amazonaws.sqs#InvalidClientTokenId',
    `The security token included in the request is invalid (access key ${check.accessKeyId?.slice(0, 64) ?? 'missing'})`,
  );
}

const entriesOf = (input: Record<string, unknown>): Entry[] => {
  const entries = input.Entries;
  if (!Array.isArray(entries) || entries.length === 0)
    throw new SqsError(400, 'com.amazonaws.sqs#EmptyBatchRequest', 'There should be at least one entry in the request.');
  if (entries.length > MAX_BATCH)
    throw new SqsError(
      400,
      'com.amazonaws.sqs#TooManyEntriesInBatchRequest',
      `Maximum number of entries per request are ${MAX_BATCH}. You have sent ${entries.length}.`,
    );
  return entries as Entry[];
};

async function act(queues: QueuePort, known: (name: string) => boolean, action: string, input: Record<string, unknown>): Promise<unknown> {
  switch (action) {
    case 'SendMessageBatch': {
      const { name } = queueOf(input.QueueUrl, known);
      const entries = entriesOf(input);
      const bytes = entries.reduce((n, e) => n + Buffer.byteLength(e.MessageBody ?? ''), 0);
      if (bytes > MAX_BATCH_BYTES)
        throw new SqsError(
          400,
          'com.amazonaws.sqs#BatchRequestTooLong',
          `Batch requests cannot be longer than ${MAX_BATCH_BYTES} bytes. You have sent ${bytes} bytes.`,
        );
      const messages: QueueMessage[] = entries.map((e) => ({
        body: e.MessageBody ?? '',
        groupId: e.MessageGroupId,
        dedupId: e.MessageDeduplicationId,
        delaySeconds: e.DelaySeconds,
        attributes: e.MessageAttributes ? Object.fromEntries(Object.entries(e.MessageAttributes).map(([k, v]) => [k, v.StringValue ?? ''])) : undefined,
      }));
      // Entry by entry, as SQS answers a batch: a message it refuses (a FIFO message without a group or
      // deduplication id) is a failed entry, the sender's fault; the others are sent.
      const Successful: unknown[] = [];
      const Failed: unknown[] = [];
      for (const [i, e] of entries.entries()) {
        try {
          await queues.send(name, [messages[i]]);
          Successful.push({ Id: e.Id, MessageId: randomUUID(), MD5OfMessageBody: md5(e.MessageBody ?? '') });
        } catch (err) {
          if (!(err instanceof SqsRefusal)) throw err;
          Failed.push({ Id: e.Id, Code: err.code, Message: err.message, SenderFault: true });
        }
      }
      return { Successful, Failed };
    }
    case 'ChangeMessageVisibilityBatch': {
      const { segment } = queueOf(input.QueueUrl, known);
      const entries = entriesOf(input);
      // The local queues know a consumed queue by its event source ARN, as the port names it.
      const arn = `arn:aws:sqs:local:${LOCAL_ACCOUNT}:${segment}`;
      const bySeconds = new Map<number, string[]>();
      for (const e of entries) bySeconds.set(e.VisibilityTimeout ?? 0, [...(bySeconds.get(e.VisibilityTimeout ?? 0) ?? []), e.ReceiptHandle ?? '']);
      for (const [seconds, handles] of bySeconds) await queues.changeVisibility(arn, handles, seconds);
      return { Successful: entries.map((e) => ({ Id: e.Id })), Failed: [] };
    }
    case 'ReceiveMessage': {
      const { name } = queueOf(input.QueueUrl, known);
      const max = Number(input.MaxNumberOfMessages ?? 1);
      const got = await queues.receive(name, max, Number(input.VisibilityTimeout ?? 30));
      return {
        Messages: got.map((m) => ({
          MessageId: m.receiptHandle,
          ReceiptHandle: m.receiptHandle,
          MD5OfBody: md5(m.body),
          Body: m.body,
          Attributes: {
            ApproximateReceiveCount: String(m.receiveCount),
            ...(m.groupId !== undefined ? { MessageGroupId: m.groupId } : {}),
            ...(m.dedupId !== undefined ? { MessageDeduplicationId: m.dedupId } : {}),
          },
          MessageAttributes: Object.fromEntries(Object.entries(m.attributes).map(([k, v]) => [k, { DataType: 'String', StringValue: v }])),
        })),
      };
    }
    case 'DeleteMessageBatch': {
      const { name } = queueOf(input.QueueUrl, known);
      const entries = entriesOf(input);
      await queues.delete(
        name,
        entries.map((e) => e.ReceiptHandle ?? ''),
      );
      return { Successful: entries.map((e) => ({ Id: e.Id })), Failed: [] };
    }
    default:
      throw new SqsError(
        400,
        'com.amazonaws.sqs#UnsupportedOperation',
        `${action} is not served by the local SQS endpoint (it serves SendMessageBatch, ChangeMessageVisibilityBatch, ReceiveMessage, DeleteMessageBatch)`,
      );
  }
}

export interface SqsEndpoint {
  url: string;
  close(): Promise<void>;
}

/**
 * Listens on a free loopback port. `queues` is the port the in-process handlers get (grants enforced for
 * `currentFunction()`); `known` tells which queue names exist; `secretOf` is the secret access key the
 * runtime issued to a function (undefined: none, so its calls are refused).
 */
export async function startSqsEndpoint(
  queues: QueuePort,
  known: (name: string) => boolean,
  host: string,
  secretOf: (fn: FunctionName) => string | undefined,
): Promise<SqsEndpoint> {
  let hosts: string[] = [];
  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': CONTENT_TYPE, 'x-amzn-requestid': randomUUID(), ...headers });
    res.end(JSON.stringify(body));
  };
  const server: Server = createServer(async (req, res) => {
    try {
      // Like the control API (lib/local/gateways/edge.ts): a page whose name was rebound to 127.0.0.1 sends its own name.
      const named = String(req.headers.host ?? '').toLowerCase();
      if (!hosts.includes(named) && !SQS_HOST.test(named))
        throw new SqsError(403, 'com.amazonaws.sqs#AccessDenied', `the local SQS endpoint answers only at ${hosts.join(' or ')}`);
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = Buffer.concat(chunks);
      const target = String(req.headers['x-amz-target'] ?? '');
      if (req.method !== 'POST' || !target.startsWith('AmazonSQS.'))
        throw new SqsError(400, 'com.amazonaws.sqs#InvalidAction', 'the local SQS endpoint takes POST with X-Amz-Target: AmazonSQS.<Action> (JSON protocol)');
      const fn = await callerOf(req, body, secretOf);
      const input = JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>;
      const out = await runAs(fn, () => act(queues, known, target.slice('AmazonSQS.'.length), input));
      send(res, 200, out);
    } catch (err) {
      if (err instanceof SqsError) send(res, err.status, { __type: err.type, message: err.message });
      else if ((err as Error).name === 'AccessDenied') send(res, 403, { __type: 'com.amazonaws.sqs#AccessDenied', message: (err as Error).message });
      else send(res, 500, { __type: 'com.amazonaws.sqs#InternalError', message: err instanceof Error ? err.message : String(err) });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  hosts = [`${host}:${port}`, `localhost:${port}`];
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
