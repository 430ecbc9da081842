/**
 * Records every AWS call a handler makes through the local runtime as IAM would see it in AWS: the calling
 * function (the LambdaHost's current invocation), the IAM action, the resource ARN as AWS names it and the
 * condition keys the stack's policies test (`dynamodb:LeadingKeys`, `s3:prefix`). The test run checks the
 * calls against each function's statements in the synthesized template (test/support/iam-check.ts).
 * Calls outside any invocation (the control API, the runtime's own set-up) are the operator's: not recorded.
 */
import { appendFileSync } from 'node:fs';
import type { FunctionName } from '../../../shared/topology';
import type { IamRequest } from './policy';

/** The region and account of local ARNs (the local config's region; the LambdaHost's account). */
export const LOCAL_REGION = 'us-east-1';
export const LOCAL_ACCOUNT = '000000000000';

/** What a recorded call's ARNs name locally, so the check can map the template's logical ids onto them. */
export interface LocalNames {
  region: string;
  account: string;
  table: string;
  bucket: string;
  work: string;
  /** The stage's key prefix in the files bucket ('' but for preview-like runtimes). */
  filesPrefix: string;
  /** The WebSocket API's id and stage in `@connections` ARNs. */
  liveApiId: string;
  liveStage: string;
}

/** The ARN names of a local deployment (lib/local/functions/deployment.ts names it), its WebSocket API being `liveApiId`. */
export function arnNames(
  d: { stage: string; tableName: string; bucketName: string; workBucketName: string; filesPrefix: string },
  liveApiId: string,
): LocalNames {
  const { tableName: table, bucketName: bucket, workBucketName: work, filesPrefix, stage: liveStage } = d;
  return { region: LOCAL_REGION, account: LOCAL_ACCOUNT, table, bucket, work, filesPrefix, liveApiId, liveStage };
}

export interface RecordedCall extends IamRequest {
  fn: FunctionName;
  names: LocalNames;
}

type Current = () => FunctionName | undefined;

/** The partition key attribute of the single table (lib/constructs/data-table.ts). */
const PARTITION_KEY = 'pk';

/** Flushes to the run's file after this many calls (and at close): appends stay rare. */
const FLUSH_EVERY = 500;

export class CallRecorder {
  /** Every call recorded by this runtime, in order, when it records in memory only (tests evaluate them directly). */
  readonly calls: RecordedCall[] = [];
  private pending: string[] = [];
  private readonly seen = new Set<string>();

  /** `file`: where the run's calls go (one JSON object a line), or none to keep them in memory only. */
  constructor(
    readonly names: LocalNames,
    private readonly current: Current,
    private readonly file?: string,
  ) {
    if (file) process.once('exit', () => this.flush());
  }

  /** Records the requests of one call made by the current function (none outside an invocation). */
  record(requests: IamRequest[]): void {
    const fn = this.current();
    if (fn) this.recordAs(fn, requests);
  }

  /** Records the requests of one call made by `fn` (the local AWS edge knows the caller by its signature). */
  recordAs(fn: FunctionName, requests: IamRequest[]): void {
    for (const r of requests) {
      const call: RecordedCall = { fn, ...r, names: this.names };
      if (!this.file) {
        this.calls.push(call);
        continue;
      }
      // The same call again adds nothing to the check: written once.
      const key = `${fn}\u0000${r.action}\u0000${r.resource}\u0000${JSON.stringify(r.context ?? {})}`;
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      this.pending.push(JSON.stringify(call));
    }
    if (this.pending.length >= FLUSH_EVERY) this.flush();
  }

  flush(): void {
    if (!this.file || this.pending.length === 0) return;
    appendFileSync(this.file, `${this.pending.join('\n')}\n`);
    this.pending = [];
  }
}

type Attr = { S?: string; N?: string; B?: unknown };
type Item = Record<string, Attr | undefined>;

const leadingKey = (item: Item | undefined): string[] => {
  const pk = item?.[PARTITION_KEY];
  return pk?.S !== undefined ? [pk.S] : pk?.N !== undefined ? [pk.N] : [];
};

const keys = (values: string[]): Record<string, string[]> | undefined => (values.length > 0 ? { 'dynamodb:LeadingKeys': values } : undefined);

/**
 * The partition key a Query names: its key condition's `pk = :value` (the attribute by name or through
 * `ExpressionAttributeNames`), as DynamoDB gives it to IAM. None when the condition does not read that way.
 */
function queriedKey(input: Record<string, unknown>): string[] {
  const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const values = (input.ExpressionAttributeValues ?? {}) as Record<string, Attr>;
  for (const m of String(input.KeyConditionExpression ?? '').matchAll(/(#?[A-Za-z_][\w]*)\s*=\s*(:[\w]+)/g)) {
    const attribute = m[1].startsWith('#') ? names[m[1]] : m[1];
    if (attribute === PARTITION_KEY) return leadingKey({ [PARTITION_KEY]: values[m[2]] });
  }
  return [];
}

/**
 * The IAM requests of one DynamoDB call (input as sent on the wire: attribute values marshalled). A batch
 * is one request per table; a transaction is checked by AWS item by item, as the single-item actions.
 */
export function dynamodbRequests(command: string, input: Record<string, unknown>, names: LocalNames): IamRequest[] {
  const op = command.replace(/Command$/, '');
  const arn = (table: unknown, index?: unknown) =>
    `arn:aws:dynamodb:${names.region}:${names.account}:table/${String(table)}${index ? `/index/${String(index)}` : ''}`;
  switch (op) {
    case 'GetItem':
    case 'DeleteItem':
    case 'UpdateItem':
      return [{ action: `dynamodb:${op}`, resource: arn(input.TableName), context: keys(leadingKey(input.Key as Item)) }];
    case 'PutItem':
      return [{ action: 'dynamodb:PutItem', resource: arn(input.TableName), context: keys(leadingKey(input.Item as Item)) }];
    case 'Query':
      return [{ action: 'dynamodb:Query', resource: arn(input.TableName, input.IndexName), context: keys(queriedKey(input)) }];
    case 'Scan':
      // A Scan names no partition key: IAM sees no dynamodb:LeadingKeys at all.
      return [{ action: 'dynamodb:Scan', resource: arn(input.TableName, input.IndexName) }];
    case 'BatchGetItem':
      return Object.entries((input.RequestItems ?? {}) as Record<string, { Keys?: Item[] }>).map(([table, r]) => ({
        action: 'dynamodb:BatchGetItem',
        resource: arn(table),
        context: keys((r.Keys ?? []).flatMap(leadingKey)),
      }));
    case 'BatchWriteItem':
      return Object.entries((input.RequestItems ?? {}) as Record<string, Array<{ PutRequest?: { Item: Item }; DeleteRequest?: { Key: Item } }>>).map(
        ([table, writes]) => ({
          action: 'dynamodb:BatchWriteItem',
          resource: arn(table),
          context: keys(writes.flatMap((w) => leadingKey(w.PutRequest?.Item ?? w.DeleteRequest?.Key))),
        }),
      );
    case 'TransactWriteItems':
      return ((input.TransactItems ?? []) as Array<Record<string, { TableName: string; Key?: Item; Item?: Item }>>).flatMap((t) => {
        const [kind, part] = Object.entries(t)[0] ?? [];
        if (!part) return [];
        const action = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem' }[kind as string] ?? kind;
        return [{ action: `dynamodb:${action}`, resource: arn(part.TableName), context: keys(leadingKey(part.Item ?? part.Key)) }];
      });
    case 'TransactGetItems':
      return ((input.TransactItems ?? []) as Array<{ Get: { TableName: string; Key: Item } }>).map((t) => ({
        action: 'dynamodb:GetItem',
        resource: arn(t.Get.TableName),
        context: keys(leadingKey(t.Get.Key)),
      }));
    default:
      return [{ action: `dynamodb:${op}`, resource: arn(input.TableName) }];
  }
}

/** The IAM requests of one S3 call: object actions on `arn:aws:s3:::<bucket>/<key>`, listing on the bucket with `s3:prefix`. */
export function s3Requests(command: string, input: Record<string, unknown>): IamRequest[] {
  const op = command.replace(/Command$/, '');
  const bucket = `arn:aws:s3:::${String(input.Bucket)}`;
  const object = (key: unknown) => `${bucket}/${String(key)}`;
  switch (op) {
    case 'GetObject':
    case 'HeadObject':
      return [{ action: 's3:GetObject', resource: object(input.Key) }];
    case 'PutObject':
    case 'CreateMultipartUpload':
    case 'UploadPart':
    case 'CompleteMultipartUpload':
    case 'AbortMultipartUpload':
      return [{ action: op === 'AbortMultipartUpload' ? 's3:AbortMultipartUpload' : 's3:PutObject', resource: object(input.Key) }];
    case 'DeleteObject':
      return [{ action: 's3:DeleteObject', resource: object(input.Key) }];
    case 'DeleteObjects':
      // AWS checks s3:DeleteObject for every key of a multi-object delete.
      return ((input.Delete as { Objects?: Array<{ Key?: string }> } | undefined)?.Objects ?? []).map((o) => ({
        action: 's3:DeleteObject',
        resource: object(o.Key),
      }));
    case 'CopyObject':
      return [
        { action: 's3:PutObject', resource: object(input.Key) },
        { action: 's3:GetObject', resource: `arn:aws:s3:::${decodeURIComponent(String(input.CopySource)).replace(/^\//, '')}` },
      ];
    case 'ListObjectsV2':
    case 'ListObjects':
      return [{ action: 's3:ListBucket', resource: bucket, context: input.Prefix === undefined ? undefined : { 's3:prefix': [String(input.Prefix)] } }];
    default:
      return [{ action: `s3:${op}`, resource: bucket }];
  }
}

/** The IAM request of one `@connections` call (PostToConnection, GetConnection, DeleteConnection). */
export function connectionsRequest(method: string, path: string, names: LocalNames): IamRequest | null {
  const m = path.match(/\/@connections\/([^/?]+)/);
  if (!m) return null;
  return {
    action: 'execute-api:ManageConnections',
    resource: `arn:aws:execute-api:${names.region}:${names.account}:${names.liveApiId}/${names.liveStage}/${method.toUpperCase()}/@connections/${decodeURIComponent(m[1])}`,
  };
}

/** The SQS queue ARN of a queue name (FIFO queues end in `.fifo` in AWS). */
export const queueArn = (names: LocalNames, queue: string, fifo: boolean): string =>
  `arn:aws:sqs:${names.region}:${names.account}:${queue}${fifo && !queue.endsWith('.fifo') ? '.fifo' : ''}`;
