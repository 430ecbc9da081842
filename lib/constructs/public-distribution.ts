import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  Function as EdgeFunction,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  PriceClass,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
  type BehaviorOptions,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import type { StageConfig } from '../stages';
import { LIVE_PATH } from '../topology';
import { suppressEdgeFindings } from './edge-findings';
import type { HttpApi } from './http-api';
import { LIVE_STAGE, type LiveApi } from './live-api';

/** Origin ids the live-path function switches between (CloudFront Functions select origins by id). */
const HTTP_ORIGIN_ID = 'http-api';
const LIVE_ORIGIN_ID = 'live-socket';

/**
 * Viewer-request function of the live path. A WebSocket API answers only at `/{stage}`, so upgrades are
 * rewritten there; a plain request (no upgrade) goes to the HTTP API, whose route answers 401/403/400/426.
 */
const LIVE_ROUTER = `import cf from 'cloudfront';
function handler(event) {
  var request = event.request;
  var upgrade = request.headers.upgrade;
  if (upgrade && upgrade.value.toLowerCase() === 'websocket') {
    request.uri = '/${LIVE_STAGE}';
  } else {
    cf.selectRequestOriginById('${HTTP_ORIGIN_ID}');
  }
  return request;
}`;

/** Props of a {@link PublicDistribution}. */
export interface PublicDistributionProps {
  stage: StageConfig;
  httpApi: HttpApi;
  liveApi: LiveApi;
  logsBucket: IBucket;
}

/**
 * The public host: one CloudFront distribution in front of the HTTP API (API, pages, discovery) and the
 * live socket, so the public base URL is a single origin. Nothing is cached here: answers depend on the
 * caller's credential, which is not part of any cache key.
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
      // Browsers typing http:// reach the pages; API clients are documented with https.
      viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      cachePolicy: CachePolicy.CACHING_DISABLED,
      // Everything but Host (API Gateway routes on its own host), including Sec-WebSocket-* and
      // CloudFront-Viewer-Address, which the handlers use as the caller's IP.
      originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
    } satisfies Partial<BehaviorOptions>;
    const liveRouter = new EdgeFunction(this, 'LiveRouter', {
      comment: `Routes ${LIVE_PATH} upgrades to the WebSocket stage`,
      runtime: FunctionRuntime.JS_2_0,
      code: FunctionCode.fromInline(LIVE_ROUTER),
    });
    const domains = stage.domains;
    this.distribution = new Distribution(this, 'Distribution', {
      comment: `Site and API (${stage.stage})`,
      defaultBehavior: {
        origin: new HttpOrigin(httpApi.domainName, { originId: HTTP_ORIGIN_ID, protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY }),
        ...forwardAll,
      },
      additionalBehaviors: {
        [LIVE_PATH]: {
          origin: new HttpOrigin(liveApi.domainName, { originId: LIVE_ORIGIN_ID, protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY }),
          ...forwardAll,
          functionAssociations: [{ function: liveRouter, eventType: FunctionEventType.VIEWER_REQUEST }],
        },
      },
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
    suppressEdgeFindings(this.distribution, stage);
  }
}
