/**
 * What a function's services (shared/platform/aws-services.ts, `awsServices(fn, platform)`) are built from:
 * its configuration, the clock, the log, and only the SDK clients it names. `Platform<'ddb'>` offers the table's
 * client and nothing else, so building an S3 port over it does not typecheck. AWS: shared/platform/aws.ts
 * (the Lambda entry `lambdas/<fn>/index.ts` passes the client factories it imports); the local runtime: its
 * engines' clients with the faults and the IAM recording installed (lib/local/runtime.ts).
 */
import type { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import type { S3Client } from '@aws-sdk/client-s3';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../clock';
import type { Config } from '../config';
import type { Log } from '../log';
import type { SocketsPort } from '../ports/connections';
import type { FilesPort } from '../ports/files';
import type { QueuePort } from '../ports/queues';
import type { SecretsPort } from '../ports/secrets';

export interface Clients {
  /** The table's document client. */
  ddb: DynamoDBDocumentClient;
  /** The files and work buckets' client. */
  s3: S3Client;
  /** `@connections` of the live socket's API. */
  connections: ApiGatewayManagementApiClient;
  /** The manifest's queues (SQS in AWS, in-process locally). */
  queues: QueuePort;
  /** The stage's secrets (Secrets Manager in AWS). */
  secrets: SecretsPort;
  /**
   * The files and work buckets' ports over their S3 client (shared/platform/buckets.ts): a factory of its own,
   * so the S3 adapter is bundled only into the functions whose entry names it.
   */
  buckets: Buckets;
  /** `@connections` as the sockets port (shared/platform/sockets.ts), for the same reason. */
  sockets: SocketsPort;
}

/** The files bucket (under the stage's prefix) and the private work bucket. */
export interface Buckets {
  files: FilesPort;
  work: FilesPort;
}

export type ClientName = keyof Clients;

/** Configuration, clock and log, and a getter for each client in `K` (the same client every call). */
export type Platform<K extends ClientName = never> = {
  readonly config: Config;
  readonly clock: Clock;
  readonly log: Log;
} & { readonly [P in K]: () => Clients[P] };

/** The ports every function has: configuration, clock, log. */
export const coreOf = (p: Platform): { config: Config; clock: Clock; log: Log } => ({ config: p.config, clock: p.clock, log: p.log });
