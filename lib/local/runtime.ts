/**
 * The whole service on one machine: real storage engines, the same handlers as AWS, wired from the
 * manifest (shared/topology.ts). One HTTP server plays API Gateway (HTTP and WebSocket APIs, `@connections`),
 * CloudFront (file host at `/cdn/`, viewer address) and hosts the control API (`/_local/...`).
 *
 * This file composes the rooms of lib/local/ (docs/local-runtime.md "Where things are"): the back end
 * (engines/, aws-edge/), each function's platform and host (functions/, iam/), the gateways (gateways/,
 * identity/, control/) and the background (background/); the command line is in process/.
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { S3Client } from '@aws-sdk/client-s3';
import { type Clock, ManualClock, systemClock } from '../../shared/clock';
import { jsonLog, type Log } from '../../shared/log';
import { awsServices } from '../../shared/platform/aws-services';
import type { ClientName, Platform } from '../../shared/platform/platform';
import { TABLE_ADAPTERS } from '../../shared/platform/table-adapters';
import type { ServicesOf } from '../../shared/services';
import { type LogSink, setLogSink } from '../../shared/telemetry/sink';
import { FUNCTIONS, type FunctionName, WS_ROUTES } from '../../shared/topology';
import { readSiteBuild, type SiteBuild } from '../site-build';
import type { Meter } from './aws-edge/edge';
import { type SqsEndpoint, startSqsEndpoint } from './aws-edge/sqs-endpoint';
import type { LocalAws } from './aws-edge/start';
import { Background, type BackgroundParts, type ChangeParts, engineBackground, serviceQueues } from './background/background';
import type { LocalQueues } from './background/queues';
import { ReplayClock } from './background/replay-clock';
import { handleControl } from './control/control';
import { MergeCrash, type MergeFaultState } from './control/merge-crash';
import { Backend, type StartedBackend } from './engines/backend';
import { StartAborted } from './engines/wait';
import { type Bundles, buildBundles } from './functions/bundles';
import { type LocalNames as LocalDeploymentNames, type LocalSecrets, localSecrets } from './functions/deployment';
import { LambdaHost } from './functions/lambda';
import { type OperatorServices, operatorServices } from './functions/operator';
import { type LocalPlatforms, localPlatforms } from './functions/platforms';
import { sandboxEnvironments } from './functions/sandbox-environment';
import { Sandboxes } from './functions/sandboxes';
import { Edge } from './gateways/edge';
import { FileHost } from './gateways/file-host';
import { type FileSource, s3FileSource } from './gateways/file-source';
import { HttpApi } from './gateways/http-api';
import { closeListeners, gated, type Listeners, openListeners, type Routing } from './gateways/listeners';
import { LiveGateway } from './gateways/live-gateway';
import { SiteHost } from './gateways/site-host';
import { arnNames, type CallRecorder, type LocalNames } from './iam/calls';
import { recordQueueCalls } from './iam/record';
import { LocalIdentity } from './identity/identity';
import { engineOnly, memoryBackend } from './memory/backend';
import type { Faults, RuntimeOptions } from './options';
import { type DataLock, lockDataDir } from './process/data-lock';
import { ServiceLines } from './process/log-lines';

export type { Faults, RuntimeOptions } from './options';

// The SDK's notice about Node 22 is about future releases; the pinned clients support Node 20.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const STAGE = 'local';
/** The WebSocket API's id in local events (lib/local/gateways/live-gateway.ts) and in recorded `@connections` ARNs. */
const LIVE_API_ID = 'local';
/** The function a WebSocket route invokes (the manifest's). */
const wsRoute = (key: string): FunctionName => WS_ROUTES.find((r) => r.routeKey === key)!.function;

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
  private engineS3: S3Client | null = null;
  queues!: LocalQueues;
  /** The files bucket as the file host and `/_local/files` read it (s3rver's, or the memory files port). */
  files!: FileSource;
  /** The functions' sandboxes in `--bundles` mode (which bundle served which function: `sandboxes.served`). */
  sandboxes: Sandboxes | null = null;
  private built: Bundles | null = null;
  private sqsEndpoint: SqsEndpoint | null = null;
  /** The engines and the local AWS edge in front of them (lib/local/engines/backend.ts). */
  private readonly backend = new Backend();
  /** The handlers' AWS calls as IAM sees them (only with the `recordCalls` option). */
  recorder: CallRecorder | null = null;
  identity!: LocalIdentity;
  private listeners: Listeners | null = null;
  private readonly aborter = new AbortController();
  /** Requests before start-up finished are answered 503: the handlers are not wired yet. */
  private ready = false;
  private closing: Promise<void> | null = null;
  /** The data folder's lock (lib/local/process/data-lock.ts), held from start to the end of close. */
  private dataLock: DataLock | null = null;
  /** Each function's local platform: its own configuration over the engines' shared, instrumented clients. */
  private platforms = new Map<FunctionName, Platform<ClientName>>();
  /** Each function's services in the memory mode (null: the engines', built over its platform). */
  private memoryServicesOf: ((fn: FunctionName) => ServicesOf<FunctionName>) | null = null;
  private lambdas = new LambdaHost(
    ROOT,
    (name) => this.memoryServicesOf?.(name) ?? (awsServices(name, this.platform(name), TABLE_ADAPTERS) as ServicesOf<FunctionName>),
    (name, run) => this.mergeCrash.run(name, run),
  );
  /**
   * Every port, as the operator's calls outside any invocation use them (the control API's publishing) and
   * as tests read and write the service's state; every access (lib/local/functions/operator.ts).
   */
  operator!: OperatorServices;
  /** Tests shorten timeouts and slow functions down here (lib/local/functions/lambda.ts) instead of waiting 29 s. */
  readonly lambdaKnobs = this.lambdas.knobs;
  /** Invokes a function as the Lambda service does (lib/local/functions/lambda.ts). */
  private readonly invoke = (fn: FunctionName, event: unknown) => this.lambdas.invoke(fn, event);
  /** API Gateway's HTTP API in front of the functions (lib/local/gateways/http-api.ts). */
  private readonly httpApi = new HttpApi(
    (fn, event) => this.lambdas.invoke(fn, event),
    (level, msg, data) => this.log(level, msg, data),
  );
  /** The WebSocket API: its routes' functions from the manifest (`@connections` held to the callers' policies on the engines). */
  private readonly live = new LiveGateway(
    STAGE,
    (fn, ev) => this.lambdas.invoke(fn, ev),
    { connect: wsRoute('$connect'), message: wsRoute('$default'), disconnect: wsRoute('$disconnect') },
    (err) => this.log('error', 'live gateway', { error: String(err) }),
  );
  /** The queues' deliveries, the stream, the schedules and the sweeper (lib/local/background/background.ts). */
  private background: Background | null = null;
  /** The listener's routing (lib/local/gateways/edge.ts), once everything it routes to is wired. */
  private edge: Edge | null = null;

  constructor(private readonly opts: RuntimeOptions) {
    const start = opts.clockStart ?? Date.now();
    this.clock = opts.clock === 'manual' ? new ManualClock(start) : opts.clock === 'replay' ? new ReplayClock(start) : systemClock;
    const suffix = opts.name ?? 'main';
    this.tableName = `market-data-${suffix}`;
    this.bucketName = `market-files-${suffix}`.toLowerCase();
    this.workBucketName = `market-work-${suffix}`.toLowerCase();
    this.lines = new ServiceLines(opts.log ?? true);
  }

  /** The local SQS endpoint the sandboxes call (`--bundles` only; '' otherwise). */
  get sqsUrl(): string {
    return this.sqsEndpoint?.url ?? '';
  }

  /** The local AWS edge every function's DynamoDB and S3 call goes to ('' before start). */
  get awsUrl(): string {
    return this.backend.aws?.edge.url ?? '';
  }

  /** The calls the local AWS edge saw, by caller and IAM action (refused ones too); the engines' alone. */
  get awsMeter(): Meter {
    if (this.onMemory) engineOnly('the AWS call meter (awsMeter)');
    return this.backend.aws?.edge.meter ?? new Map();
  }

  /** The engines' S3 client (signed as the calling function); the engines' alone. */
  get s3(): S3Client {
    if (!this.engineS3) return engineOnly(this.onMemory ? 'the S3 client (runtime.s3)' : 'runtime.s3 before start');
    return this.engineS3;
  }

  /** Whether the service runs on the in-memory fakes (`backend: 'memory'`, lib/local/memory/). */
  get onMemory(): boolean {
    return this.opts.backend === 'memory';
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
    return this.onMemory || this.opts.dataDir === ':memory:';
  }

  private get host(): string {
    return this.opts.host ?? '127.0.0.1';
  }

  /** Every line goes to the sink (shared/telemetry/sink.ts); it prints errors only when logging is off. */
  private log: Log = (level, msg, data) => jsonLog(level, msg, data);

  /** Every line the service writes: to the taps (tests), printed as the `log` option says. */
  private readonly lines: ServiceLines;
  private sinkBefore: LogSink | null = null;

  /** Hears every line (structured log and EMF metrics) the service writes, printed or not; returns the way to stop. */
  tapLog(listener: (line: string) => void): () => void {
    return this.lines.tap(listener);
  }

  /**
   * Starts in the order a failure is cheapest to report: the data folder's lock and the port (nothing
   * spawned yet), then the back end (engines, AWS edge, table and buckets) while the bundles build, then
   * each function's platform, the identity provider, the gateways and the background.
   */
  async start(): Promise<string> {
    this.sinkBefore = setLogSink(this.lines.sink);
    const dataDir = this.lockDataDir();
    // The port first: a port in use fails the start before any engine is spawned.
    this.listeners = await openListeners(this.host, this.opts.port ?? 8787, this.opts.direct ?? false, this.routing);
    ({ base: this.base, directBase: this.directBase } = this.listeners);
    const secrets = localSecrets(dataDir);
    const site = readSiteBuild();
    if (!site) throw new Error('the website is not built: run npm run build (npm start and npm test build it when missing)');
    this.queues = serviceQueues(this.clock, (fn, event) => this.lambdas.invoke(fn, event));
    const feed = this.onMemory ? this.startOnMemory(secrets, site.entry) : await this.startOnEngines(dataDir, secrets, site.entry);
    this.identity = new LocalIdentity({
      dataDir: dataDir ?? ':memory:',
      issuer: `${this.base}/_local/idp`,
      clock: this.clock,
      secretKey: secrets.identitySecret,
    });
    await this.identity.init();
    this.background = new Background(this.backgroundParts(feed), this.queues, this.live);
    await Promise.all([this.background.init(), this.lambdas.preload(FUNCTIONS.map((f) => f.name))]);
    if (this.aborter.signal.aborted) throw new StartAborted();
    this.edge = this.edgeFor(secrets.originVerify, site);
    this.background.start();
    this.ready = true;
    return this.base;
  }

  /** The engines: the back end while the bundles build, each function's platform (and sandbox), `@connections` behind the edge's scheme. */
  private async startOnEngines(dataDir: string | null, secrets: LocalSecrets, siteEntry: string): Promise<ChangeParts> {
    const building = this.buildBundles();
    const backend = await this.startBackend(dataDir);
    this.recorder = backend.recorder;
    this.httpApi.permitFrom(backend.template);
    await this.startFunctions(backend.aws, secrets, siteEntry, building);
    this.files = s3FileSource(backend.aws.engineS3, this.bucketName);
    this.live.access = backend.aws.manage;
    const { invoke, log, tableName, memory } = this;
    return engineBackground({ ddb: backend.aws.engineDdb, ddbEndpoint: backend.ddbEndpoint, tableName, memory, invoke, log });
  }

  /** The in-memory fakes (lib/local/memory/backend.ts): no engine, no edge, no IAM (every route's function may be invoked). */
  private startOnMemory(secrets: LocalSecrets, siteEntry: string): ChangeParts {
    if (this.bundleMode) throw new Error('--bundles runs the deployed bundles on the engines: drop --memory or --bundles');
    this.httpApi.permissions = null;
    const { clock, log, faults, mergeCrash, queues, invoke } = this;
    const names = this.deploymentNames();
    const { catalogueKeysPerDay } = this.opts;
    const mem = memoryBackend({ names, secrets, siteEntry, clock, log, faults, mergeCrash, queues, invoke, sockets: this.live.sockets, catalogueKeysPerDay });
    ({ servicesOf: this.memoryServicesOf, operator: this.operator, files: this.files } = mem);
    return mem.background;
  }

  /** The data folder (null for `:memory:`), made and locked before anything else: a second runtime on it is refused having started nothing. */
  private lockDataDir(): string | null {
    if (this.memory) return null;
    const dataDir = resolve(this.opts.dataDir);
    mkdirSync(dataDir, { recursive: true });
    this.dataLock = lockDataDir(dataDir);
    return dataDir;
  }

  /** `--bundles`: the bundles build while the engines start (a stop waits for the build). */
  private buildBundles(): Promise<Bundles> | null {
    if (!this.bundleMode) return null;
    const building = buildBundles(ROOT, FUNCTIONS, typeof this.opts.bundles === 'object' ? this.opts.bundles : {});
    this.backend.track(building.then((b) => (this.built = b)));
    return building;
  }

  /** The queues, each function's platform (and with `--bundles` its sandbox), and the operator's services. */
  private async startFunctions(aws: LocalAws, secrets: LocalSecrets, siteEntry: string, building: Promise<Bundles> | null): Promise<void> {
    const platforms = this.platformsFor(aws, secrets, siteEntry);
    this.engineS3 = platforms.s3;
    if (building) await this.startSandboxes(await building, platforms);
    this.platforms = platforms.byFunction;
    this.operator = operatorServices(platforms.operator);
  }

  /** The engines, the local AWS edge and the table and buckets (lib/local/engines/backend.ts). */
  private startBackend(dataDir: string | null): Promise<StartedBackend> {
    const { dynamodbEndpoint, s3Endpoint, templateFile, recordCalls } = this.opts;
    return this.backend.start({
      dataDir,
      dynamodbEndpoint,
      s3Endpoint,
      templateFile,
      recordCalls,
      host: this.host,
      names: this.localNames(),
      faults: this.faults,
      now: () => this.clock.now(),
      log: (level, msg, data) => this.log(level, msg, data),
      signal: this.aborter.signal,
    });
  }

  /** Each function's platform over the shared clients, and the operator's (lib/local/functions/platforms.ts). */
  private platformsFor(aws: LocalAws, secrets: LocalSecrets, siteEntry: string): LocalPlatforms {
    return localPlatforms({
      names: this.deploymentNames(),
      secrets,
      siteEntry,
      aws,
      clock: this.clock,
      log: this.log,
      mergeCrash: this.mergeCrash,
      queues: this.queues,
      recordQueues: (queues) => (this.recorder ? recordQueueCalls(queues, this.recorder) : queues),
      catalogueKeysPerDay: this.opts.catalogueKeysPerDay,
    });
  }

  /** The names the local deployment's configuration is built from (lib/local/functions/deployment.ts). */
  private deploymentNames(): LocalDeploymentNames {
    const { base, tableName, bucketName, workBucketName } = this;
    return { base, stage: STAGE, tableName, bucketName, workBucketName, filesPrefix: this.opts.filesPrefix ?? '' };
  }

  private backgroundParts(feed: ChangeParts): BackgroundParts {
    const { clock, log } = this;
    return { clock, log, invoke: this.invoke, sealFails: () => this.faults.seal === 'fail', ...feed };
  }

  /** The listener's routing once everything it routes to is wired: the file host reads s3rver past the edge, or the memory files. */
  private edgeFor(originVerify: string, site: SiteBuild): Edge {
    return new Edge({
      base: this.base,
      stage: STAGE,
      controlHosts: this.listeners?.controlHosts ?? [],
      originVerify,
      identity: this.identity,
      control: (req, res, url, body) => handleControl(this, req, res, url, body),
      fileHost: new FileHost(this.files, (origin) => this.allowedOrigin(origin)),
      site: new SiteHost(site),
      live: this.live,
      httpApi: this.httpApi,
      log: (level, msg, data) => this.log(level, msg, data),
    });
  }

  /**
   * `--bundles`: the local SQS endpoint the sandboxes call (on the queue port the in-process handlers get,
   * grants and recording included) and one sandbox per function (lib/local/functions/sandbox-environment.ts).
   */
  private async startSandboxes(bundles: Bundles, platforms: LocalPlatforms): Promise<void> {
    const secretOf = (fn: FunctionName) => this.backend.aws!.credentials.secretOf(fn);
    this.sqsEndpoint = await startSqsEndpoint(platforms.queues, (name) => this.queues.names().includes(name), this.host, secretOf);
    const sqs = this.sqsEndpoint.url;
    const environments = sandboxEnvironments(bundles, { ...platforms.deployment }, platforms.localOnly, sqs, (fn) => secretOf(fn)!);
    this.sandboxes = new Sandboxes({ bundles, environment: (name) => environments.get(name)!, sqsEndpoint: sqs, clock: this.clock, log: this.lines.sink });
    this.lambdas.sandboxes = this.sandboxes;
  }

  /**
   * The credentials function `fn` signs its AWS calls with (its sandbox's environment with `--bundles`; a test
   * plays the function with them); undefined before start.
   */
  sandboxCredentials(fn: FunctionName): { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | undefined {
    if (this.onMemory) engineOnly("a function's AWS credentials (sandboxCredentials)");
    return this.backend.aws?.credentials.of(fn);
  }

  /** What the local ARNs name (the recorded calls' and the edge's policy checks). */
  private localNames(): LocalNames {
    return arnNames(this.deploymentNames(), LIVE_API_ID);
  }

  /** The local platform function `name`'s composition root is built on (its own configuration; tests read it). */
  platform(name: FunctionName): Platform<ClientName> {
    const p = this.platforms.get(name);
    if (!p) throw new Error(`${name}: the runtime has not started`);
    return p;
  }

  /** The dev deployment's origins: its own, and any `http://localhost[:port]` / `http://127.0.0.1[:port]`. */
  allowedOrigin(origin: string): boolean {
    return origin === this.base || /^http:\/\/(localhost|127\.0\.0\.1)(:\d+)?$/.test(origin);
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

  /** The background, once started (the control API answers 503 before). */
  private get running(): Background {
    if (!this.background) throw new Error('the runtime has not started');
    return this.background;
  }

  /** Pauses the background stream poll (the bench only: lib/local/background/background.ts). */
  pauseStreamPoll(): Promise<void> {
    return this.running.pauseStreamPoll();
  }

  /** Resumes the background stream poll paused by `pauseStreamPoll`. */
  resumeStreamPoll(): void {
    this.running.resumeStreamPoll();
  }

  /** Waits until queues, the stream and sockets are idle, then runs due schedules, until nothing is left. */
  settle(): Promise<void> {
    return this.running.settle();
  }

  /** Waits until queues, the stream and sockets are idle, running no schedule (the demo replays a week, then schedules catch up). */
  drain(): Promise<void> {
    return this.running.quiesce();
  }

  /** Runs the named schedules now (each counted as run for its period), then drains. */
  runSchedules(names: string[]): Promise<void> {
    return this.running.runSchedules(names);
  }

  /** Runs every schedule due at the service clock, then settles. */
  tick(): Promise<string[]> {
    return this.running.tick();
  }

  /** Requests before start-up finished (or once stopping began) are answered 503: the handlers are not wired. */
  private readonly routing: Routing = gated(() => (this.ready ? this.edge : null));

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
    this.background?.stop();
    try {
      await this.live.closeAll();
      // No new requests; those in flight finish.
      await closeListeners([this.listeners?.server, this.listeners?.direct]);
      // Work in flight (a merge, a stream batch) would otherwise meet stopped engines.
      await this.background?.stopped();
      this.recorder?.flush();
    } finally {
      await this.backend.started();
      await this.sandboxes?.close();
      await this.sqsEndpoint?.close();
      this.built?.remove();
      await this.backend.stop();
      this.dataLock?.release();
      if (this.sinkBefore) setLogSink(this.sinkBefore);
    }
  }
}

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
