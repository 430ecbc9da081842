/**
 * Stages as data: each deployment's domains, browser origins, identity instance and durability settings.
 * Only `bin/` reads CDK context; everything here is plain values so tests can build any stage directly.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { FUNCTIONS } from '../shared/topology';

/** A deployment: production, the shared dev stage, or a short-lived preview derived from dev. */
export type Stage = 'production' | 'dev' | `preview-${string}`;

/** The stage family the service reports as `env` (shared/config.ts `envOfStage` agrees). */
export type StageEnv = 'production' | 'dev' | 'preview';

/** The Clerk-compatible identity instance a stage trusts; all values are public configuration. */
export interface IdentityInstance {
  /** Session token `iss` (the instance's frontend API). */
  issuer: string;
  jwksUrl: string;
  /** Backend API base URL (API key verification, user metadata). */
  apiUrl: string;
  publishableKey: string;
}

/**
 * Custom host names; without them the stage answers on CloudFront's generated domain names. With them the
 * APIs' execute-api endpoints are switched off and CloudFront reaches each API through a regional custom
 * domain of its own (API Gateway cannot map a WebSocket API and an HTTP API to one domain name). Each
 * origin host needs a DNS record (CNAME) to the target the stack outputs (`ApiOriginTarget`, `LiveOriginTarget`).
 */
export interface CustomDomains {
  /** Site and API host, e.g. `market.example.com`. */
  public: string;
  /** File host, e.g. `files.market.example.com`. */
  files: string;
  /** ACM certificate in us-east-1 covering both hosts (CloudFront only takes certificates from there). */
  certificateArn: string;
  /** The HTTP API's origin host, e.g. `api-origin.market.example.com` (CloudFront's origin, not for clients). */
  apiOrigin: string;
  /** The WebSocket API's origin host, e.g. `live-origin.market.example.com`; @connections calls go there too. */
  liveOrigin: string;
  /** ACM certificate in the stack's region covering both origin hosts; default `certificateArn` (stack in us-east-1). */
  originCertificateArn?: string;
}

/** Everything that differs between deployments. */
export interface StageConfig {
  stage: Stage;
  env: StageEnv;
  domains?: CustomDomains;
  /**
   * Browser origins allowed besides the stage's own (and, for previews, the dev origin): none in
   * production; `http://localhost`, `http://127.0.0.1` and the dev worker URLs elsewhere.
   */
  extraOrigins: string[];
  /**
   * Local ports the file host's CORS policy lists for localhost and 127.0.0.1. CloudFront matches origins
   * exactly (no port wildcard), while the API itself accepts any port for non-production stages.
   */
  localPorts: number[];
  /** Previews publish files under this key prefix of the dev stage's bucket and file host. */
  sharedFileHost?: { stage: 'dev'; prefix: string };
  identity: IdentityInstance;
  /**
   * A WAF web ACL on the public distribution (a rate limit per address and AWS's common rule set). CloudFront
   * takes web ACLs only from us-east-1, so a stage with one deploys there (`region`).
   */
  waf: boolean;
  /** The region the stage deploys to; unset: the CLI's default region (CDK_DEFAULT_REGION). */
  region?: string;
  /**
   * The AWS account the stage deploys to. Production's is pinned: bin/app.ts takes it from
   * `-c productionAccount=<12 digits>` (or `PRODUCTION_ACCOUNT`) and refuses production without it, so a deploy
   * with another account's credentials fails instead of creating a second production. Unset elsewhere: the
   * CLI's account (CDK_DEFAULT_ACCOUNT).
   */
  account?: string;
  /** `mailto:` or URL identifying the push sender (RFC 8292 `sub`). */
  vapidSubject: string;
  /**
   * Where alarm notifications go (an email subscription the address must confirm). Production refuses to
   * synthesize without one (`-c alarmEmail=…`); elsewhere no one is subscribed when absent.
   */
  alarmEmail?: string;
  /**
   * Whether the manifest's reserved concurrency (merge and fan-out, shared/topology.ts) is held for this
   * stage. Lambda keeps at least 100 of an account's regional concurrency unreserved, so each stage that
   * reserves needs its account's concurrency at 100 + {@link reservedConcurrencyOf}; previews share dev's
   * account and reserve none (their merges are bounded by one FIFO group per market, fan-out by the stream's shards).
   */
  reserveConcurrency: boolean;
  removalPolicy: RemovalPolicy;
  pointInTimeRecovery: boolean;
  logRetention: RetentionDays;
  /** The share of invocations that log at DEBUG (Powertools' sampled debug, 0..1); default 0.01. */
  logSampleRate?: number;
  /**
   * X-Ray active tracing of every function and Powertools Tracer on (issue 26 point 1). On in production;
   * off in dev and previews unless deployed with `-c tracing=on` (X-Ray bills per trace recorded beyond its
   * free tier, and a short-lived stage rarely needs one).
   */
  tracing: boolean;
}

const DEV_IDENTITY: IdentityInstance = {
  issuer: 'https://dev-market.clerk.accounts.dev',
  jwksUrl: 'https://dev-market.clerk.accounts.dev/.well-known/jwks.json',
  apiUrl: 'https://api.clerk.com',
  publishableKey: 'pk_test_ZGV2LW1hcmtldC5jbGVyay5hY2NvdW50cy5kZXYk',
};

const LOCAL_ORIGINS = ['http://localhost', 'http://127.0.0.1'];

/** Dev worker URLs that may call dev and preview deployments from a browser. */
const DEV_URLS = ['https://market-dev.example.workers.dev'];

/** The two long-lived stages; previews derive from `dev` through `stageConfig`. */
export const STAGES: Record<'production' | 'dev', StageConfig> = {
  production: {
    stage: 'production',
    env: 'production',
    extraOrigins: [],
    localPorts: [],
    identity: {
      issuer: 'https://clerk.market.example.com',
      jwksUrl: 'https://clerk.market.example.com/.well-known/jwks.json',
      apiUrl: 'https://api.clerk.com',
      publishableKey: 'pk_live_Y2xlcmsubWFya2V0LmV4YW1wbGUuY29tJA',
    },
    waf: true,
    region: 'us-east-1',
    vapidSubject: 'mailto:ops@example.com',
    reserveConcurrency: true,
    tracing: true,
    removalPolicy: RemovalPolicy.RETAIN,
    pointInTimeRecovery: true,
    logRetention: RetentionDays.THREE_MONTHS,
  },
  dev: {
    stage: 'dev',
    env: 'dev',
    extraOrigins: [...LOCAL_ORIGINS, ...DEV_URLS],
    // The desktop app's dev server (1420), common front-end dev servers and the local runtime.
    localPorts: [1420, 3000, 5173, 8080],
    identity: DEV_IDENTITY,
    // A web ACL costs a fixed monthly fee per stage; dev relies on the service's own limits.
    waf: false,
    vapidSubject: 'mailto:ops@example.com',
    reserveConcurrency: true,
    tracing: false,
    removalPolicy: RemovalPolicy.DESTROY,
    pointInTimeRecovery: false,
    logRetention: RetentionDays.TWO_WEEKS,
  },
};

const PREVIEW_NAME = /^[a-z0-9][a-z0-9-]{0,19}$/;

const IDENTITY_FIELDS = ['issuer', 'jwksUrl', 'apiUrl', 'publishableKey'] as const;

/**
 * A preview's identity instance, checked: the spec gives each preview its own identity instance, so a preview
 * without one, or with dev's or production's, refuses to synthesize.
 */
function previewIdentityOf(stage: string, identity: IdentityInstance | undefined): IdentityInstance {
  const usage = `${stage} needs its own identity instance (the spec: each preview has its own): -c identity='{"issuer":…,"jwksUrl":…,"apiUrl":…,"publishableKey":…}'`;
  if (!identity || typeof identity !== 'object') throw new Error(usage);
  for (const field of IDENTITY_FIELDS) {
    const value: unknown = identity[field];
    if (typeof value !== 'string' || value === '') throw new Error(`${usage}; "${field}" is missing`);
    if (field !== 'publishableKey' && !/^https:\/\/[^\s/]+/.test(value)) throw new Error(`${usage}; "${field}" must be an https URL`);
  }
  for (const other of ['dev', 'production'] as const) {
    if (identity.issuer === STAGES[other].identity.issuer) throw new Error(`${usage}; it names the ${other} instance (${identity.issuer})`);
  }
  return { issuer: identity.issuer, jwksUrl: identity.jwksUrl, apiUrl: identity.apiUrl, publishableKey: identity.publishableKey };
}

/**
 * The configuration of `production`, `dev` or `preview-<name>`; previews take dev's settings under their own
 * names, with their own identity instance (required).
 */
export function stageConfig(stage: string, previewIdentity?: IdentityInstance): StageConfig {
  if (stage === 'production' || stage === 'dev') return STAGES[stage];
  const name = stage.startsWith('preview-') ? stage.slice('preview-'.length) : '';
  if (!PREVIEW_NAME.test(name)) {
    throw new Error(`unknown stage "${stage}": use production, dev or preview-<name> (lower-case letters, digits, dashes; at most 20)`);
  }
  const preview: Stage = `preview-${name}`;
  const identity = previewIdentityOf(preview, previewIdentity);
  return {
    ...STAGES.dev,
    stage: preview,
    env: 'preview',
    // A preview has no custom host of its own; its files live under a prefix of the dev host.
    domains: undefined,
    sharedFileHost: { stage: 'dev', prefix: `${preview}/` },
    identity,
    // Dev and every preview share one account: previews hold none of its concurrency for themselves.
    reserveConcurrency: false,
  };
}

/** Lambda's floor of unreserved concurrency in every account and region. */
export const UNRESERVED_CONCURRENCY_FLOOR = 100;

/** The concurrency a stage reserves (merge + fan-out when it reserves, else none). */
export function reservedConcurrencyOf(config: StageConfig): number {
  return config.reserveConcurrency ? FUNCTIONS.reduce((sum, f) => sum + (f.reservedConcurrency ?? 0), 0) : 0;
}

/** The account concurrency (per region) the stages deployed together in it need: the floor plus their reservations. */
export function accountConcurrencyNeeded(stages: readonly StageConfig[]): number {
  return UNRESERVED_CONCURRENCY_FLOOR + stages.reduce((sum, s) => sum + reservedConcurrencyOf(s), 0);
}

const ACCOUNT_ID = /^\d{12}$/;

/**
 * The stack environment of a stage: its pinned account and region, else the CLI's (`defaults`). Production
 * without a pinned account (or with one that is not 12 digits) refuses to synthesize: issue 26 point 4.
 */
export function stackEnvironment(config: StageConfig, defaults: { account?: string; region?: string }): { account?: string; region?: string } {
  if (config.account !== undefined && !ACCOUNT_ID.test(config.account)) {
    throw new Error(`stage ${config.stage}: account "${config.account}" is not a 12-digit AWS account id`);
  }
  if (config.env === 'production' && config.account === undefined) {
    throw new Error(
      `stage ${config.stage} deploys only to its pinned account: pass -c productionAccount=<12-digit account id> (or set PRODUCTION_ACCOUNT); a deploy with another account's credentials then fails`,
    );
  }
  return { account: config.account ?? defaults.account, region: config.region ?? defaults.region };
}

/** The CloudFormation stack name of a stage (resources inside keep generated names). */
export const stackName = (stage: Stage): string => `MarketData-${stage}`;

/**
 * SSM parameters through which previews find the dev stage's file host and origin, read when a preview
 * deploys (CloudFormation exports would lock dev's values while any preview imports them).
 */
export const devParameters = {
  // The bucket's name carries `FilesBucket`, which the reviewed IAM5 suppression of its key prefixes names.
  filesBucketName: `/${stackName('dev')}/FilesBucketName`,
  cdnBase: `/${stackName('dev')}/CdnBase`,
  publicOrigin: `/${stackName('dev')}/PublicOrigin`,
} as const;
