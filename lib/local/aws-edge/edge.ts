/**
 * The local AWS edge: one loopback HTTP endpoint every function's DynamoDB and S3 calls go through, the
 * in-process handlers' SDK clients and the `--bundles` sandboxes' alike, as every call goes through AWS's
 * front door. For each call it
 * - knows the caller: the SigV4 signature must be made with the secret the runtime issued to the function
 *   its access key id names (lib/local/aws-edge/sigv4-check.ts), as each function has its own role on AWS;
 * - records it for the run's IAM check (lib/local/iam/calls.ts);
 * - applies the `storage` and `table` fault switches (`POST /_local/faults`): the outage answer AWS gives;
 * - evaluates the function's synthesized policies (and the manifest's bucket grants) and refuses as AWS does
 *   (DynamoDB: 400 `AccessDeniedException`; S3: 403 `AccessDenied`);
 * - counts the call in `meter`;
 * - for S3, stamps writes and answers `LastModified` at the service clock (lib/local/aws-edge/write-times.ts);
 * then forwards it to DynamoDB Local or s3rver (re-signed with the engines' own keys).
 * The runtime's operator key (calls outside any invocation: the control API's publishing) skips the IAM check.
 */
import { createHash } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { HttpRequest } from '@smithy/core/protocols';
import { SignatureV4 } from '@smithy/signature-v4';
import { FUNCTIONS, type FunctionName } from '../../../shared/topology';
import { readBody } from '../gateways/http-events';
import { type CallRecorder, dynamodbRequests, type LocalNames, s3Requests } from '../iam/calls';
import type { EdgeAccess, Refusal } from './access';
import { ChecksumRefusal } from './checksums';
import { forwardS3, type S3Operation, s3Operation, sendS3Error } from './s3';
import { checkSignature, Sha256 } from './sigv4-check';
import { WriteTimes } from './write-times';

/** The access key id of calls made outside any invocation (the runtime's operator: every access, no IAM check). */
export const OPERATOR_KEY = 'local-operator';

/** S3's largest single PUT is 5 GB; the service's bodies stay far below this. */
const MAX_BODY = 256 * 1024 * 1024;
const DDB_JSON = 'application/x-amz-json-1.0';

export interface AwsEdgeOptions {
  host: string;
  /** The engines' endpoints. */
  dynamodb: string;
  s3: string;
  /** The secret issued to an access key id (a function's name or OPERATOR_KEY). */
  secretOf: (accessKeyId: string) => string | undefined;
  faults: { storage: 'up' | 'down'; table: 'up' | 'down' };
  access: EdgeAccess;
  /** What the ARNs of DynamoDB calls name (the runtime's table, region and account). */
  names: LocalNames;
  recorder: CallRecorder | null;
  /** The service clock (ms): S3's `LastModified` of what is written through this edge. */
  now: () => number;
  log: (level: 'warn' | 'error', message: string, data?: Record<string, unknown>) => void;
}

type Caller = FunctionName | typeof OPERATOR_KEY;
type Service = 'dynamodb' | 's3';

/** Calls counted per caller and action (`dynamodb:PutItem`, `s3:GetObject`), refused ones too. */
export type Meter = Map<string, Map<string, number>>;

const isFunction = (key: string): key is FunctionName => FUNCTIONS.some((f) => f.name === key);

export class AwsEdge {
  readonly url: string;
  readonly meter: Meter = new Map();
  private readonly times: WriteTimes;

  private constructor(
    private readonly server: Server,
    port: number,
    private readonly opts: AwsEdgeOptions,
  ) {
    this.url = `http://${opts.host}:${port}`;
    this.times = new WriteTimes(opts.s3, opts.now);
  }

  static async start(opts: AwsEdgeOptions): Promise<AwsEdge> {
    let edge: AwsEdge | null = null;
    const server = createServer((req, res) => {
      void edge?.onRequest(req, res).catch((err) => {
        opts.log('error', 'local AWS edge failed', { error: err instanceof Error ? err.stack : String(err) });
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end('local AWS edge failed');
        else res.destroy();
      });
    });
    server.keepAliveTimeout = 60_000;
    const port = await new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, opts.host, () => {
        const address = server.address();
        resolve(typeof address === 'object' && address ? address.port : 0);
      });
    });
    edge = new AwsEdge(server, port, opts);
    return edge;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private count(caller: string, action: string): void {
    const m = this.meter.get(caller) ?? new Map<string, number>();
    this.meter.set(caller, m);
    m.set(action, (m.get(action) ?? 0) + 1);
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const body = await readBody(req, MAX_BODY);
    const service: Service = String(req.headers['x-amz-target'] ?? '').startsWith('DynamoDB_') ? 'dynamodb' : 's3';
    const fail = service === 'dynamodb' ? ddbError(res) : (status: number, code: string, message: string) => sendS3Error(res, method, status, code, message);
    if (body === null)
      return fail(413, service === 'dynamodb' ? 'ValidationException' : 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size');
    // The host must be this edge's own (no page reached through a rebound name).
    if (req.headers.host !== new URL(this.url).host) return fail(403, service === 'dynamodb' ? 'AccessDeniedException' : 'AccessDenied', 'Access Denied');
    const check = await checkSignature(req, body, service, (key) => (isFunction(key) || key === OPERATOR_KEY ? this.opts.secretOf(key) : undefined));
    if (!check.ok) {
      if (service === 'dynamodb')
        return check.reason === 'mismatch'
          ? fail(400, 'InvalidSignatureException', 'The request signature we calculated does not match the signature you provided.')
          : check.reason === 'unsigned'
            ? fail(400, 'MissingAuthenticationTokenException', 'Request is missing Authentication Token')
            : fail(400, 'UnrecognizedClientException', 'The security token included in the request is invalid.');
      return check.reason === 'mismatch'
        ? fail(
            403,
            'SignatureDoesNotMatch',
            'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
          )
        : check.reason === 'unsigned'
          ? fail(403, 'AccessDenied', 'Access Denied')
          : fail(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
    }
    const declared = String(req.headers['x-amz-content-sha256'] ?? '');
    if (/^[0-9a-f]{64}$/.test(declared) && createHash('sha256').update(body).digest('hex') !== declared)
      return fail(400, 'XAmzContentSHA256Mismatch', "The provided 'x-amz-content-sha256' header does not match what was computed.");
    const caller = check.accessKeyId as Caller;
    if (service === 'dynamodb') return this.dynamodb(req, res, body, caller);
    return this.s3(req, res, body, caller);
  }

  /** Records, faults, IAM: what every call meets before an engine sees it; a refusal already answered returns false. */
  private admit(caller: Caller, requests: ReturnType<typeof s3Requests>, fault: boolean, refuse: (r: Refusal) => void, grant?: () => Refusal | null): boolean {
    for (const r of requests) this.count(caller, r.action);
    if (caller === OPERATOR_KEY) return true;
    this.opts.recorder?.recordAs(caller, requests);
    if (fault) return false;
    const refusal = this.opts.access.iam(caller, requests) ?? grant?.() ?? null;
    if (!refusal) return true;
    this.opts.log('error', `AccessDenied: ${refusal.message}`, { function: caller });
    refuse(refusal);
    return false;
  }

  private async dynamodb(req: IncomingMessage, res: ServerResponse, body: Buffer, caller: Caller): Promise<void> {
    const op = String(req.headers['x-amz-target']).split('.')[1] ?? '';
    let input: Record<string, unknown>;
    try {
      input = JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>;
    } catch {
      return ddbError(res)(400, 'SerializationException', 'Start of structure or map found where not expected');
    }
    const down = this.opts.faults.table === 'down';
    // The `table` fault: DynamoDB's answer to an outage (a 500 server fault), for every function's call.
    const faulted = () => ddbError(res)(500, 'InternalServerError', 'table fault: the table is unreachable (POST /_local/faults {"table": "up"})');
    const requests = dynamodbRequests(op, input, this.opts.names);
    if (!this.admit(caller, requests, down, (r) => ddbError(res)(400, 'AccessDeniedException', r.message, 'com.amazon.coral.service#'))) {
      if (down) faulted();
      return;
    }
    if (down) return faulted();
    await forwardSigned(this.opts.dynamodb, req, body, res);
  }

  private async s3(req: IncomingMessage, res: ServerResponse, body: Buffer, caller: Caller): Promise<void> {
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'http://local');
    const op: S3Operation = s3Operation(method, url, req.headers, body);
    const down = this.opts.faults.storage === 'down';
    const faulted = () =>
      sendS3Error(res, method, 503, 'ServiceUnavailable', 'storage fault: the bucket is unreachable (POST /_local/faults {"storage": "up"})');
    const refuse = (r: Refusal) => sendS3Error(res, method, 403, 'AccessDenied', r.message);
    const grant = isFunction(caller) ? () => this.opts.access.bucketGrant(caller, op.command, op.input) : undefined;
    if (!this.admit(caller, s3Requests(op.command, op.input), down, refuse, grant)) {
      if (down) faulted();
      return;
    }
    if (down) return faulted();
    try {
      await forwardS3(this.opts.s3, method, url, req.headers, body, res, op, this.times);
    } catch (err) {
      if (!(err instanceof ChecksumRefusal)) throw err;
      sendS3Error(res, method, 400, err.code, err.message);
    }
  }
}

/** DynamoDB's JSON error (the SDK names the error after `__type`'s last part). */
const ddbError =
  (res: ServerResponse) =>
  (status: number, code: string, message: string, namespace = 'com.amazonaws.dynamodb.v20120810#'): void => {
    const data = Buffer.from(JSON.stringify({ __type: `${namespace}${code}`, message }));
    res.writeHead(status, { 'content-type': DDB_JSON, 'content-length': String(data.length) });
    res.end(data);
  };

/** The engines' own key: DynamoDB Local keeps one database per access key and region, so every caller shares `local`'s. */
const ENGINE_SIGNER = new SignatureV4({
  service: 'dynamodb',
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  sha256: Sha256,
});

/** Forwards a DynamoDB request to DynamoDB Local, signed with the engines' key, and pipes the answer back. */
async function forwardSigned(target: string, req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> {
  const t = new URL(target);
  const request = new HttpRequest({
    method: 'POST',
    protocol: t.protocol,
    hostname: t.hostname,
    port: Number(t.port),
    path: '/',
    headers: {
      host: t.host,
      'content-type': String(req.headers['content-type'] ?? DDB_JSON),
      'x-amz-target': String(req.headers['x-amz-target']),
      'content-length': String(body.length),
    },
    body,
  });
  const signed = (await ENGINE_SIGNER.sign(request)) as HttpRequest;
  await new Promise<void>((resolve, reject) => {
    const upstream = httpRequest(target, { method: 'POST', headers: signed.headers }, (answer) => {
      const back: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && name !== 'connection' && name !== 'keep-alive') back[name] = value;
      res.writeHead(answer.statusCode ?? 502, back);
      answer.pipe(res);
      answer.on('end', resolve);
      answer.on('error', reject);
    });
    upstream.on('error', reject);
    upstream.end(body);
  });
}
