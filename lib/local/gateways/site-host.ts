/**
 * The website's build at the origin, as CloudFront serves the site's bucket on AWS (issue 24 point 11):
 * `/assets/<name>` from build/site, each file named by its content's hash and so cached as immutable,
 * compressed for browsers that accept gzip (CloudFront compresses them on AWS), and the service worker at
 * `/sw.js` (no-cache: its name is its scope's). Nothing else is served.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ASSETS_PREFIX, IMMUTABLE, type SiteBuild, WORKER_PATH } from '../../site-build';
import { sendJson } from './http-events';

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  json: 'application/json; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  webp: 'image/webp',
  woff2: 'font/woff2',
  webmanifest: 'application/manifest+json',
};
/** A file name of the build: no directories, no dot files. */
const NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*\.([a-z0-9]+)$/;

interface Served {
  body: Buffer;
  gzip: Buffer;
  type: string;
}

export class SiteHost {
  private readonly files = new Map<string, Served>();

  constructor(private readonly build: SiteBuild) {}

  /** Whether the path is the site's to answer. */
  static owns(path: string): boolean {
    return path.startsWith(ASSETS_PREFIX) || path === WORKER_PATH;
  }

  serve(req: IncomingMessage, res: ServerResponse, path: string): void {
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') {
      sendJson(res, 405, { error: 'method_not_allowed' }, { allow: 'GET, HEAD' });
      return;
    }
    const worker = path === WORKER_PATH;
    const file = worker ? this.worker() : this.file(path.slice(ASSETS_PREFIX.length));
    if (!file) {
      sendJson(res, 404, { error: 'not_found', message: 'no such file of the site' });
      return;
    }
    const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
    const body = gzip ? file.gzip : file.body;
    res.writeHead(200, {
      'content-type': file.type,
      'content-length': String(body.length),
      // The worker keeps its name across builds: browsers must ask for it again to see a new one.
      'cache-control': worker ? 'no-cache' : IMMUTABLE,
      'x-content-type-options': 'nosniff',
      vary: 'Accept-Encoding',
      ...(gzip ? { 'content-encoding': 'gzip' } : {}),
    });
    res.end(method === 'HEAD' ? undefined : body);
  }

  /** The service worker, `sw.js` at the build's root (not hashed: its URL is its scope's). */
  private worker(): Served | null {
    const path = join(this.build.dir, WORKER_PATH.slice(1));
    if (!existsSync(path)) return null;
    const body = readFileSync(path);
    return { body, gzip: gzipSync(body), type: TYPES.js };
  }

  private file(name: string): Served | null {
    const m = NAME.exec(name);
    if (!m || !TYPES[m[1]]) return null;
    const cached = this.files.get(name);
    if (cached) return cached;
    const path = join(this.build.dir, 'assets', name);
    if (!existsSync(path)) return null;
    const body = readFileSync(path);
    const served = { body, gzip: gzipSync(body), type: TYPES[m[1]] };
    this.files.set(name, served);
    return served;
  }
}
