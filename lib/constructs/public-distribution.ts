import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  type BehaviorOptions,
  CachePolicy,
  Distribution,
  Function as EdgeFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  PriceClass,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { ORIGIN_VERIFY_HEADER } from '../../shared/http/edge';
import { LIVE_PATH } from '../../shared/topology';
import type { StageConfig } from '../stages';
import { EdgeCache } from './edge-cache';
import { suppressEdgeFindings } from './edge-findings';
import type { HttpApi } from './http-api';
import type { LiveApi } from './live-api';

/** Origin ids the live-path function switches between (CloudFront Functions select origins by id). */
const HTTP_ORIGIN_ID = 'http-api';
const LIVE_ORIGIN_ID = 'live-socket';

/**
 * Viewer-request function of the live path. A WebSocket API answers only at `/{stage}` (the root of a custom
 * domain's mapping), so upgrades are rewritten there; a plain request (no upgrade) goes to the HTTP API, whose
 * route answers 401/403/400/426.
 */
const liveRouter = (upgradePath: string): string => `import cf from 'cloudfront';
function handler(event) {
  var request = event.request;
  var upgrade = request.headers.upgrade;
  if (upgrade && upgrade.value.toLowerCase() === 'websocket') {
    request.uri = '${upgradePath}';
  } else {
    cf.selectRequestOriginById('${HTTP_ORIGIN_ID}');
  }
  return request;
}`;

/** Path patterns of the APIs: HTTPS only, so a bearer token is never sent in the clear to be redirected. */
export const API_PATHS = [LIVE_PATH, '/api/*'] as const;

/** Props of a {@link PublicDistribution}. */
export interface PublicDistributionProps {
  stage: StageConfig;
  httpApi: HttpApi;
  liveApi: LiveApi;
  logsBucket: IBucket;
  /** `{current, previous?}`: CloudFront sends `current` as the origin-verify header to both APIs. */
  originSecret: ISecret;
  /** The WAF web ACL (its ARN), where the stage has one. */
  webAclArn?: string;
}

/**
 * The public host: one CloudFront distribution in front of the HTTP API (API, pages, discovery) and the
 * live socket, so the public base URL is a single origin. Anonymous public answers are cached as their
 * `Cache-Control` allows, requests with a credential never from the cache (edge-cache.ts); the live path
 * caches nothing. Both origins receive the origin-verify header (a CloudFormation dynamic reference to the
 * secret, resolved at deploy), which the functions require.
 */
export class PublicDistribution extends Construct {
  readonly distribution: Distribution;
  /** The stage's own browser origin (`https://host`, no trailing slash). */
  readonly origin: string;

  constructor(scope: Construct, id: string, props: PublicDistributionProps) {
    super(scope, id);
    const { stage, httpApi, liveApi } = props;
    const forwardAll = {
      allowedMethods: AllowedMethods.ALLOW_ALL,
      cachePolicy: CachePolicy.CACHING_DISABLED,
      // Everything but Host (API Gateway routes on its own host), including Sec-WebSocket-* and
      // CloudFront-Viewer-Address, which the handlers use as the caller's IP on verified requests.
      originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
    } satisfies Partial<BehaviorOptions>;
    const router = new EdgeFunction(this, 'LiveRouter', {
      comment: `Routes ${LIVE_PATH} upgrades to the WebSocket stage`,
      runtime: FunctionRuntime.JS_2_0,
      code: FunctionCode.fromInline(liveRouter(liveApi.upgradePath)),
    });
    // Pages, discovery and the rest of the API: the same origin request (so the same viewer address reaches
    // the per-address limits), cached by the origin's Cache-Control, credentialed requests never from the cache.
    const edgeCache = new EdgeCache(this, 'EdgeCache', { stage: stage.stage });
    const cachePublic = {
      ...forwardAll,
      cachePolicy: edgeCache.cachePolicy,
      functionAssociations: [{ function: edgeCache.credentialGuard, eventType: FunctionEventType.VIEWER_REQUEST }],
    } satisfies Partial<BehaviorOptions>;
    // A viewer's own header of that name is overwritten by CloudFront, so only the edge can send the value.
    const customHeaders = { [ORIGIN_VERIFY_HEADER]: props.originSecret.secretValueFromJson('current').unsafeUnwrap() };
    const httpOrigin = new HttpOrigin(httpApi.domainName, { originId: HTTP_ORIGIN_ID, protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY, customHeaders });
    const liveOrigin = new HttpOrigin(liveApi.domainName, { originId: LIVE_ORIGIN_ID, protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY, customHeaders });
    const domains = stage.domains;
    const [livePath, apiPath] = API_PATHS;
    this.distribution = new Distribution(this, 'Distribution', {
      comment: `Site and API (${stage.stage})`,
      // Pages and discovery: browsers typing http:// are redirected (no credential rides on them).
      defaultBehavior: { origin: httpOrigin, ...cachePublic, viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS },
      // Matched in this order: the live path before the rest of the API.
      additionalBehaviors: {
        [livePath]: {
          origin: liveOrigin,
          ...forwardAll,
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          functionAssociations: [{ function: router, eventType: FunctionEventType.VIEWER_REQUEST }],
        },
        [apiPath]: { origin: httpOrigin, ...cachePublic, viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY },
      },
      webAclId: props.webAclArn,
      domainNames: domains ? [domains.public] : undefined,
      certificate: domains ? Certificate.fromCertificateArn(this, 'Certificate', domains.certificateArn) : undefined,
      // The default *.cloudfront.net certificate has a fixed policy; a custom one takes TLS 1.2+.
      minimumProtocolVersion: domains ? SecurityPolicyProtocol.TLS_V1_2_2021 : undefined,
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      enableLogging: true,
      logBucket: props.logsBucket,
      logFilePrefix: 'public-cdn/',
    });
    this.origin = `https://${domains ? domains.public : this.distribution.distributionDomainName}`;
    suppressEdgeFindings(this.distribution, stage, 'api');
  }
}
