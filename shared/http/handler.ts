import middy from '@middy/core';
import { anonymousPrincipal, carriesCredential } from '../auth/authenticate';
import type { Principal } from '../auth/principal';
import { parseItemKey } from '../domain/item-key';
import { parseMarket } from '../domain/market';
import type { Feature } from '../domain/roles';
import { ForbiddenError, type UnavailableCode } from '../errors';
import type { Log } from '../log';
import { asksForHtml } from '../pages/negotiate';
import { pageError } from '../pages/render';
import type { ServicesOf } from '../services';
import { functionTelemetry } from '../telemetry/function-telemetry';
import { HTTP_ROUTES, type RouteKey } from '../topology';
import type { Access, QueryFeatures } from './access';
import { admit } from './admit';
import { countAnswers } from './count-answers';
import { requireEdge } from './edge';
import { gzipLarge, headerOf, httpErrors } from './middlewares';
import { rateLimitHeaders } from './rate-limit-headers';
import { toApiRequest } from './request';
import { errorResult } from './respond';
import { Router } from './router';
import type { ApiRequest, HttpEvent, HttpResult } from './types';
import { withValidator } from './validators';

export type { Access, QueryFeatures };

/** The functions that serve HTTP routes. */
export type HttpFunction = 'api' | 'upload' | 'pages';

export interface RouteContext<F extends HttpFunction = 'api'> {
  req: ApiRequest;
  /** Only the ports function `F` composes (shared/services.ts ServicesOf). */
  svc: ServicesOf<F>;
  principal: Principal;
}

/** A route of function `F` (`api` unless named): its code sees only the ports `F` composes. */
export interface Route<F extends HttpFunction = 'api'> {
  access: Access;
  /** The 503 code when the table or bucket does not answer (default `unavailable`). */
  outage?: Extract<UnavailableCode, 'unavailable' | 'storage_failed'>;
  // A property, not a method: checked strictly, so a route that needs a port `F` lacks fails the typecheck.
  handle: (ctx: RouteContext<F>) => Promise<HttpResult>;
}

/** A function's whole route table: exactly the route keys the manifest gives it (shared/topology.ts). */
export type RouteTable<F extends HttpFunction> = { readonly [K in RouteKey<F>]: Route<F> };

/** Some of a function's routes (one module of shared/api): a key the manifest does not give `F` fails the typecheck. */
export type RoutesOf<F extends HttpFunction> = { readonly [K in RouteKey<F>]?: Route<F> };

const router = new Router(HTTP_ROUTES);

/** A browser asking for a page (not an API path): it gets a page, other callers and `/api/` JSON. */
const wantsPage = (req: ApiRequest): boolean =>
  (req.method === 'GET' || req.method === 'HEAD') && !req.path.startsWith('/api/') && asksForHtml(req.headers.accept);

/**
 * 404 / 405 for paths no route of the API serves; still authenticated and rate limited like any `/api/v1/` request.
 * A browser's 404 is a page (issue 24 point 1), never the app: unknown paths answer no application shell.
 */
const FALLBACK: Route<HttpFunction> = {
  access: { kind: 'public', keyExempt: true, writesNothing: true },
  async handle({ req, svc }) {
    const m = router.match(req.method, req.path);
    if (m.kind === 'method_not_allowed') return errorResult('method_not_allowed', `${req.method} is not supported here`, {}, { allow: m.allow.join(', ') });
    if (wantsPage(req)) return pageError('html', svc.config.publicBase, 'not_found', 'There is no page at this address.');
    const answer = errorResult('not_found', 'no such route');
    return req.path.startsWith('/api/') ? answer : { ...answer, headers: { ...answer.headers, vary: 'Accept' } };
  },
};

/** Resolves the route of an event: API Gateway's route key, else our own matching (the `$default` route). */
function resolve<F extends HttpFunction>(event: HttpEvent, table: Readonly<Record<string, Route<F>>>): { route: Route<F>; params: Record<string, string> } {
  const direct = table[event.routeKey];
  if (direct) return { route: direct, params: {} };
  const m = router.match(event.requestContext.http.method, event.rawPath);
  if (m.kind === 'route' && table[m.routeKey]) return { route: table[m.routeKey], params: m.params };
  return { route: FALLBACK, params: {} };
}

/** The RateLimit fields of each request admission counted, and whether it came without a credential. */
const metered = new WeakMap<HttpEvent, { fields: Record<string, string>; anonymous: boolean }>();

/** Whether `Cache-Control` lets a shared cache keep the answer for others (`public`). */
const sharedCacheable = (result: HttpResult): boolean => /(^|[\s,])public([\s,]|$)/i.test(String(result.headers?.['cache-control'] ?? ''));

/**
 * An answer with its request's RateLimit fields, on success and error alike (none when the request was not
 * counted, e.g. a 401). An anonymous request's `public` answer goes without them: the public host keeps that
 * answer for every anonymous caller (issue 26 point 6), and one address's count is not another's.
 */
const withRateLimit = (event: HttpEvent, result: HttpResult): HttpResult => {
  const m = metered.get(event);
  if (!m || (m.anonymous && sharedCacheable(result))) return result;
  return { ...result, headers: { ...result.headers, ...m.fields } };
};

/**
 * The middy stack of an HTTP function: refuse what did not come through CloudFront (before anything else),
 * resolve the route, admit the caller, run the route; then, on the way out (middy runs `after` in reverse
 * order of `use`): gzip a large answer, tag a cacheable one on the bytes as sent (304 on a matching
 * `If-None-Match`), add the RateLimit fields, drop HEAD's body. Errors are mapped once (httpErrors); counted
 * requests carry the RateLimit fields either way. Telemetry first: the answer is counted, then metrics flushed.
 */
export function httpHandler<F extends HttpFunction>(fn: F, table: RouteTable<F>, svc: ServicesOf<F>) {
  const t = functionTelemetry(fn);
  const routes = table as Readonly<Record<string, Route<F>>>;
  const log: Log = svc.log;
  const chain = middy<HttpEvent, HttpResult>()
    .use(t.middlewares())
    .use(countAnswers(fn))
    .use(httpErrors({ outage: (event) => resolve(event, routes).route.outage ?? 'unavailable', log, decorate: withRateLimit }))
    .use({
      before: async (request) => {
        await requireEdge(svc, request.event.headers);
      },
    })
    .use({
      after: async (request) => {
        const { event, response } = request;
        if (!response) return;
        const result = withRateLimit(event, response);
        log('debug', 'answer', { route: event.routeKey, status: result.statusCode });
        // Set, not returned: a value returned from `after` would end the chain before the telemetry's `after`.
        request.response = event.requestContext.http.method.toUpperCase() === 'HEAD' ? { ...result, body: '' } : result;
      },
    })
    .use({
      // Tagged on the bytes as sent (after gzip, whose `after` runs first), before HEAD drops them: HEAD carries GET's tag.
      after: async (request) => {
        if (request.response)
          request.response = withValidator(request.event.requestContext.http.method.toUpperCase(), headerOf(request.event, 'if-none-match'), request.response);
      },
    })
    .use(gzipLarge())
    .handler(async (event) => {
      const { route, params } = resolve(event, routes);
      const req = toApiRequest(event, params, true);
      const principal =
        route.access.kind === 'retired'
          ? anonymousPrincipal(req.ip, svc.clock.now())
          : await admit(req, route.access, svc, (m) => metered.set(event, { fields: rateLimitHeaders(m), anonymous: !carriesCredential(req) }));
      checkPathParams(req.params);
      return route.handle({ req, svc, principal });
    });
  return t.handler(chain);
}

/** Path rules shared by every route, checked after admission (DESIGN: check order): markets and item keys. */
function checkPathParams(params: Record<string, string>): void {
  if ('market' in params) parseMarket(params.market);
  if ('item' in params) parseItemKey(params.item);
}

export const requireFeature = (p: Principal, f: Feature): void => {
  if (!p.features.includes(f)) throw new ForbiddenError('forbidden', `needs the ${f} feature`, { feature: f });
};
