/**
 * The one HTTP listener's routing, as the stage's edge and gateways divide a request: the control API
 * (`/_local/…`, loopback `Host` only, nothing a page of another site sends: lib/local/control/control-guard.ts), the file host (CloudFront, `/cdn/…`),
 * the website's build (CloudFront and the site's bucket, `/assets/…`), the WebSocket API's `@connections`
 * endpoint and upgrade, and the HTTP API for everything else. The direct listener (no edge) serves the APIs only.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Log } from '../../../shared/log';
import { LIVE_PATH } from '../../../shared/topology';
import { contentTypeRefusal, crossSiteRefusal } from '../control/control-guard';
import { CONTROL_ROUTES } from '../control/control-routes';
import type { LocalIdentity } from '../identity/identity';
import type { FileHost } from './file-host';
import type { HttpApi } from './http-api';
import { REQUEST_HEAD_MAX_BYTES, readBody, requestHeadBytes, sendJson, TOO_LARGE_HEAD } from './http-events';
import type { LiveGateway } from './live-gateway';
import { SiteHost } from './site-host';

/** The control API (not part of the emulated API Gateway) reads bodies up to this size. */
const MAX_LOCAL_BODY = 40 * 1024 * 1024;

export interface EdgeParts {
  /** The printed base URL. */
  base: string;
  /** The WebSocket API's stage in `@connections` URLs. */
  stage: string;
  /** `Host` values of the control API: the printed loopback address and `localhost`, with the port. */
  controlHosts: readonly string[];
  /** The origin-verify value the edge adds to what it forwards. */
  originVerify: string;
  identity: LocalIdentity;
  /** The control API's routes (lib/local/control/control.ts); false when none matched. */
  control: (req: IncomingMessage, res: ServerResponse, url: URL, body: Buffer) => Promise<boolean>;
  fileHost: FileHost;
  /** The website's build (`/assets/…`). */
  site: SiteHost;
  live: LiveGateway;
  httpApi: HttpApi;
  log: Log;
}

export class Edge {
  /** The origins of the runtime's own pages (`http://` and a control host), the only `Origin` the control API takes. */
  private readonly ownOrigins: readonly string[];

  constructor(private readonly parts: EdgeParts) {
    this.ownOrigins = parts.controlHosts.map((h) => `http://${h.toLowerCase()}`);
  }

  /**
   * Whether a request may reach the control API or the `@connections` endpoint: its `Host` must be the
   * loopback address and port the runtime printed (or `localhost:port`), so a page whose name was rebound
   * to 127.0.0.1 (DNS rebinding) cannot drive it. The runtime's own calls (identity provider, JWKS,
   * `@connections`) use the printed base URL.
   */
  private controlHostAllowed(req: IncomingMessage): boolean {
    return this.parts.controlHosts.includes(String(req.headers.host ?? '').toLowerCase());
  }

  /** One request; `edge` false on the direct listener, which serves only the APIs. */
  async onRequest(req: IncomingMessage, res: ServerResponse, edge = true): Promise<void> {
    const p = this.parts;
    try {
      const url = new URL(req.url ?? '/', p.base);
      const path = url.pathname;
      if (!edge) {
        await p.httpApi.handle(req, res, url, null);
        return;
      }
      const conn = path.match(/^\/([^/]+)\/@connections\/([^/]+)$/);
      if ((path.startsWith('/_local/') || (conn && conn[1] === p.stage)) && !this.controlHostAllowed(req)) {
        sendJson(res, 403, { error: 'bad_host', message: `answered only at ${p.controlHosts.join(' or ')}` });
        return;
      }
      if (path.startsWith('/_local/') || (conn && conn[1] === p.stage)) {
        const refused = crossSiteRefusal(req.headers, this.ownOrigins);
        if (refused) return sendJson(res, refused.status, { error: refused.error, message: refused.message });
      }
      if (path.startsWith('/_local/')) {
        const body = (await readBody(req, MAX_LOCAL_BODY)) ?? Buffer.alloc(0);
        // The sign-in page's own form (lib/local/identity/identity-site.ts) posts a form from this origin: its Origin was
        // checked above, and a browser always sends it on a POST, so a form without one is refused as before.
        const ownForm = path === '/_local/idp/sign-in' && req.headers.origin !== undefined;
        const refused = ownForm ? null : contentTypeRefusal(req.headers, body.length);
        if (refused) return sendJson(res, refused.status, { error: refused.error, message: refused.message });
        if (path.startsWith('/_local/idp') || path.startsWith('/_local/users') || path.startsWith('/_local/sessions') || path.startsWith('/_local/api-keys')) {
          if (await p.identity.handle(req, res, url, body)) return;
        } else if (await p.control(req, res, url, body)) {
          return;
        }
        sendJson(res, 404, { error: 'not_found', message: `no control route ${req.method} ${path}: the routes are ${CONTROL_ROUTES.join(', ')}` });
        return;
      }
      if (SiteHost.owns(path)) {
        p.site.serve(req, res, path);
        return;
      }
      if (path.startsWith('/cdn/')) {
        await p.fileHost.serve(req, res, path.slice('/cdn/'.length));
        return;
      }
      if (conn && conn[1] === p.stage) {
        await p.live.manage(req, res, decodeURIComponent(conn[2]));
        return;
      }
      await p.httpApi.handle(req, res, url, p.originVerify);
    } catch (err) {
      p.log('error', 'gateway failure', { error: err instanceof Error ? err.stack : String(err) });
      if (!res.headersSent) sendJson(res, 500, { error: 'internal' });
      else res.destroy();
    }
  }

  /** A WebSocket upgrade: only at the live path, within API Gateway's head quota. */
  onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, edge = true): void {
    const p = this.parts;
    const url = new URL(req.url ?? '/', p.base);
    if (url.pathname !== LIVE_PATH) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    if (requestHeadBytes(req) > REQUEST_HEAD_MAX_BYTES) {
      const body = JSON.stringify(TOO_LARGE_HEAD);
      socket.end(
        `HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      return;
    }
    p.live.upgrade(req, socket, head, url, edge ? p.originVerify : null).catch((err) => {
      p.log('error', 'upgrade failed', { error: String(err) });
      socket.destroy();
    });
  }
}
