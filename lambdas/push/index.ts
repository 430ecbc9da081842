import { awsPlatform } from '../../shared/platform/aws';
import { awsServices } from '../../shared/platform/aws-services';
import { documentClient } from '../../shared/store/clients/dynamodb';
import { sqsQueues } from '../../shared/store/clients/sqs';
import { dynamoSettings } from '../../shared/store/dynamo-settings';
import { secretsManager } from '../../shared/store/secrets-manager';
import { createHandler } from './handler';

/** The Lambda entry: the platform (only the clients `push` uses), its ports (its manifest access) and its handler, built once per cold start. */
export const handler = createHandler(
  awsServices('push', await awsPlatform({ ddb: documentClient, queues: sqsQueues, secrets: secretsManager }), { settings: dynamoSettings }),
);
