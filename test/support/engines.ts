/**
 * The run's storage engines (started once by test/support/global-setup.ts) as the adapters use them: a fresh
 * table or bucket per suite, so suites never see each other's items.
 */
import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { inject } from 'vitest';
import { ensureBucket, ensureTable } from '../../lib/local/engines/storage';
import type { Clock } from '../../shared/clock';
import { documentClient } from '../../shared/store/clients/dynamodb';
import type { ClientConfig } from '../../shared/store/clients/options';
import { s3Client } from '../../shared/store/clients/s3';
import type { Table } from '../../shared/store/table';

const suffix = () => randomBytes(5).toString('hex');

/**
 * The client configuration of the engines (local endpoints), reached directly with their own keys: DynamoDB
 * Local keeps one database per access key (`local`, as the local AWS edge forwards), s3rver knows only its own.
 */
export function engineConfig(service: 'dynamodb' | 's3'): ClientConfig {
  return {
    region: 'us-east-1',
    endpoints: { dynamodb: inject('dynamodbEndpoint'), s3: inject('s3Endpoint') },
    connectionsEndpoint: 'http://127.0.0.1:1/local',
    credentials: service === 'dynamodb' ? { accessKeyId: 'local', secretAccessKey: 'local' } : { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  };
}

/** A new table on DynamoDB Local. */
export async function freshTable(clock: Clock, name = `contract-${suffix()}`): Promise<Table> {
  const config = engineConfig('dynamodb');
  await ensureTable(
    new DynamoDBClient({ region: 'us-east-1', endpoint: config.endpoints.dynamodb, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
    name,
  );
  return { ddb: documentClient(config), name, clock };
}

/** A new bucket on the local S3 server, and the client to reach it. */
export async function freshBucket(name = `contract-${suffix()}`) {
  const s3 = s3Client(engineConfig('s3'));
  await ensureBucket(s3, name);
  return { s3, bucket: name };
}
