import { awsPlatform } from '../../shared/platform/aws';
import { awsServices } from '../../shared/platform/aws-services';
import { s3Buckets } from '../../shared/platform/buckets';
import { documentClient } from '../../shared/store/clients/dynamodb';
import { dynamoCatalogue } from '../../shared/store/dynamo-catalogue';
import { dynamoMarket } from '../../shared/store/dynamo-market';
import { dynamoUploads } from '../../shared/store/dynamo-uploads';
import { createHandler } from './handler';

/** The Lambda entry: the platform (only the clients `retention` uses), its ports (its manifest access) and its handler, built once per cold start. */
export const handler = createHandler(
  awsServices('retention', await awsPlatform({ ddb: documentClient, buckets: s3Buckets }), {
    uploads: dynamoUploads,
    market: dynamoMarket,
    catalogue: dynamoCatalogue,
  }),
);
