/**
 * Issue 26 point 6: the public host caches what the spec marks public (pages, hourly answers, item data,
 * `/api/v1/items/unknown`, discovery, config) for anonymous callers, and never answers a request that carries
 * a credential from its cache.
 *
 * - The cache key is the path, every query parameter and `Accept` (pages' HTML and Markdown are separate
 *   entries, spec: `Vary: Accept`), plus `Accept-Encoding` as CloudFront normalizes it (gzip/br). How long an
 *   answer stays is the origin's `Cache-Control` alone (minimum and default TTL 0): `private`/`no-store`
 *   answers (errors, live answers, the caller's own data) are never stored, and an answer without a lifetime
 *   is not kept.
 * - A credential is what `authenticate` reads (shared/auth/authenticate.ts): the `Authorization` header, the
 *   `__session` cookie, the `?token=` parameter (API keys and device tokens ride in `Authorization`). The
 *   viewer-request function below gives a request carrying any of them its own cache-key part, the request's
 *   id, so no two such requests share an entry: a credentialed request never gets an anonymous copy (a live
 *   caller would otherwise get the hourly answer), another caller's copy, or its own earlier one (a revoked
 *   key or a lost feature takes effect at once). `Authorization` and the cookie are in the key as well, which
 *   is also how CloudFront lets `Authorization` reach the origin when it caches.
 * - What reaches the origin is unchanged (the managed AllViewerExceptHostHeader policy): every viewer header
 *   but `Host`, and `CloudFront-Viewer-Address`, the address the per-address limits count (shared/http/request.ts).
 */
import { Duration } from 'aws-cdk-lib';
import {
  CacheCookieBehavior,
  CacheHeaderBehavior,
  CachePolicy,
  CacheQueryStringBehavior,
  Function as EdgeFunction,
  FunctionCode,
  FunctionRuntime,
} from 'aws-cdk-lib/aws-cloudfront';
import { Construct } from 'constructs';
import { QUERY_TOKEN_PARAM, SESSION_COOKIE } from '../../shared/auth/authenticate';

/** The cache-key header the viewer-request function sets on credentialed requests (and strips from the rest). */
export const EDGE_PRIVATE_HEADER = 'x-edge-private';

/** Viewer headers in the cache key, besides CloudFront's normalized `Accept-Encoding`. */
export const CACHE_KEY_HEADERS = ['Authorization', 'Accept', EDGE_PRIVATE_HEADER] as const;

/**
 * The longest an answer stays at the edge, whatever its `max-age`: the hourly answers and the snapshot live at
 * most an hour and two minutes; icons (a year in browsers) are re-read from the origin at most daily per
 * location, and an answer made public by mistake leaves every edge within a day without an invalidation.
 */
export const EDGE_MAX_TTL = Duration.days(1);

/**
 * Source of the viewer-request function (cloudfront-js-2.0). A credential's mere presence counts, even an
 * empty or malformed one (the origin answers those 401 or as anonymous: never a reason to share a copy).
 * A viewer's own `x-edge-private` is dropped, so only the edge decides which requests are private.
 */
export const credentialGuardSource = (): string => `function handler(event) {
  var request = event.request;
  var headers = request.headers;
  var cookies = request.cookies || {};
  var query = request.querystring || {};
  var credentialed = headers.authorization !== undefined || cookies[${JSON.stringify(SESSION_COOKIE)}] !== undefined || query[${JSON.stringify(QUERY_TOKEN_PARAM)}] !== undefined;
  if (credentialed) headers[${JSON.stringify(EDGE_PRIVATE_HEADER)}] = { value: event.context.requestId };
  else delete headers[${JSON.stringify(EDGE_PRIVATE_HEADER)}];
  return request;
}`;

/** The public host's cache policy for the API and pages, and the function that keeps credentialed requests out of it. */
export class EdgeCache extends Construct {
  readonly cachePolicy: CachePolicy;
  readonly credentialGuard: EdgeFunction;

  constructor(scope: Construct, id: string, props: { stage: string }) {
    super(scope, id);
    this.cachePolicy = new CachePolicy(this, 'PublicAnswers', {
      comment: `Public answers (${props.stage}): origin Cache-Control decides; path, query, Accept`,
      minTtl: Duration.seconds(0),
      defaultTtl: Duration.seconds(0),
      maxTtl: EDGE_MAX_TTL,
      headerBehavior: CacheHeaderBehavior.allowList(...CACHE_KEY_HEADERS),
      cookieBehavior: CacheCookieBehavior.allowList(SESSION_COOKIE),
      queryStringBehavior: CacheQueryStringBehavior.all(),
      enableAcceptEncodingGzip: true,
      enableAcceptEncodingBrotli: true,
    });
    this.credentialGuard = new EdgeFunction(this, 'CredentialGuard', {
      comment: 'Keeps requests with a credential out of the shared cache',
      runtime: FunctionRuntime.JS_2_0,
      code: FunctionCode.fromInline(credentialGuardSource()),
    });
  }
}
