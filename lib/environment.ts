/**
 * The one builder of a function's environment, used by the stack (lib/constructs/service-functions.ts) and
 * by the local runtime (lib/local/runtime.ts): what a function may use (lib/topology.ts access) decides which
 * variables it gets, in AWS and locally alike. The config parser (shared/config.ts) reads them.
 */
import { CONFIG_VARIABLES_BY_SOURCE } from '../shared/config';
import { deadLetterQueueName, type FunctionSpec, MERGE_QUEUES, MERGE_REJECTED_QUEUE, PUSH_QUEUE } from '../shared/topology';

export type SecretName = NonNullable<FunctionSpec['access']['secrets']>[number];

/** What one deployment (an AWS stage, or a local runtime) gives its functions. */
export interface Deployment {
  stage: string;
  publicBase: string;
  cdnBase: string;
  /** Comma-separated allowed origins. */
  origins: string;
  identity: { publishableKey: string; issuer: string; jwksUrl: string; apiUrl: string };
  /** The website app's entry script (lib/site-build.ts); absent: pages load no app. */
  siteEntry?: string;
  connectionsEndpoint: string;
  vapidSubject: string;
  tableName: string;
  bucketName: string;
  filesPrefix: string;
  workBucketName: string;
  /** Share of invocations that log at debug (Powertools' sampled debug; shared/telemetry). */
  logSampleRate: number;
  /**
   * Whether the functions' Powertools Tracer writes X-Ray segments (`POWERTOOLS_TRACE_ENABLED`): the stage's
   * `tracing` in AWS; off in the local runtime, which has no X-Ray daemon.
   */
  tracing: boolean;
  /** The URL of a queue by manifest name (merge queues, push, rejected merges, dead letters), after `queueUrlBase`. */
  queueUrl: (name: string) => string;
  /** What every queue URL starts with (the stack: `https://sqs.<region>.<suffix>/<account>/`); '' when `queueUrl` gives whole URLs. */
  queueUrlBase?: string;
  /**
   * The variables that carry a secret the function may read: in AWS its ARN (read at cold start), locally
   * the value itself.
   */
  secret: (name: SecretName) => Record<string, string>;
  /** Serializes the queue map (the stack's toJsonString keeps tokens intact). */
  toJson?: (value: Record<string, string>) => string;
}

/** Read by the Node.js runtime and Powertools, not by the config parser. */
export const RUNTIME_VARIABLES = [
  'NODE_OPTIONS',
  'POWERTOOLS_SERVICE_NAME',
  'POWERTOOLS_METRICS_NAMESPACE',
  'POWERTOOLS_LOGGER_SAMPLE_RATE',
  'POWERTOOLS_TRACE_ENABLED',
] as const;

/** The queues a function may use, by manifest name: only those (a URL it may not use only invites an AccessDenied). */
export function queuesOf(spec: FunctionSpec): string[] {
  const { queues = [], mergeFailures } = spec.access;
  const names = queues.flatMap((group) => (group === 'merge' ? MERGE_QUEUES.map((q) => q.name) : [PUSH_QUEUE.name]));
  if (mergeFailures) names.push(MERGE_REJECTED_QUEUE.name);
  if (mergeFailures === 'redrive') names.push(...MERGE_QUEUES.map((q) => deadLetterQueueName(q.name)));
  return names;
}

/** The environment of one function of the manifest in one deployment. */
export function functionEnvironment(spec: FunctionSpec, d: Deployment): Record<string, string> {
  const toJson = d.toJson ?? ((v) => JSON.stringify(v));
  const env: Record<string, string> = {
    STAGE: d.stage,
    PUBLIC_BASE: d.publicBase,
    CDN_BASE: d.cdnBase,
    ORIGINS: d.origins,
    CLERK_PUBLISHABLE_KEY: d.identity.publishableKey,
    SITE_ENTRY: d.siteEntry ?? '',
    IDP_ISSUER: d.identity.issuer,
    IDP_JWKS_URL: d.identity.jwksUrl,
    IDP_API_URL: d.identity.apiUrl,
    // Every function gets it because the config requires it; only `connections` functions may use it.
    CONNECTIONS_ENDPOINT: d.connectionsEndpoint,
    VAPID_SUBJECT: d.vapidSubject,
    TABLE_NAME: d.tableName,
    BUCKET_NAME: d.bucketName,
    FILES_PREFIX: d.filesPrefix,
    QUEUE_URLS: toJson(Object.fromEntries(queuesOf(spec).map((q) => [q, d.queueUrl(q)]))),
    QUEUE_URL_BASE: d.queueUrlBase ?? '',
    NODE_OPTIONS: '--enable-source-maps',
    POWERTOOLS_SERVICE_NAME: spec.name,
    POWERTOOLS_METRICS_NAMESPACE: 'MarketData',
    POWERTOOLS_LOGGER_SAMPLE_RATE: String(d.logSampleRate),
    POWERTOOLS_TRACE_ENABLED: String(d.tracing),
  };
  if (spec.access.workBucket === 'write') env.WORK_BUCKET_NAME = d.workBucketName;
  for (const name of spec.access.secrets ?? []) Object.assign(env, d.secret(name));
  return env;
}

/** The variables the stack sets for a function (the test holds the template to exactly these). */
export function stackVariablesOf(spec: FunctionSpec): string[] {
  const { deployment, workBucket, secretArns } = CONFIG_VARIABLES_BY_SOURCE;
  return [
    ...deployment,
    ...(spec.access.workBucket === 'write' ? workBucket : []),
    ...(spec.access.secrets ?? []).map((s) => secretArns[s]),
    ...RUNTIME_VARIABLES,
  ];
}
