/**
 * The runtime's local AWS (docs/local-runtime.md "One local AWS edge"): the engines' own clients (the
 * runtime's set-up, the stream poller, the sweeper and the file host reach the engines directly, so no fault
 * or policy touches them), the functions' credentials, and the edge every function's DynamoDB and S3 call
 * goes through, and the same caller check for API Gateway's `@connections`.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import type { CallRecorder, LocalNames } from '../iam/calls';
import type { TemplateJson } from '../iam/resolve';
import { EdgeAccess } from './access';
import { type ManageAccess, manageAccess } from './connections';
import { LocalCredentials } from './credentials';
import { AwsEdge, type AwsEdgeOptions } from './edge';

export interface LocalAws {
  edge: AwsEdge;
  credentials: LocalCredentials;
  /** s3rver with its own key, past the edge (set-up, the file host). */
  engineS3: S3Client;
  /** DynamoDB Local with the key whose database the edge forwards to (set-up, stream, sweeper). */
  engineDdb: DynamoDBClient;
  /** The `@connections` caller check for the gateway (lib/local/aws-edge/connections.ts). */
  manage: ManageAccess;
}

export async function startLocalAws(opts: {
  host: string;
  engines: { dynamodb: string; s3: string };
  template: TemplateJson;
  names: LocalNames;
  faults: AwsEdgeOptions['faults'];
  recorder: CallRecorder | null;
  now: AwsEdgeOptions['now'];
  log: AwsEdgeOptions['log'];
}): Promise<LocalAws> {
  const credentials = new LocalCredentials();
  const buckets = { filesPrefix: opts.names.filesPrefix, work: opts.names.work };
  const access = new EdgeAccess(opts.template, opts.names, buckets);
  const edge = await AwsEdge.start({
    host: opts.host,
    dynamodb: opts.engines.dynamodb,
    s3: opts.engines.s3,
    secretOf: credentials.secretOf,
    faults: opts.faults,
    access,
    names: opts.names,
    recorder: opts.recorder,
    now: opts.now,
    log: opts.log,
  });
  const engineS3 = new S3Client({
    region: opts.names.region,
    endpoint: opts.engines.s3,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  const engineDdb = new DynamoDBClient({
    region: opts.names.region,
    endpoint: opts.engines.dynamodb,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const manage = manageAccess({
    secretOf: credentials.secretOf,
    access,
    recorder: opts.recorder,
    names: opts.names,
    log: (level, message) => opts.log(level, message),
  });
  return { edge, credentials, engineS3, engineDdb, manage };
}
