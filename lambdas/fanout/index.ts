import { awsPlatform } from '../../shared/platform/aws';
import { awsServices } from '../../shared/platform/aws-services';
import { apiGatewaySockets } from '../../shared/platform/sockets';
import { documentClient } from '../../shared/store/clients/dynamodb';
import { DynamoConnections } from '../../shared/store/dynamo-connections';
import { dynamoMarket } from '../../shared/store/dynamo-market';
import { createHandler } from './handler';

/** The Lambda entry: the platform (only the clients `fanout` uses), its ports (its manifest access) and its handler, built once per cold start. */
export const handler = createHandler(
  awsServices('fanout', await awsPlatform({ ddb: documentClient, sockets: apiGatewaySockets }), {
    connections: (t) => new DynamoConnections(t),
    market: dynamoMarket,
  }),
);
