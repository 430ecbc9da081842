import { awsPlatform } from '../../shared/platform/aws';
import { awsServices } from '../../shared/platform/aws-services';
import { s3Buckets } from '../../shared/platform/buckets';
import { documentClient } from '../../shared/store/clients/dynamodb';
import { sqsQueues } from '../../shared/store/clients/sqs';
import { dynamoIdentity } from '../../shared/store/dynamo-identity';
import { dynamoMarket } from '../../shared/store/dynamo-market';
import { dynamoSettings } from '../../shared/store/dynamo-settings';
import { secretsManager } from '../../shared/store/secrets-manager';
import { createHandler } from './handler';

/** The Lambda entry: the platform (only the clients `merge` uses), its ports (its manifest access) and its handler, built once per cold start. */
export const handler = createHandler(
  awsServices('merge', await awsPlatform({ ddb: documentClient, buckets: s3Buckets, queues: sqsQueues, secrets: secretsManager }), {
    market: dynamoMarket,
    settings: dynamoSettings,
    identity: dynamoIdentity,
  }),
);
