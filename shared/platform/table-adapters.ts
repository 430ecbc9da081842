/**
 * Every table port's adapter, for the places that build every port or any function's (the local runtime's
 * functions and operator). A Lambda entry names only its own (`awsServices(fn, platform, tables)`), so its
 * bundle holds no other table adapter.
 */
import { dynamoCatalogue } from '../store/dynamo-catalogue';
import { DynamoConnections } from '../store/dynamo-connections';
import { dynamoIdentity } from '../store/dynamo-identity';
import { dynamoMarket } from '../store/dynamo-market';
import { dynamoSettings } from '../store/dynamo-settings';
import { dynamoUploads } from '../store/dynamo-uploads';
import type { TableAdapters } from './aws-services';

export const TABLE_ADAPTERS: TableAdapters = {
  market: dynamoMarket,
  settings: dynamoSettings,
  identity: dynamoIdentity,
  uploads: dynamoUploads,
  catalogue: dynamoCatalogue,
  connections: (table) => new DynamoConnections(table),
};
