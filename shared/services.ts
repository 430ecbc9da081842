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
import type { ConnectionsPort, SocketsPort } from './ports/connections';
import type { FilesPort } from './ports/files';
import type { CataloguePort } from './ports/catalogue';
import type { IdentityPort } from './ports/identity';
import type { MarketPort } from './ports/market';
import { dynamoMarket } from './store/dynamo-market';
import type { UploadsPort } from './ports/uploads';
import { dynamoCatalogue } from './store/dynamo-catalogue';
import { dynamoUploads } from './store/dynamo-uploads';
import type { SettingsPort } from './ports/settings';
import { dynamoIdentity } from './store/dynamo-identity';
import { dynamoSettings } from './store/dynamo-settings';
import { ApiGatewaySockets } from './store/api-gateway-sockets';
import { DynamoConnections } from './store/dynamo-connections';
import type { QueuePort } from './ports/queues';
import { SqsQueues } from './store/queue';
import { S3Files } from './store/s3-files';
import { base64Decoder } from './store/clients/base64';

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
  /** The live sockets' records. */
  connections: ConnectionsPort;
  /** `@connections`: posting to sockets and closing them. */
  sockets: SocketsPort;
  queues: QueuePort;
  settings: SettingsPort;
  identity: IdentityPort;
  uploads: UploadsPort;
  catalogue: CataloguePort;
  market: MarketPort;
  /** The files bucket, under the stage's prefix. */
  files: FilesPort;
  /** The private work bucket (functions whose manifest entry names it). */
  work: FilesPort;
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
export function sdkClients(config: Config): { ddb: DynamoDBDocumentClient; s3: S3Client; connections: ApiGatewayManagementApiClient } {
  const local = config.endpoints.dynamodb !== undefined;
  const credentials = local ? { accessKeyId: 'local', secretAccessKey: 'local' } : undefined;
  // s3rver accepts only its own well-known key pair.
  const s3Credentials = config.endpoints.s3 !== undefined ? { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } : undefined;
  const ddbRaw = new DynamoDBClient({ region: config.region, endpoint: config.endpoints.dynamodb, credentials, maxAttempts: 4, requestHandler: pooled(200), base64Decoder });
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
  // A fan-out posts to up to 2000 sockets of a hub at once (shared/store/connection-poster.ts, on this client's handler):
  // the SDK's default pool of 50 would queue them.
  const connections = new ApiGatewayManagementApiClient({ region: config.region, endpoint: config.connectionsEndpoint, credentials, requestHandler: pooled(500) });
  return { ddb, s3, connections };
}

/** The live socket ports of a configuration: records in the table, `@connections` through the management API. */
export function livePorts(ddb: DynamoDBDocumentClient, client: ApiGatewayManagementApiClient, config: Config, clock: Clock): Pick<Services, 'connections' | 'sockets' | 'settings' | 'identity' | 'uploads' | 'catalogue' | 'market'> {
  // Only the local runtime's gateway reads a close code; API Gateway would ignore it.
  const local = config.env === 'dev' && config.endpoints.dynamodb !== undefined;
  const table = { ddb, name: config.tableName, clock };
  return { connections: new DynamoConnections(table), sockets: new ApiGatewaySockets(client, local), settings: dynamoSettings(table), identity: dynamoIdentity(table), uploads: dynamoUploads(table), catalogue: dynamoCatalogue(table), market: dynamoMarket(table) };
}

/** The files and work bucket ports of a configuration. */
export function bucketPorts(s3: S3Client, config: Config, clock: Clock): Pick<Services, 'files' | 'work'> {
  return { files: new S3Files(s3, config.bucketName, config.filesPrefix, clock), work: new S3Files(s3, config.workBucketName, '', clock) };
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
  const clients = sdkClients(config);
  return {
    config,
    clock: systemClock,
    ddb: clients.ddb,
    s3: clients.s3,
    ...livePorts(clients.ddb, clients.connections, config, systemClock),
    ...bucketPorts(clients.s3, config, systemClock),
    queues: new SqsQueues(new SQSClient({ region: config.region }), config.queueUrls),
    log: jsonLog,
  };
}
