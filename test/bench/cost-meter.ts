/**
 * What the cost model bills, metered on the local runtime per Lambda function: invocations and wall ms (every
 * handler the runtime invokes), DynamoDB read and write units (`ReturnConsumedCapacity`: DynamoDB Local
 * applies AWS's rules), S3 requests by price class and SQS messages. Calls made outside any invocation (the
 * bench itself, the runtime's TTL sweeper) are not counted: AWS bills them to no function.
 */

import { LocalQueues } from '../../lib/local/background/queues';
import { currentFunction, LambdaHost } from '../../lib/local/functions/lambda';
import { services } from '../support/operator';

export interface Usage {
  calls: number;
  ms: number;
  rcu: number;
  wcu: number;
  /** PUT, COPY, POST, LIST (S3's dearer class). */
  s3Put: number;
  /** GET, HEAD. */
  s3Get: number;
  /**
   * Bytes of the lines the function wrote (each JSON line, one CloudWatch Logs event):
   * its Powertools log lines, and apart from them its EMF metric lines, which CloudWatch Logs ingests too.
   */
  logBytes: number;
  emfBytes: number;
  /** Lines of each kind (CloudWatch Logs adds 26 bytes to each). */
  logLines: number;
  emfLines: number;
}

/** The runtime's tap on every line its functions write (lib/local/runtime.ts `tapLog`). */
export interface LogTap {
  tapLog(listener: (line: string) => void): () => void;
}

const READS = new Set(['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand', 'ScanCommand', 'TransactGetItemsCommand']);
const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand', 'TransactWriteItemsCommand']);
const S3_PUT = new Set([
  'PutObjectCommand',
  'CopyObjectCommand',
  'ListObjectsV2Command',
  'ListObjectsCommand',
  'CreateMultipartUploadCommand',
  'UploadPartCommand',
  'CompleteMultipartUploadCommand',
]);
const S3_GET = new Set(['GetObjectCommand', 'HeadObjectCommand']);

const empty = (): Usage => ({ calls: 0, ms: 0, rcu: 0, wcu: 0, s3Put: 0, s3Get: 0, logBytes: 0, emfBytes: 0, logLines: 0, emfLines: 0 });

/** An EMF line: CloudWatch's metric blob (`_aws` metadata), ingested as a log line and read for metrics. */
function isEmf(line: string): boolean {
  try {
    const record: unknown = JSON.parse(line);
    return typeof record === 'object' && record !== null && '_aws' in record;
  } catch {
    return false;
  }
}

export class CostMeter {
  private usage = new Map<string, Usage>();
  /** Messages sent to SQS queues, by queue name. */
  private sent = new Map<string, number>();
  private readonly restore: Array<() => void> = [];

  /**
   * Installs the meter on the configured services (after `startRuntime`) and on every Lambda invocation; with
   * the runtime's `log` tap, also the bytes of the lines each function writes.
   */
  install(log?: LogTap): this {
    const at = (fn: string | undefined): Usage | null => {
      if (!fn) return null;
      const u = this.usage.get(fn) ?? empty();
      this.usage.set(fn, u);
      return u;
    };
    const svc = services();
    svc.ddb.middlewareStack.add(
      (next, context) => async (args) => {
        const name = context.commandName ?? '';
        const u = at(currentFunction());
        const counted = u !== null && (READS.has(name) || WRITES.has(name));
        if (counted) (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'TOTAL';
        const out = await next(args);
        const cc = (out.output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
        if (counted && u && cc) {
          for (const c of Array.isArray(cc) ? cc : [cc]) {
            const units = (c as { CapacityUnits?: number }).CapacityUnits ?? 0;
            if (READS.has(name)) u.rcu += units;
            else u.wcu += units;
          }
        }
        return out;
      },
      { step: 'initialize', name: 'costMeterTable' },
    );
    svc.s3.middlewareStack.add(
      (next, context) => async (args) => {
        const u = at(currentFunction());
        const name = context.commandName ?? '';
        if (u && S3_PUT.has(name)) u.s3Put++;
        if (u && S3_GET.has(name)) u.s3Get++;
        return next(args);
      },
      { step: 'initialize', name: 'costMeterBucket' },
    );
    if (log) {
      const stop = log.tapLog((line) => {
        const u = at(currentFunction());
        if (!u) return;
        // Each line is one log event of its UTF-8 bytes (the model adds CloudWatch's 26 bytes an event).
        const bytes = Buffer.byteLength(line, 'utf8');
        if (isEmf(line)) {
          u.emfBytes += bytes;
          u.emfLines++;
        } else {
          u.logBytes += bytes;
          u.logLines++;
        }
      });
      this.restore.push(stop);
    }
    const invoke = LambdaHost.prototype.invoke;
    LambdaHost.prototype.invoke = async function metered<T>(this: LambdaHost, name: Parameters<typeof invoke>[0], event: unknown): Promise<T> {
      const t0 = performance.now();
      try {
        return (await invoke.call(this, name, event)) as T;
      } finally {
        const u = at(name) as Usage;
        u.calls++;
        u.ms += performance.now() - t0;
      }
    };
    this.restore.push(() => {
      LambdaHost.prototype.invoke = invoke;
    });
    const send = LocalQueues.prototype.send;
    const meter = this;
    LocalQueues.prototype.send = async function counted(this: LocalQueues, queue: string, messages: Parameters<typeof send>[1]): Promise<void> {
      meter.sent.set(queue, (meter.sent.get(queue) ?? 0) + messages.length);
      return send.call(this, queue, messages);
    };
    this.restore.push(() => {
      LocalQueues.prototype.send = send;
    });
    return this;
  }

  uninstall(): void {
    for (const r of this.restore.splice(0)) r();
  }

  /** Usage since the last take, per function, and SQS messages sent; the counters start again. */
  take(): { byFunction: Map<string, Usage>; sqsMessages: Map<string, number> } {
    const out = { byFunction: this.usage, sqsMessages: this.sent };
    this.usage = new Map();
    this.sent = new Map();
    return out;
  }
}

export interface EventFigure {
  name: string;
  value: number;
  unit: string;
}

/**
 * Figures of one event kind from usage measured over `count` events: `cost.E.rcu|wcu|s3_put|s3_get` and
 * `cost.E.ms.<fn>`, `cost.E.calls.<fn>`; `weight` scales a function's share (a job measured once that runs
 * less often than the event).
 */
export function eventFigures(event: string, byFunction: Map<string, Usage>, count: number, weight: (fn: string) => number = () => 1): EventFigure[] {
  const total = empty();
  const out: EventFigure[] = [];
  const r = (n: number) => Math.round(n * 1000) / 1000;
  for (const [fn, u] of [...byFunction].sort(([a], [b]) => a.localeCompare(b))) {
    const w = weight(fn) / count;
    total.rcu += u.rcu * w;
    total.wcu += u.wcu * w;
    total.s3Put += u.s3Put * w;
    total.s3Get += u.s3Get * w;
    total.logBytes += u.logBytes * w;
    total.emfBytes += u.emfBytes * w;
    total.logLines += u.logLines * w;
    total.emfLines += u.emfLines * w;
    out.push({ name: `cost.${event}.ms.${fn}`, value: r(u.ms * w), unit: 'ms' }, { name: `cost.${event}.calls.${fn}`, value: r(u.calls * w), unit: 'calls' });
  }
  return [
    { name: `cost.${event}.rcu`, value: r(total.rcu), unit: 'RCU' },
    { name: `cost.${event}.wcu`, value: r(total.wcu), unit: 'WCU' },
    { name: `cost.${event}.s3_put`, value: r(total.s3Put), unit: 'req' },
    { name: `cost.${event}.s3_get`, value: r(total.s3Get), unit: 'req' },
    { name: `cost.${event}.log_bytes`, value: r(total.logBytes), unit: 'B' },
    { name: `cost.${event}.emf_bytes`, value: r(total.emfBytes), unit: 'B' },
    { name: `cost.${event}.log_lines`, value: r(total.logLines), unit: 'lines' },
    { name: `cost.${event}.emf_lines`, value: r(total.emfLines), unit: 'lines' },
    ...out,
  ];
}
