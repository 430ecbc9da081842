/**
 * Desktop updates and downloads (spec api.md: Item pages and downloads; DESIGN: the updater manifest is the
 * Tauri updater's `{version, notes, pub_date, platforms: {<target>: {signature, url}}}`, stored per stage).
 * A stage's own release lives in its files bucket under `releases/`; without one, the default in
 * shared/assets/ answers, so the routes work locally.
 */
import defaultInstaller from '../assets/desktop-installer.json' with { type: 'json' };
import defaultManifest from '../assets/update-manifest.json' with { type: 'json' };
import type { Route, RoutesOf } from '../http/handler';
import type { HttpResult } from '../http/types';
import { getObject } from '../items/bucket';
import type { Services } from '../services';

/** A stage's own manifest and installer name (written by the release pipeline). */
export const RELEASE_MANIFEST_PATH = 'releases/update/latest.json';
export const RELEASE_INSTALLER_PATH = 'releases/downloads/latest.json';

export interface UpdateManifest {
  version: string;
  notes: string;
  pub_date: string;
  platforms: Record<string, { signature: string; url: string }>;
}

const isManifest = (v: unknown): v is UpdateManifest => {
  const m = v as UpdateManifest | null;
  return !!m && typeof m === 'object' && typeof m.version === 'string' && !!m.platforms && typeof m.platforms === 'object';
};

async function storedJson(svc: Pick<Services, 'files' | 'log'>, path: string): Promise<unknown> {
  const obj = await getObject(svc, path);
  if (!obj) return undefined;
  try {
    return JSON.parse(obj.data.toString('utf8'));
  } catch {
    svc.log('warn', 'release file is not JSON; serving the default', { path });
    return undefined;
  }
}

/** The stage's manifest, else the default with `{cdn_base}` in its URLs replaced by this deployment's file host. */
export async function updateManifest(svc: Pick<Services, 'config' | 'files' | 'log'>): Promise<UpdateManifest> {
  const stored = await storedJson(svc, RELEASE_MANIFEST_PATH);
  if (isManifest(stored)) return stored;
  const text = JSON.stringify(defaultManifest).replaceAll('{cdn_base}', svc.config.cdnBase);
  return JSON.parse(text) as UpdateManifest;
}

/** The current installer's file name under `releases/downloads/`. */
export async function installerName(svc: Pick<Services, 'files' | 'log'>): Promise<string> {
  const stored = (await storedJson(svc, RELEASE_INSTALLER_PATH)) as { installer?: unknown } | undefined;
  const name = typeof stored?.installer === 'string' ? stored.installer : defaultInstaller.installer;
  return name;
}

/** GET /api/v1/update/latest.json: the updater manifest, never cached. */
export const getUpdateManifest: Route = {
  access: { kind: 'public' },
  async handle({ svc }): Promise<HttpResult> {
    return {
      statusCode: 200,
      headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
      body: JSON.stringify(await updateManifest(svc)),
    };
  },
};

/** GET /api/v1/downloads/desktop/latest: 302 to `{cdn_base}releases/downloads/<installer>`. */
export const getDesktopDownload: Route = {
  access: { kind: 'public' },
  async handle({ svc }): Promise<HttpResult> {
    const location = `${svc.config.cdnBase}releases/downloads/${encodeURIComponent(await installerName(svc))}`;
    return { statusCode: 302, headers: { location, 'cache-control': 'no-store' }, body: '' };
  },
};

export const updateRoutes = {
  'GET /api/v1/update/latest.json': getUpdateManifest,
  'GET /api/v1/downloads/desktop/latest': getDesktopDownload,
} satisfies RoutesOf<'api'>;
