// zod/mini: tree-shaken to the few checks used here, so a function that parses nothing else does not load all of zod at cold start.
import * as z from 'zod/mini';
import { CATALOGUE_NEW_KEYS_PER_DAY } from './domain/item-catalogue';
import { originSecretValues } from './domain/origin-secret';
import { PUSH_SERVICE_HOSTS } from './domain/push-subscription';

/** The deployment's configuration, parsed once from the environment at cold start; fails loudly when incomplete. */
const ConfigSchema = z.object({
  STAGE: z.string().check(z.minLength(1)),
  TABLE_NAME: z.string().check(z.minLength(1)),
  BUCKET_NAME: z.string().check(z.minLength(1)),
  /** Public base of the site and API, ending in `/` (e.g. `https://example.com/`). */
  PUBLIC_BASE: z.url(),
  /** File host base, ending in `/`. */
  CDN_BASE: z.url(),
  /** Comma-separated allowed origins of this deployment (besides the dev rules for non-production). */
  ORIGINS: z._default(z.string(), ''),
  CLERK_PUBLISHABLE_KEY: z._default(z.string(), ''),
  /** The website app's entry script at the origin (`/assets/main-<hash>.js`, lib/site-build.ts); '' when there is no build. */
  SITE_ENTRY: z._default(z.string().check(z.regex(/^(\/assets\/[A-Za-z0-9._-]+\.js)?$/)), ''),
  IDP_ISSUER: z.string().check(z.minLength(1)),
  IDP_JWKS_URL: z.url(),
  IDP_API_URL: z.url(),
  IDP_SECRET_KEY: z._default(z.string(), ''),
  CONNECTIONS_ENDPOINT: z.url(),
  VAPID_PUBLIC_KEY: z._default(z.string(), ''),
  VAPID_PRIVATE_KEY: z._default(z.string(), ''),
  VAPID_SUBJECT: z._default(z.string(), 'mailto:ops@example.com'),
  /** In AWS: Secrets Manager ARNs read once per cold start (identity secret key; VAPID pair as JSON `{publicKey, privateKey}`). */
  IDP_SECRET_ARN: z.optional(z.string()),
  VAPID_SECRET_ARN: z.optional(z.string()),
  /** In AWS: the VAPID public key alone, as JSON `{publicKey}` (functions that tell browsers the key and send nothing). */
  VAPID_PUBLIC_ARN: z.optional(z.string()),
  /** In AWS: the origin-verify secret `{current, previous?}` (read and refreshed by shared/http/edge.ts). */
  ORIGIN_SECRET_ARN: z.optional(z.string()),
  /** Locally: the origin-verify secret itself, as the same JSON. */
  ORIGIN_VERIFY: z._default(z.string(), ''),
  /** In AWS: the uploader-hash key (read once per cold start into UPLOADER_KEY). */
  UPLOADER_SECRET_ARN: z.optional(z.string()),
  UPLOADER_KEY: z._default(z.string(), ''),
  /** `allow` only in the local runtime: http://127.0.0.1 and http://localhost receivers. */
  PUSH_LOOPBACK: z._default(z.enum(['allow', 'deny']), 'deny'),
  /** Key prefix of this stage's files in the bucket ('' or, for previews sharing the dev host, `preview-<name>/`). */
  FILES_PREFIX: z._default(z.string(), ''),
  /** The private bucket of internal state (never served): only functions that keep such state get it. */
  WORK_BUCKET_NAME: z._default(z.string(), ''),
  /**
   * JSON object of queue name → queue URL (see shared/topology.ts QUEUES), each URL after QUEUE_URL_BASE: the
   * stack writes only queue names there and the shared `https://sqs.<region>.<suffix>/<account>/` once, so the
   * redrive function's two URLs per market stay far inside Lambda's 4 KB of environment (issue 26 point 0).
   */
  QUEUE_URLS: z._default(z.string(), '{}'),
  QUEUE_URL_BASE: z._default(z.string(), ''),
  AWS_REGION: z._default(z.string(), 'us-east-1'),
  DYNAMODB_ENDPOINT: z.optional(z.string()),
  S3_ENDPOINT: z.optional(z.string()),
  /**
   * Locally only: `on` when the API gateways are the local runtime's (which keeps a socket open as long as its
   * client does and reads a close code), whatever stores the data; a local DynamoDB endpoint implies it.
   */
  LOCAL_GATEWAY: z.optional(z.enum(['on'])),
  /**
   * Locally only: a smaller daily quota of keys new to the catalogue per account (tests show the quota's rule
   * with a few hundred keys instead of 10,000). Every deployed stage uses CATALOGUE_NEW_KEYS_PER_DAY.
   */
  CATALOGUE_KEYS_PER_DAY: z.optional(z.string().check(z.regex(/^[1-9][0-9]{0,8}$/))),
});

/** Every variable the parser reads. */
export type ConfigVariable = keyof typeof ConfigSchema.shape;
export const CONFIG_VARIABLES = Object.keys(ConfigSchema.shape) as ConfigVariable[];

/**
 * Where each variable the parser reads comes from (test/infra/environment.test.ts holds the template to it):
 * the deployment sets `deployment` for every function, `workBucket` and `secretArns` by the function's access
 * (lib/environment.ts builds them); AWS reads `secretValues` from those secrets at cold start (shared/platform/secret-env.ts)
 * where the local runtime sets them directly; the Lambda runtime sets `lambda`; `local` only the local runtime.
 */
export const CONFIG_VARIABLES_BY_SOURCE = {
  deployment: [
    'STAGE',
    'TABLE_NAME',
    'BUCKET_NAME',
    'PUBLIC_BASE',
    'CDN_BASE',
    'ORIGINS',
    'CLERK_PUBLISHABLE_KEY',
    'SITE_ENTRY',
    'IDP_ISSUER',
    'IDP_JWKS_URL',
    'IDP_API_URL',
    'CONNECTIONS_ENDPOINT',
    'VAPID_SUBJECT',
    'FILES_PREFIX',
    'QUEUE_URLS',
    'QUEUE_URL_BASE',
  ],
  workBucket: ['WORK_BUCKET_NAME'],
  secretArns: {
    identity: 'IDP_SECRET_ARN',
    vapid: 'VAPID_SECRET_ARN',
    vapidPublic: 'VAPID_PUBLIC_ARN',
    origin: 'ORIGIN_SECRET_ARN',
    uploader: 'UPLOADER_SECRET_ARN',
  },
  secretValues: {
    identity: ['IDP_SECRET_KEY'],
    vapid: ['VAPID_PUBLIC_KEY', 'VAPID_PRIVATE_KEY'],
    vapidPublic: ['VAPID_PUBLIC_KEY'],
    origin: ['ORIGIN_VERIFY'],
    uploader: ['UPLOADER_KEY'],
  },
  lambda: ['AWS_REGION'],
  local: ['DYNAMODB_ENDPOINT', 'S3_ENDPOINT', 'LOCAL_GATEWAY', 'PUSH_LOOPBACK', 'CATALOGUE_KEYS_PER_DAY'],
} as const satisfies {
  deployment: readonly ConfigVariable[];
  workBucket: readonly ConfigVariable[];
  secretArns: Record<string, ConfigVariable>;
  secretValues: Record<string, readonly ConfigVariable[]>;
  lambda: readonly ConfigVariable[];
  local: readonly ConfigVariable[];
};

export type Env = 'production' | 'dev' | 'preview';

export interface Config {
  stage: string;
  env: Env;
  tableName: string;
  bucketName: string;
  filesPrefix: string;
  /** '' in functions without access to it. */
  workBucketName: string;
  publicBase: string;
  apiBase: string;
  cdnBase: string;
  origins: string[];
  clerkPublishableKey: string;
  /** The path of the website app's entry script, loaded by every server-rendered page ('' without a build). */
  siteEntry: string;
  idp: { issuer: string; jwksUrl: string; apiUrl: string; secretKey: string };
  connectionsEndpoint: string;
  /** The VAPID key pair, for sending pushes (the push function's): null when push is off or the function holds only the public half. */
  vapid: { publicKey: string; privateKey: string; subject: string } | null;
  /** The VAPID public key browsers subscribe with ('' when push is off): all the api function is given. */
  vapidPublicKey: string;
  queueUrls: Record<string, string>;
  secretArns: { idp?: string; vapid?: string; vapidPublic?: string; origin?: string; uploader?: string };
  /** Origin-verify values accepted when no secret ARN is set (the local runtime's). */
  originVerify: string[];
  /** Key of the uploader hash (HMAC); empty only where uploads are never admitted. */
  uploaderKey: string;
  /** Which Web Push endpoints a subscription may name. */
  push: { hosts: string[]; loopback: boolean };
  region: string;
  endpoints: { dynamodb?: string; s3?: string };
  /** Whether API Gateway is the local runtime's gateway (engines or memory mode): no 2-hour socket limit, close codes read. */
  localGateway: boolean;
  /** Keys new to the catalogue one account may add a day (POST /api/v1/items/seen). */
  catalogueKeysPerDay: number;
}

const slash = (u: string): string => (u.endsWith('/') ? u : `${u}/`);

export function envOfStage(stage: string): Env {
  if (stage === 'production') return 'production';
  if (stage.startsWith('preview')) return 'preview';
  return 'dev';
}

/** Parses the configuration from an environment (default `process.env`). */
export function parseConfig(source: Record<string, string | undefined> = process.env): Config {
  const e = ConfigSchema.parse(source);
  const publicBase = slash(e.PUBLIC_BASE);
  const vapid = e.VAPID_PUBLIC_KEY && e.VAPID_PRIVATE_KEY ? { publicKey: e.VAPID_PUBLIC_KEY, privateKey: e.VAPID_PRIVATE_KEY, subject: e.VAPID_SUBJECT } : null;
  return {
    stage: e.STAGE,
    env: envOfStage(e.STAGE),
    tableName: e.TABLE_NAME,
    bucketName: e.BUCKET_NAME,
    filesPrefix: e.FILES_PREFIX,
    workBucketName: e.WORK_BUCKET_NAME,
    publicBase,
    apiBase: `${publicBase}api/v1/`,
    cdnBase: slash(e.CDN_BASE),
    origins: e.ORIGINS.split(',')
      .map((o) => o.trim())
      .filter(Boolean),
    clerkPublishableKey: e.CLERK_PUBLISHABLE_KEY,
    siteEntry: e.SITE_ENTRY,
    idp: { issuer: e.IDP_ISSUER, jwksUrl: e.IDP_JWKS_URL, apiUrl: e.IDP_API_URL, secretKey: e.IDP_SECRET_KEY },
    connectionsEndpoint: e.CONNECTIONS_ENDPOINT,
    vapid,
    vapidPublicKey: e.VAPID_PUBLIC_KEY,
    queueUrls: Object.fromEntries(Object.entries(JSON.parse(e.QUEUE_URLS) as Record<string, string>).map(([name, url]) => [name, `${e.QUEUE_URL_BASE}${url}`])),
    secretArns: {
      idp: e.IDP_SECRET_ARN,
      vapid: e.VAPID_SECRET_ARN,
      vapidPublic: e.VAPID_PUBLIC_ARN,
      origin: e.ORIGIN_SECRET_ARN,
      uploader: e.UPLOADER_SECRET_ARN,
    },
    originVerify: originSecretValues(e.ORIGIN_VERIFY),
    uploaderKey: e.UPLOADER_KEY,
    push: {
      hosts: [...PUSH_SERVICE_HOSTS],
      loopback: e.PUSH_LOOPBACK === 'allow',
    },
    region: e.AWS_REGION,
    endpoints: { dynamodb: e.DYNAMODB_ENDPOINT, s3: e.S3_ENDPOINT },
    localGateway: e.LOCAL_GATEWAY === 'on' || e.DYNAMODB_ENDPOINT !== undefined,
    catalogueKeysPerDay: e.CATALOGUE_KEYS_PER_DAY ? Number(e.CATALOGUE_KEYS_PER_DAY) : CATALOGUE_NEW_KEYS_PER_DAY,
  };
}
