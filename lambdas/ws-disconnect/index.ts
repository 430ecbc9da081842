import { awsPlatform } from '../../shared/platform/aws';
import { awsServices } from '../../shared/platform/aws-services';
import { documentClient } from '../../shared/store/clients/dynamodb';
import { DynamoConnections } from '../../shared/store/dynamo-connections';
import { createHandler } from './handler';

/** The Lambda entry: the platform (only the clients `ws-disconnect` uses), its ports (its manifest access) and its handler, built once per cold start. */
export const handler = createHandler(
  awsServices('ws-disconnect', await awsPlatform({ ddb: documentClient }), { connections: (t) => new DynamoConnections(t) }),
);
