/**
 * The real handlers (lambdas/<fn>/handler.ts) on the in-memory fakes, with no engine: each root built with
 * `createHandler(servicesFor(fn, memoryServices(clock)))`, HTTP and queue events made as API Gateway and SQS
 * make them, and the local identity provider (lib/local/identity/identity.ts) on a bare HTTP server for sessions and
 * API keys. Java-free, for behaviour tests under test/unit.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { LocalIdentity } from '../../lib/local/identity/identity';
import { ManualClock } from '../../shared/clock';
import { ORIGIN_VERIFY_HEADER } from '../../shared/http/edge';
import { servicesFor } from '../../shared/platform/granted';
import type { ServicesOf } from '../../shared/services';
import { type MemoryServices, memoryConfig, memoryServices } from '../../shared/store/memory/services';
import { type FunctionName, functionSpec, HTTP_ROUTES, QUEUES, type RouteKey } from '../../shared/topology';

type Handler = (event: unknown, context: Context) => Promise<unknown>;

export interface CallOptions {
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
  query?: Record<string, string>;
  /** The caller's address (each test's anonymous caller its own, so rate limits never interfere). */
  ip?: string;
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: any;
}

const context = (fn: FunctionName): Context => ({
  callbackWaitsForEmptyEventLoop: false,
  functionName: fn,
  functionVersion: '$LATEST',
  invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${fn}`,
  memoryLimitInMB: String(functionSpec(fn).memoryMb),
  awsRequestId: randomUUID(),
  logGroupName: `/aws/lambda/${fn}`,
  logStreamName: 'memory',
  getRemainingTimeInMillis: () => functionSpec(fn).timeoutSeconds * 1000,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
});

/** The service on the fakes, the identity provider on a port of its own; `close()` stops the provider. */
export async function memoryService(start: number) {
  const clock = new ManualClock(start);
  let base = '';
  let idp!: LocalIdentity;
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (!(await idp.handle(req, res, new URL(req.url ?? '/', base), Buffer.concat(chunks)))) res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  const secretKey = `sk_memory_${randomBytes(8).toString('hex')}`;
  idp = new LocalIdentity({ dataDir: ':memory:', issuer: `${base}/_local/idp`, clock, secretKey });
  await idp.init();
  const originVerify = randomBytes(24).toString('hex');
  const config = memoryConfig({
    PUBLIC_BASE: `${base}/`,
    CDN_BASE: `${base}/files/`,
    ORIGINS: base,
    IDP_ISSUER: `${base}/_local/idp`,
    IDP_JWKS_URL: `${base}/_local/idp/.well-known/jwks.json`,
    IDP_API_URL: `${base}/_local/idp`,
    IDP_SECRET_KEY: secretKey,
    ORIGIN_VERIFY: JSON.stringify({ current: originVerify }),
    UPLOADER_KEY: randomBytes(16).toString('hex'),
    PUSH_LOOPBACK: 'allow',
  });
  const svc: MemoryServices = memoryServices(clock, config, () => undefined);
  const roots = new Map<FunctionName, Promise<Handler>>();
  /** Function `fn`'s handler, its root given exactly the ports its manifest access grants. */
  const handler = (fn: FunctionName): Promise<Handler> => {
    let h = roots.get(fn);
    if (!h) {
      h = import(`../../lambdas/${fn}/handler.ts`).then((m: { createHandler: (s: ServicesOf<FunctionName>) => Handler }) =>
        m.createHandler(servicesFor(fn, svc) as ServicesOf<FunctionName>),
      );
      roots.set(fn, h);
    }
    return h;
  };
  const invoke = async <T>(fn: FunctionName, event: unknown): Promise<T> => (await handler(fn))(event, context(fn)) as Promise<T>;

  const control = async (path: string, body: unknown): Promise<Record<string, unknown>> => {
    const res = await fetch(`${base}${path}`, { method: 'POST', body: JSON.stringify(body) });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, unknown>;
  };

  /** An HTTP API request to the function the manifest routes `routeKey` to, as API Gateway makes it behind the edge. */
  const call = async (routeKey: RouteKey, params: Record<string, string> = {}, opts: CallOptions = {}): Promise<Answer> => {
    const route = HTTP_ROUTES.find((r) => `${r.method} ${r.path}` === routeKey)!;
    const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name]));
    const text = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const headers: Record<string, string> = {
      host: new URL(base).host,
      [ORIGIN_VERIFY_HEADER]: originVerify,
      ...(text === undefined ? {} : { 'content-type': 'application/json' }),
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      ...opts.headers,
    };
    const ip = opts.ip ?? '203.0.113.7';
    const now = Date.now();
    const event: APIGatewayProxyEventV2 = {
      version: '2.0',
      routeKey,
      rawPath: path,
      rawQueryString: new URLSearchParams(opts.query ?? {}).toString(),
      headers,
      queryStringParameters: opts.query && Object.keys(opts.query).length ? opts.query : undefined,
      pathParameters: Object.keys(params).length ? params : undefined,
      requestContext: {
        accountId: '000000000000',
        apiId: 'memory',
        domainName: headers.host,
        domainPrefix: 'memory',
        http: { method: route.method, path, protocol: 'HTTP/1.1', sourceIp: ip, userAgent: 'memory-test' },
        requestId: randomUUID(),
        routeKey,
        stage: '$default',
        time: new Date(now).toISOString(),
        timeEpoch: now,
      },
      body: text,
      isBase64Encoded: false,
    };
    const out = await invoke<APIGatewayProxyStructuredResultV2>(route.function, event);
    const raw = out.body === undefined ? '' : out.isBase64Encoded ? Buffer.from(out.body, 'base64').toString('utf8') : out.body;
    let body: unknown = raw;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {}
    return { status: out.statusCode ?? 200, headers: (out.headers ?? {}) as Record<string, string>, body };
  };

  /**
   * Delivers every visible message of the manifest's consumed queues to their consumers as SQS does (batches of
   * the queue's size, FIFO in group order), deleting what the consumer did not report failed; until none is left
   * (of the queues `only` names).
   */
  const drainQueues = async (only: (queue: string) => boolean = () => true): Promise<number> => {
    let delivered = 0;
    for (let round = 0; round < 20; round++) {
      let any = false;
      for (const q of QUEUES.filter((q) => only(q.name))) {
        const received = await svc.queues.receive(q.name, q.batchSize, q.visibilityTimeoutSeconds);
        if (received.length === 0) continue;
        any = true;
        delivered += received.length;
        const arn = svc.queues.arnOf(q.name);
        const records: SQSRecord[] = received.map((m) => ({
          messageId: m.receiptHandle,
          receiptHandle: m.receiptHandle,
          body: m.body,
          attributes: {
            ApproximateReceiveCount: String(m.receiveCount),
            SentTimestamp: String(clock.now()),
            SenderId: 'memory',
            ApproximateFirstReceiveTimestamp: String(clock.now()),
            ...(m.groupId ? { MessageGroupId: m.groupId, MessageDeduplicationId: m.dedupId ?? '', SequenceNumber: '0' } : {}),
          } as SQSRecord['attributes'],
          messageAttributes: Object.fromEntries(
            Object.entries(m.attributes).map(([k, v]) => [k, { stringValue: v, dataType: 'String', stringListValues: [], binaryListValues: [] }]),
          ) as SQSRecord['messageAttributes'],
          md5OfBody: createHash('md5').update(m.body).digest('hex'),
          eventSource: 'aws:sqs',
          eventSourceARN: arn,
          awsRegion: 'us-east-1',
        }));
        const out = await invoke<{ batchItemFailures?: Array<{ itemIdentifier: string }> } | undefined>(q.consumer, { Records: records } satisfies SQSEvent);
        const failed = new Set(out?.batchItemFailures?.map((f) => f.itemIdentifier) ?? []);
        await svc.queues.delete(
          q.name,
          received.map((m) => m.receiptHandle).filter((h) => !failed.has(h)),
        );
      }
      if (!any) return delivered;
    }
    throw new Error('the queues did not drain in 20 rounds');
  };

  return {
    base,
    clock,
    svc,
    idp,
    handler,
    invoke,
    call,
    drainQueues,
    /** A user of the provider with these public metadata (`plan`, `contributorUntil`, …). */
    user: async (input: Record<string, unknown> = {}) => (await control('/_local/users', input)) as { id: string; email: string },
    session: async (userId: string, expiresIn = 86_400) => (await control('/_local/sessions', { userId, expiresIn })).token as string,
    apiKey: async (userId: string) => (await control('/_local/api-keys', { userId })).key as string,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

export type MemoryService = Awaited<ReturnType<typeof memoryService>>;
