/**
 * The local stage's deployment: the secrets AWS keeps in Secrets Manager (kept in the data folder, made on
 * first start; fresh for an in-memory runtime) and the values the stack would give each function's
 * environment builder (lib/environment.ts), pointed at this runtime's address.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import webpush from 'web-push';
import type { Deployment, SecretName } from '../../environment';

export interface LocalSecrets {
  identitySecret: string;
  /** The origin-verify value the edge adds (the secret's `current`). */
  originVerify: string;
  /** Each secret's fields, where AWS has the secret's ARN. */
  values: Record<SecretName, Record<string, string>>;
}

/** A secret kept in the data directory (made on first start), or fresh for an in-memory runtime. */
function secret(dataDir: string | null, file: string, make: () => string): string {
  if (!dataDir) return make();
  const path = join(dataDir, file);
  if (existsSync(path)) return readFileSync(path, 'utf8');
  const value = make();
  writeFileSync(path, value, { mode: 0o600 });
  return value;
}

/**
 * The stage's secrets. Registered for log redaction where AWS registers them: from each function's
 * configuration (shared/platform/secret-env.ts `keepSecretsOutOfLogs`, called by the runtime).
 */
export function localSecrets(dataDir: string | null): LocalSecrets {
  const identitySecret = secret(dataDir, 'identity-secret.txt', () => `sk_local_${randomBytes(24).toString('base64url')}`);
  const vapid = JSON.parse(secret(dataDir, 'vapid.json', () => JSON.stringify(webpush.generateVAPIDKeys()))) as { publicKey: string; privateKey: string };
  // Rotate by editing the file: {"current": new, "previous": old} (the edge sends `current`).
  const originSecret = secret(dataDir, 'origin-verify.json', () => JSON.stringify({ current: randomBytes(32).toString('base64url') }));
  const originVerify = (JSON.parse(originSecret) as { current: string }).current;
  const uploaderKey = secret(dataDir, 'uploader-key.txt', () => randomBytes(32).toString('base64url'));
  return {
    identitySecret,
    originVerify,
    values: {
      identity: { IDP_SECRET_KEY: identitySecret },
      vapid: { VAPID_PUBLIC_KEY: vapid.publicKey, VAPID_PRIVATE_KEY: vapid.privateKey },
      vapidPublic: { VAPID_PUBLIC_KEY: vapid.publicKey },
      origin: { ORIGIN_VERIFY: originSecret },
      uploader: { UPLOADER_KEY: uploaderKey },
    },
  };
}

export interface LocalNames {
  /** The runtime's printed address (`http://127.0.0.1:8787`). */
  base: string;
  /** The WebSocket API's stage in `@connections` URLs. */
  stage: string;
  tableName: string;
  bucketName: string;
  workBucketName: string;
  filesPrefix: string;
}

/** The deployment the local stage's functions are configured from (lib/environment.ts builds each environment). */
export function localDeployment(names: LocalNames, secrets: LocalSecrets): Deployment {
  const { base } = names;
  return {
    stage: 'dev',
    logSampleRate: 0.01,
    // No X-Ray daemon locally: the bundle sandboxes look like Lambda to Powertools, so say it outright.
    tracing: false,
    publicBase: `${base}/`,
    cdnBase: `${base}/cdn/${names.filesPrefix}`,
    origins: base,
    identity: {
      publishableKey: `pk_test_${Buffer.from(`${base.replace(/^https?:\/\//, '')}/_local/idp$`).toString('base64')}`,
      issuer: `${base}/_local/idp`,
      jwksUrl: `${base}/_local/idp/.well-known/jwks.json`,
      apiUrl: `${base}/_local/idp`,
    },
    connectionsEndpoint: `${base}/${names.stage}`,
    vapidSubject: 'mailto:ops@localhost',
    tableName: names.tableName,
    bucketName: names.bucketName,
    filesPrefix: names.filesPrefix,
    workBucketName: names.workBucketName,
    // Handlers reach the in-process queues by name (LocalQueues); the URLs only have to name them.
    queueUrl: (name) => `local:queue/${name}`,
    secret: (name) => secrets.values[name],
  };
}
