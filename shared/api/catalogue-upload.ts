/** POST /api/v1/items/seen (spec api.md: Item data, Catalogue upload rules): an app reports the items it saw. */
import { CATALOGUE_MAX_BYTES, catalogueAccount } from '../domain/item-catalogue';
import { LimitError, ValidationError } from '../errors';
import type { Route, RoutesOf } from '../http/handler';
import { ok } from '../http/respond';
import { readBody } from '../upload/body';
import { requireUploader } from '../upload/uploader';
import { CatalogueUploadBody } from './catalogue-upload.schemas';
import { parseAs } from './zod-parse';

/**
 * POST /api/v1/items/seen `{build?, items}` → `{added, known}`; checks 401/403 (uploaders only), then 413
 * (4 MiB), then 400, then the account's daily quota of keys new to the catalogue (issue 23): an upload that
 * would pass it records nothing and is 429 `rate_limited` with `Retry-After: 60`.
 */
export const postItemsSeen: Route<'upload'> = {
  access: { kind: 'signedIn' },
  async handle({ req, svc, principal }) {
    requireUploader(principal);
    const raw = readBody(req.body, req.headers['content-encoding'], CATALOGUE_MAX_BYTES, 'bad_request');
    let value: unknown;
    try {
      value = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new ValidationError('bad_request', 'the body is not JSON');
    }
    const upload = parseAs(CatalogueUploadBody, value, 'bad_request');
    const account = catalogueAccount(principal.userId);
    const quota = svc.config.catalogueKeysPerDay;
    const outcome = await svc.catalogue.recordCatalogueReports(account, upload.items, svc.clock.now(), quota);
    if (outcome.overQuota) throw new LimitError('rate_limited', `more than ${quota} keys new to the catalogue today`, {}, 60);
    return ok({ added: outcome.added, known: outcome.known });
  },
};

export const catalogueRoutes = {
  'POST /api/v1/items/seen': postItemsSeen,
} satisfies RoutesOf<'upload'>;
