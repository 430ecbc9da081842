/**
 * Every port over one platform: what the runtime's own calls outside any invocation use (the control API's
 * publishing) and what tests read and write the service's state through. No function is composed this way;
 * each builds only its own (lambdas/<fn>/handler.ts).
 */
import type { S3Client } from '@aws-sdk/client-s3';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { filesOf, workOf } from '../../../shared/platform/buckets';
import { type ClientName, coreOf, type Platform } from '../../../shared/platform/platform';
import { socketsOf } from '../../../shared/platform/sockets';
import { tableOf } from '../../../shared/platform/table';
import type { Services } from '../../../shared/services';
import { dynamoCatalogue } from '../../../shared/store/dynamo-catalogue';
import { DynamoConnections } from '../../../shared/store/dynamo-connections';
import { dynamoIdentity } from '../../../shared/store/dynamo-identity';
import { dynamoMarket } from '../../../shared/store/dynamo-market';
import { dynamoSettings } from '../../../shared/store/dynamo-settings';
import { dynamoUploads } from '../../../shared/store/dynamo-uploads';

/** Every port, and the raw clients they are built on. */
export type OperatorServices = Services & { ddb: DynamoDBDocumentClient; s3: S3Client };

export function operatorServices(p: Platform<ClientName>): OperatorServices {
  const table = tableOf(p);
  return {
    ...coreOf(p),
    ddb: p.ddb(),
    s3: p.s3(),
    connections: new DynamoConnections(table),
    sockets: socketsOf(p),
    queues: p.queues(),
    settings: dynamoSettings(table),
    identity: dynamoIdentity(table),
    uploads: dynamoUploads(table),
    catalogue: dynamoCatalogue(table),
    market: dynamoMarket(table),
    files: filesOf(p),
    work: workOf(p),
    secrets: p.secrets(),
  };
}
