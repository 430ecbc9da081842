import { awsPlatform } from '../../shared/platform/aws';
import { awsServices } from '../../shared/platform/aws-services';
import { documentClient } from '../../shared/store/clients/dynamodb';
import { DynamoConnections } from '../../shared/store/dynamo-connections';
import { dynamoIdentity } from '../../shared/store/dynamo-identity';
import { secretsManager } from '../../shared/store/secrets-manager';
import { createHandler } from './handler';

/** The Lambda entry: the platform (only the clients `ws-connect` uses), its ports (its manifest access) and its handler, built once per cold start. */
export const handler = createHandler(
  awsServices('ws-connect', await awsPlatform({ ddb: documentClient, secrets: secretsManager }), {
    identity: dynamoIdentity,
    connections: (t) => new DynamoConnections(t),
  }),
);
