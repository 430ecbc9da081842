import { httpHandler } from '../../shared/http/handler';
import { filesOf } from '../../shared/platform/buckets';
import { coreOf, type Platform } from '../../shared/platform/platform';
import { tableOf } from '../../shared/platform/table';
import type { ServicesOf } from '../../shared/services';
import { dynamoCatalogue } from '../../shared/store/dynamo-catalogue';
import { dynamoIdentity } from '../../shared/store/dynamo-identity';
import { dynamoMarket } from '../../shared/store/dynamo-market';
import { routes } from './routes';

/** The composition root of `pages`: accounts (admission), catalogue, market, the files bucket, the origin secret. */
export function createHandler(platform: Platform<'ddb' | 's3' | 'secrets'>) {
  const table = tableOf(platform);
  const svc: ServicesOf<'pages'> = {
    ...coreOf(platform),
    identity: dynamoIdentity(table),
    catalogue: dynamoCatalogue(table),
    market: dynamoMarket(table),
    files: filesOf(platform),
    secrets: platform.secrets(),
  };
  return httpHandler('pages', routes, svc);
}
