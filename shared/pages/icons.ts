/**
 * Icons (spec api.md: Item data, icons): `GET /icons/<icon>.webp` and `GET /icons/id/<fileID>.webp` serve the
 * 56x56 WebP images stored under `icons/` in the files bucket, immutable; 404 when there is none.
 */

import { iconIdPath, iconPath } from '../domain/file-paths';
import { NotFoundError } from '../errors';
import type { Route } from '../http/handler';
import { binary } from '../http/respond';
import { getObject } from '../items/bucket';
import type { Services } from '../services';

const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Icon names are lowercase file names without extension (spec: `ic`); the path adds `.webp`. */
const ICON_SEGMENT = /^([a-z0-9_-][a-z0-9_.-]{0,127})\.webp$/;
const FILE_ID_SEGMENT = /^([1-9][0-9]{0,15})\.webp$/;

async function serveIcon(svc: Pick<Services, 'files'>, path: string | null) {
  const obj = path ? await getObject(svc, path) : null;
  if (!obj) throw new NotFoundError('not_found', 'no such icon');
  return binary(200, obj.data, { 'content-type': 'image/webp', 'cache-control': IMMUTABLE });
}

/** GET /icons/<icon>.webp */
export const getIcon: Route<'pages'> = {
  access: { kind: 'public', keyExempt: true },
  async handle({ req, svc }) {
    const m = ICON_SEGMENT.exec(req.params.icon ?? '');
    return serveIcon(svc, m ? iconPath(m[1]) : null);
  },
};

/** GET /icons/id/<fileID>.webp */
export const getIconById: Route<'pages'> = {
  access: { kind: 'public', keyExempt: true },
  async handle({ req, svc }) {
    const m = FILE_ID_SEGMENT.exec(req.params.fileId ?? '');
    const id = m ? Number(m[1]) : Number.NaN;
    return serveIcon(svc, Number.isSafeInteger(id) ? iconIdPath(id) : null);
  },
};
