import { awsPlatform } from '../../shared/platform/aws';
import { documentClient } from '../../shared/store/clients/dynamodb';
import { s3Client } from '../../shared/store/clients/s3';
import { createHandler } from './handler';

/** The Lambda entry: the platform (only the clients `seal` uses) and its handler, built once per cold start. */
export const handler = createHandler(await awsPlatform({ ddb: documentClient, s3: s3Client }));
