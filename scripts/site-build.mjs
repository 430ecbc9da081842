// The website's build (issue 24 point 11): `npm run build` writes it to build/site (git-ignored); `npm start`,
// `npm test` and the integration tests' setup build it when it is missing or older than its sources, so a
// fresh clone works without a separate step. Plain JavaScript: scripts/ensure.mjs runs before tsx exists.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SITE_DIR = join(ROOT, 'build', 'site');
export const SITE_MANIFEST = join(SITE_DIR, '.vite', 'manifest.json');
/** What the build is made of: the app, the client module, domain rules and page helpers (prices, market names) it imports, the build's configuration. */
const SOURCES = ['app', 'shared/client', 'shared/domain', 'shared/pages', 'shared/clock.ts', 'vite.config.ts', 'package-lock.json'];

function newest(path) {
  if (!existsSync(path)) return 0;
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  let t = s.mtimeMs;
  for (const e of readdirSync(path)) t = Math.max(t, newest(join(path, e)));
  return t;
}

/** Whether build/site is missing or older than any of its sources. */
export function siteBuildStale() {
  if (!existsSync(SITE_MANIFEST)) return true;
  const built = statSync(SITE_MANIFEST).mtimeMs;
  return SOURCES.some((s) => newest(join(ROOT, s)) > built);
}

/** Builds the site when stale; throws with Vite's output when the build fails. */
export function ensureSiteBuild({ quiet = false } = {}) {
  if (!siteBuildStale()) return false;
  if (!quiet) console.log('Building the website (build/site)...');
  const r = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build'], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`the website's build failed (npm run build):\n${r.stdout}\n${r.stderr}`);
  return true;
}
