import { Stack } from 'aws-cdk-lib';
import { type CfnApi, DomainName, SecurityPolicy, WebSocketApi, WebSocketStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { WebSocketLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import type { FunctionName, WsRouteSpec } from '../../shared/topology';
import type { StageConfig } from '../stages';
import type { ServiceFunction } from './service-function';

/** The WebSocket stage; CloudFront rewrites the public live path to `/${LIVE_STAGE}` (to `/` on a custom domain). */
export const LIVE_STAGE = 'live';

/**
 * Throttle of every WebSocket route (`$connect`, `$default`, `$disconnect`): requests per second and burst
 * across all sockets. A socket sends little (a renewal every few minutes), so 250 a second carries 75000
 * renewals per five minutes, and a reconnect wave beyond the burst is told 429 and retries with backoff.
 */
export const LIVE_THROTTLE = { rateLimit: 250, burstLimit: 500 };

/** Why the WebSocket stage has no access log (cdk-nag's access-logging rules of both packs). */
const WS_ACCESS_LOGS =
  'WebSocket access logging needs the account-wide API Gateway CloudWatch role, which a per-stage stack must not own; the ws-* functions log every connect, message and disconnect.';

/** Props of a {@link LiveApi}. */
export interface LiveApiProps {
  stage: StageConfig;
}

/**
 * The live socket: a WebSocket API whose `$connect`, `$default` and `$disconnect` routes come from the
 * manifest. Functions that push to sockets get `execute-api:ManageConnections` on its stage.
 */
export class LiveApi extends Construct {
  readonly api: WebSocketApi;
  readonly stage: WebSocketStage;
  /** The host CloudFront forwards upgrades to: the origin custom domain with custom domains, else execute-api. */
  readonly domainName: string;
  /** The path an upgrade must reach on that host (the stage, or the root of a custom domain's mapping). */
  readonly upgradePath: string;
  /**
   * The @connections endpoint (`CONNECTIONS_ENDPOINT`): PostToConnection goes here, not through CloudFront.
   * With the execute-api endpoint switched off, @connections answers only on the custom domain (at its root).
   */
  readonly connectionsEndpoint: string;
  /** With custom domains: the regional target the origin host's DNS record (CNAME) must name. */
  readonly originTarget?: string;

  constructor(scope: Construct, id: string, props: LiveApiProps) {
    super(scope, id);
    const domains = props.stage.domains;
    this.api = new WebSocketApi(this, 'Api', { description: `Market data live socket (${props.stage.stage})` });
    // The L2 construct has no switch for it yet; the CloudFormation property applies to WebSocket APIs too.
    if (domains) (this.api.node.defaultChild as CfnApi).disableExecuteApiEndpoint = true;
    const origin = domains
      ? new DomainName(this, 'OriginDomain', {
          domainName: domains.liveOrigin,
          certificate: Certificate.fromCertificateArn(this, 'OriginCertificate', domains.originCertificateArn ?? domains.certificateArn),
          securityPolicy: SecurityPolicy.TLS_1_2,
        })
      : undefined;
    this.stage = new WebSocketStage(this, 'Stage', {
      webSocketApi: this.api,
      stageName: LIVE_STAGE,
      autoDeploy: true,
      throttle: LIVE_THROTTLE,
      domainMapping: origin ? { domainName: origin } : undefined,
    });
    const stack = Stack.of(this);
    this.domainName = domains ? domains.liveOrigin : `${this.api.apiId}.execute-api.${stack.region}.${stack.urlSuffix}`;
    this.upgradePath = domains ? '/' : `/${LIVE_STAGE}`;
    this.connectionsEndpoint = domains ? `https://${domains.liveOrigin}` : this.stage.callbackUrl;
    this.originTarget = origin?.regionalDomainName;
    NagSuppressions.addResourceSuppressions(this.stage, [
      { id: 'AwsSolutions-APIG1', reason: WS_ACCESS_LOGS },
      { id: 'Serverless-APIGWAccessLogging', reason: WS_ACCESS_LOGS },
    ]);
  }

  /** Adds the manifest's WebSocket routes, each integrated with its function. */
  addRoutes(routes: readonly WsRouteSpec[], functionOf: (name: FunctionName) => ServiceFunction): void {
    for (const route of routes) {
      const fn = functionOf(route.function);
      this.api.addRoute(route.routeKey, { integration: new WebSocketLambdaIntegration(`${route.routeKey}-integration`, fn) });
    }
    NagSuppressions.addResourceSuppressions(
      this.api,
      [
        {
          id: 'AwsSolutions-APIG4',
          reason:
            'The $connect function authenticates (cookie, Authorization or ?token=) because the spec needs 400 as well as 401/403 before the upgrade, which an authorizer cannot answer.',
        },
      ],
      true,
    );
  }

  /** Lets a function post to, and close, live connections. */
  grantConnections(fn: ServiceFunction): void {
    this.stage.grantManagementApiAccess(fn);
  }
}
