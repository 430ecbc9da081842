/**
 * Schemas of the small API routes: environment (config, admin snapshot, the retired scan upload), desktop
 * updates and downloads, and the live route answered without an upgrade (spec api.md Environment, Item
 * pages and downloads, Live socket).
 */
import * as z from 'zod';
import { int, Market, Ms } from './common.schemas';
import type { DocsOf } from './route-doc';

export const ConfigAnswer = z.object({
  env: z.enum(['production', 'dev', 'preview']),
  clerkPublishableKey: z.string(),
  apiBase: z.string(),
  cdnBase: z.string(),
});
export const AdminSnapshotAnswer = z.object({ written: z.array(z.object({ market: Market, at: Ms, bytes: int() })), now: Ms });
/** The Tauri updater manifest (DESIGN). */
export const UpdateManifest = z.looseObject({
  version: z.string(),
  notes: z.string(),
  pub_date: z.string(),
  platforms: z.record(z.string(), z.object({ signature: z.string(), url: z.string() })),
});
/** `?market` of the live route: a missing or unknown market is 400 `bad_market`. */
export const LiveQuery = z.object({ market: Market });

export const environmentDocs = {
  'GET /api/v1/config': { answer: ConfigAnswer, cached: true },
  'POST /api/v1/admin/snapshot': { answer: AdminSnapshotAnswer, errors: ['forbidden', 'not_found', 'bad_origin'], callers: 'signedIn', keyExempt: true },
  // Retired: 404 whatever the request, its credential unread (spec Uploads).
  'ANY /api/v1/ah/scans': { errors: ['not_found'], callers: 'none' },
  'GET /api/v1/update/latest.json': { answer: UpdateManifest },
  'GET /api/v1/downloads/desktop/latest': { status: 302 },
  'GET /api/v1/live': { query: LiveQuery, status: 101, errors: ['forbidden', 'bad_market', 'upgrade_required'], callers: 'signedIn' },
} satisfies DocsOf<'api'>;
