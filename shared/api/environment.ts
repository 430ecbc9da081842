import { NotFoundError } from '../errors';
import type { Route } from '../http/handler';
import { json } from '../http/respond';

/** GET /api/v1/config: the deployment's public settings (an API key needs `api.read`, as on every read route but the spec's exceptions). */
export const getConfig: Route = {
  access: { kind: 'public' },
  async handle({ svc }) {
    const c = svc.config;
    return json(
      200,
      { env: c.env, clerkPublishableKey: c.clerkPublishableKey, apiBase: c.apiBase, cdnBase: c.cdnBase },
      { 'cache-control': 'public, max-age=300' },
    );
  },
};

/** The retired scan upload: always 404, nothing merged or credited. */
export const retiredScans: Route = {
  access: { kind: 'retired' },
  async handle() {
    throw new NotFoundError('not_found', 'scan uploads are retired; upload order books to /api/v1/ah/books');
  },
};
