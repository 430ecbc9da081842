/**
 * The whole service on one machine: real storage engines, the same handlers as AWS, wired from the
 * manifest (shared/topology.ts). One HTTP server plays API Gateway (HTTP and WebSocket APIs, `@connections`),
 * CloudFront (file host at `/cdn/`, viewer address) and hosts the control API (`/_local/...`).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import type { Duplex } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type Clock, ManualClock, systemClock } from '../../shared/clock';
import { parseConfig } from '../../shared/config';
import { jsonLog, type Log } from '../../shared/log';
import type { ClientName, Platform } from '../../shared/platform/platform';
import { keepSecretsOutOfLogs } from '../../shared/platform/secret-env';
import type { QueuePort } from '../../shared/ports/queues';
import type { SecretsPort } from '../../shared/ports/secrets';
import { connectionsClient } from '../../shared/store/clients/connections';
import { documentClient } from '../../shared/store/clients/dynamodb';
import { s3Client } from '../../shared/store/clients/s3';
import { isDependencyFailure } from '../../shared/store/dependency-failure';
import { consoleSink, type LogSink, setLogSink } from '../../shared/telemetry/sink';
import {
  FAILED_RUNS_RETENTION_DAYS,
  FUNCTIONS,
  type FunctionName,
  type FunctionSpec,
  failedRunsQueueName,
  functionSpec,
  MERGE_REJECTED_QUEUE,
  QUEUES,
  SCHEDULES,
  STREAM_CONSUMER,
  WS_ROUTES,
} from '../../shared/topology';
import { type Deployment, functionEnvironment } from '../environment';
import { readSiteBuild } from '../site-build';
import type { Meter } from './aws-edge/edge';
import { type SqsEndpoint, startSqsEndpoint } from './aws-edge/sqs-endpoint';
import { type LocalAws, startLocalAws } from './aws-edge/start';
import { LocalQueues } from './background/queues';
import { ReplayClock } from './background/replay-clock';
import { failedRunRecord, LocalScheduler } from './background/scheduler';
import { StreamPoller } from './background/stream-poller';
import { handleControl } from './control/control';
import { MergeCrash, type MergeFaultState } from './control/merge-crash';
import { type Engine, startDynamoDbLocal, startS3rver } from './engines/engines';
import { ensureBucket, ensureTable, sweepExpired } from './engines/storage';
import { StartAborted } from './engines/wait';
import { type BundleBuildOptions, type Bundles, buildBundles } from './functions/bundles';
import { localDeployment, localSecrets } from './functions/deployment';
import { currentFunction, LambdaHost } from './functions/lambda';
import { type OperatorServices, operatorServices } from './functions/operator';
import { sandboxEnvironments } from './functions/sandbox-environment';
import { Sandboxes } from './functions/sandboxes';
import { instrumentClients } from './functions/service-clients';
import { Edge } from './gateways/edge';
import { FileHost } from './gateways/file-host';
import { HttpApi } from './gateways/http-api';
import { sendJson } from './gateways/http-events';
import { LiveGateway } from './gateways/live-gateway';
import { SiteHost } from './gateways/site-host';
import { CallRecorder, LOCAL_ACCOUNT, LOCAL_REGION, type LocalNames } from './iam/calls';
import { enforceQueueGrants } from './iam/grants';
import { invokePermissions } from './iam/invoke-permissions';
import { recordQueueCalls } from './iam/record';
import type { TemplateJson } from './iam/resolve';
import { LocalIdentity } from './identity/identity';
import { type DataLock, lockDataDir } from './process/data-lock';
import { type LogMode, printedLine } from './process/log-lines';

export interface RuntimeOptions {
  port?: number;
  host?: string;
  /** Where data lives; `:memory:` keeps nothing. */
  dataDir: string;
  /** `replay` (the demo): starts at `clockStart` in the past, moved by its driver, then follows the system clock. */
  clock: 'manual' | 'system' | 'replay';
  clockStart?: number;
  /** Use already running engines (tests share one DynamoDB Local and one s3rver per run). */
  dynamodbEndpoint?: string;
  s3Endpoint?: string;
  /** Suffix of the table and bucket names, so several runtimes can share engines. */
  name?: string;
  /** Runs as a preview stage does: every file under this bucket prefix (ending in `/`), served from `/cdn/<prefix>`. */
  filesPrefix?: string;
  /**
   * Also listen (on another loopback port, `directBase`) as the APIs' own execute-api host does: requests
   * there skip the edge, so they carry no origin-verify header and their headers arrive as sent (tests).
   */
  direct?: boolean;
  /**
   * What is printed of the service's lines: a LogMode (`npm start`'s LOG, lib/local/process/log-lines.ts); `true`
   * (the default) every JSON line, `false` only the error lines, as JSON.
   */
  log?: boolean | LogMode;
  /**
   * Records every AWS call a handler makes (function, IAM action, resource ARN: lib/local/iam/) in `calls`,
   * and appends them to `file` when given (the test run checks them against the synthesized policies).
   */
  recordCalls?: { file?: string };
  /**
   * Runs every function from its deploy bundle (esbuild, synth's options) in its own worker thread, with its
   * own environment, instead of importing its sources into this process (docs/local-runtime.md "Running the deployed
   * bundles"). `alsoExternal` (tests only): a bundling mistake, to show that it fails the start.
   */
  bundles?: boolean | BundleBuildOptions;
  /**
   * The dev template as JSON, already synthesized from these sources (a test run synthesizes it once in its
   * global setup: loading aws-cdk-lib and synthesizing cost each runtime ~3 s). Default: synthesized here.
   */
  templateFile?: string;
  /** A daily quota of keys new to the catalogue below the deployed 10,000 (tests; shared/config.ts). */
  catalogueKeysPerDay?: number;
}

export interface Faults {
  identity: 'up' | 'down';
  storage: 'up' | 'down';
  /** The service's table calls fail as in a DynamoDB outage (the runtime's own stream poller and sweeper go on). */
  table: 'up' | 'down';
  /** `fail`: every scheduled seal run throws (until `none`), so its event lands in the seal's failed-runs queue. */
  seal: 'fail' | 'none';
}

// The SDK's notice about Node 22 is about future releases; the pinned clients support Node 20.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const STAGE = 'local';
/** The WebSocket API's id in local events (lib/local/gateways/live-gateway.ts) and in recorded `@connections` ARNs. */
const LIVE_API_ID = 'local';
const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost'];
/** Requests up to this head size reach the gateway, which refuses those past API Gateway's 10240 bytes as AWS does. */
const MAX_LOCAL_HEAD = 4 * 1024 * 1024;

export class Runtime {
  base = '';
  /** The APIs reached without the edge (only with the `direct` option). */
  directBase = '';
  readonly clock: Clock;
  readonly faults: Faults = { identity: 'up', storage: 'up', table: 'up', seal: 'none' };
  /** The `merge` fault: the next merge crashes after its k-th write (lib/local/control/merge-crash.ts). */
  readonly mergeCrash = new MergeCrash();
  readonly tableName: string;
  readonly bucketName: string;
  /** The private bucket of internal state (the file host never serves it), as each stage has in AWS. */
  readonly workBucketName: string;
  s3!: S3Client;
  queues!: LocalQueues;
  /** The functions' sandboxes in `--bundles` mode (which bundle served which function: `sandboxes.served`). */
  sandboxes: Sandboxes | null = null;
  private built: Bundles | null = null;
  private sqsEndpoint: SqsEndpoint | null = null;
  /** The local AWS edge, the functions' credentials and the engines' own clients (lib/local/aws-edge/). */
  private aws: LocalAws | null = null;
  /** The handlers' AWS calls as IAM sees them (only with the `recordCalls` option). */
  recorder: CallRecorder | null = null;
  identity!: LocalIdentity;
  private server!: Server;
  private direct: Server | null = null;
  /** The origin-verify value this runtime's edge adds (the secret's `current`). */
  private originVerify = '';
  private engines: Engine[] = [];
  /** Engines still starting: a stop during start-up waits for them (they stop themselves on abort). */
  private starting: Promise<unknown>[] = [];
  private readonly aborter = new AbortController();
  /** Requests before start-up finished are answered 503: the handlers are not wired yet. */
  private ready = false;
  private closing: Promise<void> | null = null;
  /** The data folder's lock (lib/local/process/data-lock.ts), held from start to the end of close. */
  private dataLock: DataLock | null = null;
  /** Each function's local platform: its own configuration over the engines' shared, instrumented clients. */
  private readonly platforms = new Map<FunctionName, Platform<ClientName>>();
  private lambdas = new LambdaHost(
    ROOT,
    (name) => this.platform(name),
    (name, run) => this.mergeCrash.run(name, run),
  );
  /**
   * Every port, as the operator's calls outside any invocation use them (the control API's publishing) and
   * as tests read and write the service's state; every access (lib/local/functions/operator.ts).
   */
  operator!: OperatorServices;
  /** Tests shorten timeouts and slow functions down here (lib/local/functions/lambda.ts) instead of waiting 29 s. */
  readonly lambdaKnobs = this.lambdas.knobs;
  /** API Gateway's HTTP API in front of the functions (lib/local/gateways/http-api.ts). */
  private readonly httpApi = new HttpApi(
    (fn, event) => this.lambdas.invoke(fn, event),
    (level, msg, data) => this.log(level, msg, data),
  );
  private live!: LiveGateway;
  private scheduler!: LocalScheduler;
  private poller!: StreamPoller;
  private doc!: DynamoDBDocumentClient;
  private fileHost!: FileHost;
  private background: NodeJS.Timeout[] = [];
  private settling: Promise<void> | null = null;
  /** Set by `pauseStreamPoll` (benchmarks only): the background poll skips its turns. */
  private streamPollPaused = false;
  /** `Host` values of the control API: the printed loopback address and `localhost`, with the port. */
  private controlHosts: string[] = [];
  /** The listener's routing (lib/local/gateways/edge.ts), once everything it routes to is wired. */
  private edge: Edge | null = null;

  constructor(private readonly opts: RuntimeOptions) {
    const start = opts.clockStart ?? Date.now();
    this.clock = opts.clock === 'manual' ? new ManualClock(start) : opts.clock === 'replay' ? new ReplayClock(start) : systemClock;
    const suffix = opts.name ?? 'main';
    this.tableName = `market-data-${suffix}`;
    this.bucketName = `market-files-${suffix}`.toLowerCase();
    this.workBucketName = `market-work-${suffix}`.toLowerCase();
  }

  /** The local SQS endpoint the sandboxes call (`--bundles` only; '' otherwise). */
  get sqsUrl(): string {
    return this.sqsEndpoint?.url ?? '';
  }

  /** The local AWS edge every function's DynamoDB and S3 calls go to ('' before start). */
  get awsUrl(): string {
    return this.aws?.edge.url ?? '';
  }

  /** The calls the local AWS edge saw, by caller and IAM action (refused ones too). */
  get awsMeter(): Meter {
    return this.aws?.edge.meter ?? new Map();
  }

  /** API Gateway's integration timeout (30 s for HTTP APIs); tests may shorten it. */
  get integrationTimeoutMs(): number {
    return this.httpApi.timeoutMs;
  }

  set integrationTimeoutMs(ms: number) {
    this.httpApi.timeoutMs = ms;
  }

  /** Whether the functions run from their bundles (`--bundles`). */
  get bundleMode(): boolean {
    return this.opts.bundles !== undefined && this.opts.bundles !== false;
  }

  private get memory(): boolean {
    return this.opts.dataDir === ':memory:';
  }

  /** Every line goes to the sink (shared/telemetry/sink.ts); it prints errors only when logging is off. */
  private log: Log = (level, msg, data) => jsonLog(level, msg, data);

  /** Who hears every line this runtime's functions write, log and EMF lines alike (tests). */
  private readonly taps = new Set<(line: string) => void>();
  private sinkBefore: LogSink | null = null;

  /** Hears every line (structured log and EMF metrics) the service writes, printed or not; returns the way to stop. */
  tapLog(listener: (line: string) => void): () => void {
    this.taps.add(listener);
    return () => this.taps.delete(listener);
  }

  private readonly sink: LogSink = (line, level) => {
    for (const t of this.taps) t(line);
    const mode = this.opts.log ?? true;
    const printed = typeof mode === 'string' ? printedLine(mode, line, level) : mode || level === 'error' ? line : null;
    if (printed !== null) consoleSink(printed, level);
  };

  async start(): Promise<string> {
    this.sinkBefore = setLogSink(this.sink);
    const dataDir = this.memory ? null : resolve(this.opts.dataDir);
    if (dataDir) mkdirSync(dataDir, { recursive: true });
    // Before anything else: a second runtime on the folder is refused having started nothing.
    if (dataDir) this.dataLock = lockDataDir(dataDir);
    const host = this.opts.host ?? '127.0.0.1';
    if (!LOOPBACK_HOSTS.includes(host)) throw new Error(`the local runtime listens on loopback only (127.0.0.1 or localhost), not ${host}`);
    // The port first: a port in use fails the start before any engine is spawned.
    // Node's own 16 KB header limit would answer 431 with no body; the gateway applies API Gateway's quota itself.
    this.server = createServer({ maxHeaderSize: MAX_LOCAL_HEAD }, (req, res) => this.onRequest(req, res));
    this.server.on('upgrade', (req, socket, head) => this.onUpgrade(req, socket, head));
    const port = await listen(this.server, this.opts.port ?? 8787, host);
    this.base = `http://${host}:${port}`;
    this.controlHosts = LOOPBACK_HOSTS.map((h) => `${h}:${port}`);
    if (this.opts.direct) {
      const direct = createServer({ maxHeaderSize: MAX_LOCAL_HEAD }, (req, res) => this.onRequest(req, res, false));
      direct.on('upgrade', (req, socket, head) => this.onUpgrade(req, socket, head, false));
      this.direct = direct;
      this.directBase = `http://${host}:${await listen(direct, 0, host)}`;
    }
    // The bundles build while the engines start.
    const building = this.bundleMode ? buildBundles(ROOT, FUNCTIONS, typeof this.opts.bundles === 'object' ? this.opts.bundles : {}) : null;
    if (building) {
      const kept = building.then((b) => {
        this.built = b;
      });
      this.starting.push(kept.catch(() => undefined));
    }
    // Both engines in parallel: start-up stays well under 10 s.
    const signal = this.aborter.signal;
    const engines = [
      this.opts.dynamodbEndpoint ?? this.keep(startDynamoDbLocal(dataDir ? join(dataDir, 'dynamodb') : null, signal)),
      this.opts.s3Endpoint ?? this.keep(startS3rver(dataDir ? join(dataDir, 's3') : null, signal)),
    ];
    // The functions' resource policies, from the synthesized template, while the engines start.
    const file = this.opts.templateFile;
    const template = file ? Promise.resolve(JSON.parse(readFileSync(file, 'utf8')) as TemplateJson) : import('./iam/template').then((t) => t.localTemplate());
    const permitting = template.then((t) => {
      const scope = { region: LOCAL_REGION, account: LOCAL_ACCOUNT };
      this.httpApi.permissionScope = scope;
      this.httpApi.permissions = invokePermissions(t, scope);
    });
    permitting.catch(() => undefined);
    const [ddbEndpoint, s3Endpoint] = await Promise.all(engines);
    await permitting;
    const names = this.localNames();
    if (this.opts.recordCalls) this.recorder = new CallRecorder(names, currentFunction, this.opts.recordCalls.file);
    // Every function's DynamoDB and S3 call goes through the local AWS edge (lib/local/aws-edge/), in both modes.
    const aws = await startLocalAws({
      host: this.opts.host ?? '127.0.0.1',
      engines: { dynamodb: ddbEndpoint, s3: s3Endpoint },
      template: await template,
      names,
      faults: this.faults,
      recorder: this.recorder,
      now: () => this.clock.now(),
      log: (level, msg, data) => this.log(level, msg, data),
    });
    this.aws = aws;
    const secrets = localSecrets(dataDir);
    this.originVerify = secrets.originVerify;
    // Each function's environment comes from the builder the stack uses (lib/environment.ts), with the
    // secrets' values where AWS has their ARNs, and the local endpoints.
    const deployment = localDeployment(
      {
        base: this.base,
        stage: STAGE,
        tableName: this.tableName,
        bucketName: this.bucketName,
        workBucketName: this.workBucketName,
        filesPrefix: this.opts.filesPrefix ?? '',
      },
      secrets,
    );
    const site = readSiteBuild();
    if (!site) throw new Error('the website is not built: run npm run build (npm start and npm test build it when missing)');
    deployment.siteEntry = site.entry;
    const localOnly = {
      DYNAMODB_ENDPOINT: aws.edge.url,
      S3_ENDPOINT: aws.edge.url,
      PUSH_LOOPBACK: 'allow',
      AWS_REGION: LOCAL_REGION,
      ...(this.opts.catalogueKeysPerDay ? { CATALOGUE_KEYS_PER_DAY: String(this.opts.catalogueKeysPerDay) } : {}),
    };
    // Each configuration's secrets are kept out of the logs by the AWS platform's own registration
    // (shared/platform/secret-env.ts), so the local runtime redacts exactly what a function in AWS does.
    const configOf = (spec: FunctionSpec) => {
      const config = parseConfig({ ...functionEnvironment(spec, deployment), ...localOnly });
      keepSecretsOutOfLogs(config);
      return config;
    };
    // Calls outside any invocation (the control API's publishing) are the operator's: every access.
    const operator: FunctionSpec = {
      ...functionSpec('api'),
      access: {
        table: 'write',
        workBucket: 'write',
        queues: ['merge', 'push'],
        mergeFailures: 'redrive',
        secrets: ['identity', 'vapid', 'origin', 'uploader'],
      },
    };
    // One set of real SDK clients for the in-process functions, each call signed as the function making it.
    const config = { ...configOf(operator), credentials: aws.credentials.provider(currentFunction) };
    const clients = { ddb: documentClient(config), s3: s3Client(config), connections: connectionsClient(config) };
    this.s3 = clients.s3;
    const denied = (message: string) => this.log('error', message);
    instrumentClients(clients, { mergeCrash: this.mergeCrash });
    const [plainS3, rawDdb] = [aws.engineS3, aws.engineDdb];
    // The runtime's own table client (the sweeper), past the edge: untouched by the `table` fault.
    this.doc = DynamoDBDocumentClient.from(rawDdb);
    await Promise.all([ensureTable(rawDdb, this.tableName), ensureBucket(plainS3, this.bucketName), ensureBucket(plainS3, this.workBucketName)]);
    // Unconsumed: the rejected merges, and where failed scheduled runs land (issue 26 point 3).
    const failedRuns = SCHEDULES.map((s) => ({ name: failedRunsQueueName(s.name), fifo: false, retentionDays: FAILED_RUNS_RETENTION_DAYS }));
    this.queues = new LocalQueues(QUEUES, this.clock, (spec) => (event) => this.lambdas.invoke(spec.consumer, event), [MERGE_REJECTED_QUEUE, ...failedRuns]);
    // A crashed merge sends nothing either; its error path may still hide the failed messages (a throw, not a lost process).
    const queues = this.withRecorder(
      enforceQueueGrants(
        {
          send: async (queue, messages) => {
            this.mergeCrash.assertAlive();
            await this.queues.send(queue, messages);
          },
          changeVisibility: (arn, handles, seconds) => this.queues.changeVisibility(arn, handles, seconds),
          receive: (queue, max, visibility) => this.queues.receive(queue, max, visibility),
          delete: (queue, handles) => this.queues.delete(queue, handles),
        },
        currentFunction,
        denied,
      ),
    );
    // Locally every secret's value is set directly (no ARN), so nothing asks this port.
    const secretsPort: SecretsPort = { read: async (arn) => Promise.reject(new Error(`the local runtime has no secret ${arn}`)) };
    const platformOf = (spec: FunctionSpec): Platform<ClientName> => ({
      config: configOf(spec),
      clock: this.clock,
      log: this.log,
      ddb: () => clients.ddb,
      s3: () => clients.s3,
      connections: () => clients.connections,
      queues: () => queues,
      secrets: () => secretsPort,
    });
    if (building) await this.startSandboxes(await building, queues, { ...deployment }, localOnly);
    for (const spec of FUNCTIONS) this.platforms.set(spec.name, platformOf(spec));
    this.operator = operatorServices(platformOf(operator));
    this.identity = new LocalIdentity({
      dataDir: dataDir ?? ':memory:',
      issuer: `${this.base}/_local/idp`,
      clock: this.clock,
      secretKey: secrets.identitySecret,
    });
    await this.identity.init();
    this.fileHost = new FileHost(plainS3, this.bucketName, (origin) => this.allowedOrigin(origin));
    const ws = (key: string) => WS_ROUTES.find((r) => r.routeKey === key)!.function;
    this.live = new LiveGateway(
      STAGE,
      (fn, ev) => this.lambdas.invoke(fn, ev),
      { connect: ws('$connect'), message: ws('$default'), disconnect: ws('$disconnect') },
      (err) => this.log('error', 'live gateway', { error: String(err) }),
    );
    this.live.access = aws.manage;
    this.scheduler = new LocalScheduler(
      SCHEDULES,
      this.clock,
      (s) => (ev) =>
        s.name === 'seal' && this.faults.seal === 'fail'
          ? Promise.reject(new Error('seal failed: the local seal fault is on (POST /_local/faults {"seal": "none"} turns it off)'))
          : this.lambdas.invoke(s.function, ev),
      async (spec, err, event) => {
        // A run that met an outage is retried by the next period's run: a warning, not an error.
        if (isDependencyFailure(err))
          this.log('warn', `schedule ${spec.name} waits for a dependency`, { error: err instanceof Error ? err.message : String(err) });
        else this.log('error', `schedule ${spec.name} failed`, { error: err instanceof Error ? err.stack : String(err) });
        // As in AWS, every failed run lands in its failed-runs queue (the function's on-failure destination).
        await this.queues.send(failedRunsQueueName(spec.name), [{ body: JSON.stringify(failedRunRecord(spec, event, err, this.clock.now())) }]);
      },
    );
    this.poller = new StreamPoller(
      ddbEndpoint,
      rawDdb,
      this.tableName,
      (ev) => this.lambdas.invoke(STREAM_CONSUMER.function, ev),
      STREAM_CONSUMER.batchSize,
      STREAM_CONSUMER.filters,
      (err) => this.log('error', 'stream consumer failed', { error: err instanceof Error ? err.stack : String(err) }),
    );
    await Promise.all([this.poller.init(this.memory), this.lambdas.preload(FUNCTIONS.map((f) => f.name))]);
    if (this.aborter.signal.aborted) throw new StartAborted();
    this.edge = new Edge({
      base: this.base,
      stage: STAGE,
      controlHosts: this.controlHosts,
      originVerify: this.originVerify,
      identity: this.identity,
      control: (req, res, url, body) => handleControl(this, req, res, url, body),
      fileHost: this.fileHost,
      site: new SiteHost(site),
      live: this.live,
      httpApi: this.httpApi,
      log: (level, msg, data) => this.log(level, msg, data),
    });
    this.startBackground();
    this.ready = true;
    return this.base;
  }

  /**
   * `--bundles`: the local SQS endpoint the sandboxes call (on the queue port the in-process handlers get,
   * grants and recording included) and one sandbox per function (lib/local/functions/sandbox-environment.ts).
   */
  private async startSandboxes(bundles: Bundles, queues: QueuePort, deployment: Deployment, localOnly: Record<string, string>): Promise<void> {
    const secretOf = (fn: FunctionName) => this.aws!.credentials.secretOf(fn);
    this.sqsEndpoint = await startSqsEndpoint(queues, (name) => this.queues.names().includes(name), this.opts.host ?? '127.0.0.1', secretOf);
    const sqs = this.sqsEndpoint.url;
    const environments = sandboxEnvironments(bundles, deployment, localOnly, sqs, (fn) => secretOf(fn)!);
    this.sandboxes = new Sandboxes({ bundles, environment: (name) => environments.get(name)!, sqsEndpoint: sqs, clock: this.clock, log: this.sink });
    this.lambdas.sandboxes = this.sandboxes;
  }

  /**
   * The credentials function `fn` signs its AWS calls with (its sandbox's environment with `--bundles`; a test
   * plays the function with them); undefined before start.
   */
  sandboxCredentials(fn: FunctionName): { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | undefined {
    return this.aws?.credentials.of(fn);
  }

  /** What the local ARNs name (the recorded calls' and the edge's policy checks). */
  private localNames(): LocalNames {
    return {
      region: LOCAL_REGION,
      account: LOCAL_ACCOUNT,
      table: this.tableName,
      bucket: this.bucketName,
      work: this.workBucketName,
      filesPrefix: this.opts.filesPrefix ?? '',
      liveApiId: LIVE_API_ID,
      liveStage: STAGE,
    };
  }

  /** The local platform function `name`'s composition root is built on (its own configuration; tests read it). */
  platform(name: FunctionName): Platform<ClientName> {
    const p = this.platforms.get(name);
    if (!p) throw new Error(`${name}: the runtime has not started`);
    return p;
  }

  /** The queue port as the handlers see it: recorded first when calls are recorded, so a refused call counts too. */
  private withRecorder(queues: QueuePort): QueuePort {
    return this.recorder ? recordQueueCalls(queues, this.recorder) : queues;
  }

  /** An engine being started: kept for `close()` whether start-up goes on or not. */
  private keep(starting: Promise<Engine>): Promise<string> {
    const endpoint = starting.then((e) => {
      this.engines.push(e);
      return e.endpoint;
    });
    this.starting.push(endpoint.catch(() => undefined));
    return endpoint;
  }

  /** The dev deployment's origins: its own, and any `http://localhost[:port]` / `http://127.0.0.1[:port]`. */
  allowedOrigin(origin: string): boolean {
    return origin === this.base || /^http:\/\/(localhost|127\.0\.0\.1)(:\d+)?$/.test(origin);
  }

  private startBackground(): void {
    // The stream is always polled (the live `hello` rides on it), four times a second as Lambda's event source
    // mapping polls a shard: every poll costs DynamoDB Local a DescribeStream and a GetRecords per shard
    // (~8 ms of its CPU; at the 50 ms this used, an idle runtime kept a sixth of a core busy). Queues deliver
    // as soon as a message is due (SQS long polling); schedules run by themselves only on the system clock.
    this.background.push(
      setInterval(() => {
        if (!this.poller.busy && !this.settling && !this.streamPollPaused) this.poller.pollOnce().catch(() => undefined);
      }, STREAM_POLL_MS),
      setInterval(() => this.queues.poke(), 50),
    );
    if (!(this.clock instanceof ManualClock)) {
      // A replaying clock (the demo's back-fill) runs schedules only when its driver ticks.
      const driven = () => this.clock instanceof ReplayClock && this.clock.replaying;
      this.background.push(setInterval(() => driven() || void this.scheduler.runDue(), 1000));
      this.background.push(setInterval(() => driven() || void sweepExpired(this.doc, this.tableName, this.clock.now()).catch(() => undefined), 60_000));
    }
    for (const t of this.background) t.unref();
  }

  clockMoved(): void {
    this.sandboxes?.writeClock();
    this.queues.poke();
  }

  /** Closes every open live socket with `code`, as API Gateway does at its idle or 2-hour limit (`/_local/live/drop`); answers how many. */
  dropLiveConnections(code: number): number {
    return this.live.drop(code);
  }

  /** The fault state `/_local/faults` answers. */
  faultState(): Faults & MergeFaultState {
    return { ...this.faults, ...this.mergeCrash.state };
  }

  faultsChanged(): void {
    this.identity.setDown(this.faults.identity === 'down');
  }

  /** Waits until queues, the stream and sockets are idle, then runs due schedules, until nothing is left. */
  /**
   * Pauses the background stream poll until `resumeStreamPoll` (a poll in flight is waited for). For the
   * bench: on AWS the stream's consumers run in other Lambdas, so a timed merge must not share this process
   * with them. Records written meanwhile stay in the stream and are delivered by the next poll; `settle` and
   * `drain` still poll. Nothing of the deployed stack has such a pause.
   */
  async pauseStreamPoll(): Promise<void> {
    this.streamPollPaused = true;
    await this.poller.idle();
  }

  /** Resumes the background stream poll paused by `pauseStreamPoll`. */
  resumeStreamPoll(): void {
    this.streamPollPaused = false;
  }

  async settle(): Promise<void> {
    while (this.settling) await this.settling;
    this.settling = (async () => {
      for (;;) {
        await this.quiesce();
        const ran = await this.scheduler.runDue();
        if (ran.length === 0) {
          await this.quiesce();
          await sweepExpired(this.doc, this.tableName, this.clock.now());
          if (!this.queues.busy && !this.live.busy) return;
        }
      }
    })();
    try {
      await this.settling;
    } finally {
      this.settling = null;
    }
  }

  /** Waits until queues, the stream and sockets are idle, running no schedule (the demo replays a week, then schedules catch up). */
  drain(): Promise<void> {
    return this.quiesce();
  }

  private async quiesce(): Promise<void> {
    for (;;) {
      await this.queues.drain();
      await this.live.idle();
      const records = await this.poller.pollOnce();
      if (records === 0 && !this.queues.busy && !this.live.busy) return;
    }
  }

  /** Runs the named schedules now (each counted as run for its period), then drains. */
  async runSchedules(names: string[]): Promise<void> {
    await this.quiesce();
    for (const name of names) await this.scheduler.runNow(name);
    await this.quiesce();
  }

  /** Runs every schedule due at the service clock, then settles. */
  async tick(): Promise<string[]> {
    await this.quiesce();
    const ran = await this.scheduler.runDue();
    await this.settle();
    return ran;
  }

  /** Requests before start-up finished (or once stopping began) are answered 503: the handlers are not wired. */
  private onRequest(req: IncomingMessage, res: ServerResponse, edge = true): void {
    if (!this.ready || !this.edge) sendJson(res, 503, { error: 'starting', message: 'the local runtime is starting' });
    else void this.edge.onRequest(req, res, edge);
  }

  private onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, edge = true): void {
    if (!this.ready || !this.edge) socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    else this.edge.onUpgrade(req, socket, head, edge);
  }

  /**
   * Stops everything this runtime started; safe at any point of start-up (engines still starting are
   * called off and stop themselves) and more than once.
   */
  close(): Promise<void> {
    this.closing ??= this.closeNow();
    return this.closing;
  }

  private async closeNow(): Promise<void> {
    this.ready = false;
    this.aborter.abort();
    for (const t of this.background) clearInterval(t);
    try {
      await this.live?.closeAll();
      // No new requests; those in flight finish.
      await Promise.all(
        [this.server, this.direct].map((server) => {
          if (!server?.listening) return undefined;
          const closed = new Promise<void>((r) => server.close(() => r()));
          server.closeIdleConnections();
          return closed;
        }),
      );
      // Work in flight (a merge, a stream batch) would otherwise meet stopped engines.
      await this.queues?.settled();
      await this.poller?.idle();
      this.recorder?.flush();
    } finally {
      await Promise.all(this.starting);
      await this.sandboxes?.close();
      await this.sqsEndpoint?.close();
      await this.aws?.edge.close();
      this.built?.remove();
      await Promise.all(this.engines.map((e) => e.stop()));
      this.dataLock?.release();
      if (this.sinkBefore) setLogSink(this.sinkBefore);
    }
  }
}

/** Listens on `port` (0: any free one) and resolves the port; rejects with the server's error (EADDRINUSE, EACCES). */
function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolvePort, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolvePort(typeof address === 'object' && address ? address.port : 0);
    });
  });
}

/** How often the stream is polled in the background (Lambda polls a DynamoDB stream shard four times a second). */
const STREAM_POLL_MS = 250;

/** The runtime started last in this process: tests and benches that reach the service's state directly (test/support/operator.ts). */
let latest: Runtime | null = null;

/** Starts the local runtime and resolves once everything answers. */
export async function startRuntime(opts: RuntimeOptions): Promise<Runtime> {
  const rt = new Runtime(opts);
  try {
    await rt.start();
  } catch (err) {
    await rt.close().catch(() => undefined);
    throw err;
  }
  latest = rt;
  return rt;
}

/** The runtime started last in this process (tests and benches run one at a time per process). */
export function latestRuntime(): Runtime {
  if (!latest) throw new Error('no local runtime started in this process');
  return latest;
}
