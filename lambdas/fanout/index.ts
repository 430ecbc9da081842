import { awsPlatform } from '../../shared/platform/aws';
import { connectionsClient } from '../../shared/store/clients/connections';
import { documentClient } from '../../shared/store/clients/dynamodb';
import { createHandler } from './handler';

/** The Lambda entry: the platform (only the clients `fanout` uses) and its handler, built once per cold start. */
export const handler = createHandler(await awsPlatform({ ddb: documentClient, connections: connectionsClient }));
