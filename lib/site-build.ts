/**
 * The website's build as the stack deploys it and the local runtime serves it (issue 24 point 11): the
 * directory (`assets/` only holds files named by their content's hash, so they are cached as immutable) and
 * the path of the app's entry script, which every server-rendered page loads (`SITE_ENTRY`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureSiteBuild, SITE_DIR } from '../scripts/site-build.mjs';

/** Where the hashed files are served from: `/assets/…` at the site's origin. */
export const ASSETS_PREFIX = '/assets/';
/** How the hashed files are cached: a changed file has another name. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** The service worker (app/sw.ts) at the origin's root, so its scope is every page; revalidated on each load. */
export const WORKER_PATH = '/sw.js';

export interface SiteBuild {
  /** build/site: `assets/` and Vite's manifest. */
  dir: string;
  /** The entry script's path at the origin (`/assets/main-<hash>.js`). */
  entry: string;
}

/** The build on disk, or null when there is none (`npm run build` makes it). */
export function readSiteBuild(dir: string = SITE_DIR): SiteBuild | null {
  const manifest = join(dir, '.vite', 'manifest.json');
  if (!existsSync(manifest)) return null;
  const chunks = JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, { file: string; isEntry?: boolean }>;
  // The app's entry: the other entry, the service worker, is `sw.js` at the root (lib/local/gateways/site-host.ts).
  const entry = Object.values(chunks).find((c) => c.isEntry && c.file.startsWith('assets/'));
  if (!entry?.file.startsWith('assets/')) throw new Error(`${manifest} names no entry under assets/: run npm run build`);
  return { dir, entry: `/${entry.file}` };
}

/** The build, made first when missing or older than its sources (as `npm start` does). */
export function siteBuild(): SiteBuild {
  ensureSiteBuild({ quiet: true });
  const b = readSiteBuild();
  if (!b) throw new Error('the website was not built: run npm run build');
  return b;
}
