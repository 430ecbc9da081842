import { httpHandler } from '../../shared/http/handler';
import { filesOf } from '../../shared/platform/buckets';
import { coreOf, type Platform } from '../../shared/platform/platform';
import { tableOf } from '../../shared/platform/table';
import type { ServicesOf } from '../../shared/services';
import { dynamoCatalogue } from '../../shared/store/dynamo-catalogue';
import { dynamoIdentity } from '../../shared/store/dynamo-identity';
import { dynamoMarket } from '../../shared/store/dynamo-market';
import { dynamoUploads } from '../../shared/store/dynamo-uploads';
import { routes } from './routes';

/** The composition root of `upload`: accounts, uploads, catalogue, market, the files bucket, the merge queues. */
export function createHandler(platform: Platform<'ddb' | 's3' | 'queues' | 'secrets'>) {
  const table = tableOf(platform);
  const svc: ServicesOf<'upload'> = {
    ...coreOf(platform),
    identity: dynamoIdentity(table),
    uploads: dynamoUploads(table),
    catalogue: dynamoCatalogue(table),
    market: dynamoMarket(table),
    files: filesOf(platform),
    queues: platform.queues(),
    secrets: platform.secrets(),
  };
  return httpHandler('upload', routes, svc);
}
