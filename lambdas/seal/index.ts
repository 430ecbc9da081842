import { awsPlatform } from '../../shared/platform/aws';
import { awsServices } from '../../shared/platform/aws-services';
import { s3Buckets } from '../../shared/platform/buckets';
import { documentClient } from '../../shared/store/clients/dynamodb';
import { dynamoMarket } from '../../shared/store/dynamo-market';
import { createHandler } from './handler';

/** The Lambda entry: the platform (only the clients `seal` uses), its ports (its manifest access) and its handler, built once per cold start. */
export const handler = createHandler(awsServices('seal', await awsPlatform({ ddb: documentClient, buckets: s3Buckets }), { market: dynamoMarket }));
