import { httpHandler } from '../../shared/http/handler';
import { filesOf, workOf } from '../../shared/platform/buckets';
import { coreOf, type Platform } from '../../shared/platform/platform';
import { tableOf } from '../../shared/platform/table';
import type { ServicesOf } from '../../shared/services';
import { dynamoCatalogue } from '../../shared/store/dynamo-catalogue';
import { dynamoIdentity } from '../../shared/store/dynamo-identity';
import { dynamoMarket } from '../../shared/store/dynamo-market';
import { dynamoSettings } from '../../shared/store/dynamo-settings';
import { dynamoUploads } from '../../shared/store/dynamo-uploads';
import { routes } from './routes';

/** The composition root of `api`: the table's ports, the files and work buckets, the origin secret. */
export function createHandler(platform: Platform<'ddb' | 's3' | 'secrets'>) {
  const table = tableOf(platform);
  const svc: ServicesOf<'api'> = {
    ...coreOf(platform),
    settings: dynamoSettings(table),
    identity: dynamoIdentity(table),
    uploads: dynamoUploads(table),
    catalogue: dynamoCatalogue(table),
    market: dynamoMarket(table),
    files: filesOf(platform),
    work: workOf(platform),
    secrets: platform.secrets(),
  };
  return httpHandler('api', routes, svc);
}
