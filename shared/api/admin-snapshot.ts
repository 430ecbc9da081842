/**
 * POST /api/v1/admin/snapshot (api.md Environment): admins write the hourly snapshots of the current hour now,
 * `{written: [{market, at, bytes}], now}` (every market with data; a file already written this hour is listed
 * as stored, never rewritten). Not in production: 404 there for every caller.
 */
import { requireFeature, requireSignedIn } from '../auth/gate';
import { NotFoundError } from '../errors';
import { writeAllSnapshots } from '../files/snapshot-files';
import type { Route } from '../http/handler';
import { ok } from '../http/respond';

/** POST /api/v1/admin/snapshot. */
export const postAdminSnapshot: Route = {
  access: { kind: 'public', keyExempt: true },
  async handle({ svc, principal }) {
    if (svc.config.env === 'production') throw new NotFoundError('not_found', 'no such route');
    requireSignedIn(principal);
    requireFeature(principal, 'admin');
    const written = await writeAllSnapshots(svc);
    return ok({ written, now: svc.clock.now() });
  },
};
