import { awsPlatform } from '../../shared/platform/aws';
import { awsServices } from '../../shared/platform/aws-services';
import { s3Buckets } from '../../shared/platform/buckets';
import { documentClient } from '../../shared/store/clients/dynamodb';
import { sqsQueues } from '../../shared/store/clients/sqs';
import { secretsManager } from '../../shared/store/secrets-manager';
import { createHandler } from './handler';

/** The Lambda entry: the platform (only the clients `upload` uses), its ports (its manifest access) and its handler, built once per cold start. */
export const handler = createHandler(
  awsServices('upload', await awsPlatform({ ddb: documentClient, buckets: s3Buckets, queues: sqsQueues, secrets: secretsManager })),
);
