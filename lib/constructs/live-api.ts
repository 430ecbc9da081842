import { Stack } from 'aws-cdk-lib';
import { WebSocketApi, WebSocketStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { WebSocketLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import type { StageConfig } from '../stages';
import type { FunctionName, WsRouteSpec } from '../topology';
import type { ServiceFunction } from './service-function';

/** The WebSocket stage; CloudFront rewrites the public live path to `/${LIVE_STAGE}`. */
export const LIVE_STAGE = 'live';

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
  /** The execute-api host CloudFront forwards upgrades to. */
  readonly domainName: string;
  /** The @connections endpoint (`CONNECTIONS_ENDPOINT`): PostToConnection goes here, not through CloudFront. */
  readonly connectionsEndpoint: string;

  constructor(scope: Construct, id: string, props: LiveApiProps) {
    super(scope, id);
    this.api = new WebSocketApi(this, 'Api', { description: `Market data live socket (${props.stage.stage})` });
    this.stage = new WebSocketStage(this, 'Stage', { webSocketApi: this.api, stageName: LIVE_STAGE, autoDeploy: true });
    const stack = Stack.of(this);
    this.domainName = `${this.api.apiId}.execute-api.${stack.region}.${stack.urlSuffix}`;
    this.connectionsEndpoint = this.stage.callbackUrl;
    NagSuppressions.addResourceSuppressions(this.stage, [
      {
        id: 'AwsSolutions-APIG1',
        reason:
          'WebSocket access logging needs the account-wide API Gateway CloudWatch role, which a per-stage stack must not own; the ws-* functions log every connect, message and disconnect.',
      },
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
