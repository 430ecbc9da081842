import { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { type Clock, systemClock } from './clock';
import { type Config, parseConfig } from './config';
import { jsonLog, keepOutOfLogs, type Log } from './log';
import { type QueuePort, SqsQueues } from './store/queue';

/**
 * Everything a handler touches outside its own code: configuration, the clock, SDK clients and ports.
 * In AWS it is built once per cold start from the environment; the local runtime configures its own
 * (manual clock, local endpoints, in-process queues) before it invokes any handler.
 */
export interface Services {
  config: Config;
  clock: Clock;
  ddb: DynamoDBDocumentClient;
  s3: S3Client;
  connections: ApiGatewayManagementApiClient;
  queues: QueuePort;
  /** Writes a log line; the lines never carry a secret (shared/log.ts). */
  log: Log;
}

let current: Services | undefined;
/** The local runtime's: the services of the function whose invocation is running (each has its own config). */
let ofInvocation: (() => Services | undefined) | undefined;

export function services(): Services {
  const own = ofInvocation?.();
  if (own) return own;
  current ??= fromEnvironment();
  return current;
}

/** Sets the services (the local runtime): `perInvocation` gives the running function's own, `s` serves the rest. */
export function configureServices(s: Services, perInvocation?: () => Services | undefined): void {
  current = s;
  ofInvocation = perInvocation;
}

/** SDK clients for a configuration (shared by AWS and the local runtime, which passes local endpoints). */
export function sdkClients(config: Config): Pick<Services, 'ddb' | 's3' | 'connections'> {
  const local = config.endpoints.dynamodb !== undefined;
  const credentials = local ? { accessKeyId: 'local', secretAccessKey: 'local' } : undefined;
  // s3rver accepts only its own well-known key pair.
  const s3Credentials = config.endpoints.s3 !== undefined ? { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } : undefined;
  const ddbRaw = new DynamoDBClient({ region: config.region, endpoint: config.endpoints.dynamodb, credentials, maxAttempts: 4, requestHandler: pooled(200) });
  const ddb = DynamoDBDocumentClient.from(ddbRaw, { marshallOptions: { removeUndefinedValues: true } });
  // Local S3 servers do not speak the SDK's default flexible checksums (aws-chunked trailers).
  const s3 = new S3Client({
    region: config.region,
    endpoint: config.endpoints.s3,
    forcePathStyle: config.endpoints.s3 !== undefined,
    credentials: s3Credentials,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  // A fan-out posts to up to 2000 sockets of a hub at once (shared/live/poster.ts, on this client's handler):
  // the SDK's default pool of 50 would queue them.
  const connections = new ApiGatewayManagementApiClient({ region: config.region, endpoint: config.connectionsEndpoint, credentials, requestHandler: pooled(500) });
  return { ddb, s3, connections };
}

/** A keep-alive connection pool of `maxSockets` for an SDK client. */
function pooled(maxSockets: number): NodeHttpHandler {
  return new NodeHttpHandler({
    httpAgent: new HttpAgent({ keepAlive: true, maxSockets }),
    httpsAgent: new HttpsAgent({ keepAlive: true, maxSockets }),
  });
}


/**
 * Secrets named by the stack (identity provider secret key, VAPID key pair, uploader-hash key), read once per
 * cold start from Secrets Manager into the variables the config schema reads. Locally no ARN is set and
 * nothing is fetched. The origin-verify secret rotates, so shared/http/edge.ts re-reads it on its own.
 */
async function loadSecrets(env: NodeJS.ProcessEnv): Promise<Record<string, string>> {
  if (!env.IDP_SECRET_ARN && !env.VAPID_SECRET_ARN && !env.UPLOADER_SECRET_ARN) return {};
  const { SecretsManagerClient, GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
  const client = new SecretsManagerClient({});
  const read = async (arn: string) => (await client.send(new GetSecretValueCommand({ SecretId: arn }))).SecretString ?? '';
  const out: Record<string, string> = {};
  if (env.IDP_SECRET_ARN) out.IDP_SECRET_KEY = await read(env.IDP_SECRET_ARN);
  if (env.UPLOADER_SECRET_ARN) out.UPLOADER_KEY = await read(env.UPLOADER_SECRET_ARN);
  if (env.VAPID_SECRET_ARN) {
    const raw = await read(env.VAPID_SECRET_ARN);
    try {
      const pair = JSON.parse(raw) as { publicKey?: string; privateKey?: string };
      if (pair.publicKey && pair.privateKey) Object.assign(out, { VAPID_PUBLIC_KEY: pair.publicKey, VAPID_PRIVATE_KEY: pair.privateKey });
    } catch {
      // not set up yet: push stays off (503 push_unconfigured)
    }
  }
  return out;
}

const secretEnv = await loadSecrets(process.env);

function fromEnvironment(): Services {
  const config = parseConfig({ ...process.env, ...secretEnv });
  keepOutOfLogs(config.idp.secretKey, config.vapid?.privateKey);
  return {
    config,
    clock: systemClock,
    ...sdkClients(config),
    queues: new SqsQueues(new SQSClient({ region: config.region }), config.queueUrls),
    log: jsonLog,
  };
}
