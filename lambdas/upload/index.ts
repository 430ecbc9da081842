import { awsPlatform } from '../../shared/platform/aws';
import { awsServices } from '../../shared/platform/aws-services';
import { s3Buckets } from '../../shared/platform/buckets';
import { documentClient } from '../../shared/store/clients/dynamodb';
import { sqsQueues } from '../../shared/store/clients/sqs';
import { dynamoCatalogue } from '../../shared/store/dynamo-catalogue';
import { dynamoIdentity } from '../../shared/store/dynamo-identity';
import { dynamoMarket } from '../../shared/store/dynamo-market';
import { dynamoUploads } from '../../shared/store/dynamo-uploads';
import { secretsManager } from '../../shared/store/secrets-manager';
import { createHandler } from './handler';

/** The Lambda entry: the platform (only the clients `upload` uses), its ports (its manifest access) and its handler, built once per cold start. */
export const handler = createHandler(
  awsServices('upload', await awsPlatform({ ddb: documentClient, buckets: s3Buckets, queues: sqsQueues, secrets: secretsManager }), {
    identity: dynamoIdentity,
    uploads: dynamoUploads,
    catalogue: dynamoCatalogue,
    market: dynamoMarket,
  }),
);
