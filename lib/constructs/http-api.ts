import { Stack } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  HttpApi as ApiGatewayHttpApi,
  DomainName,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  LogGroupLogDestination,
  SecurityPolicy,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import type { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import type { FunctionName, HttpMethod as ManifestMethod, RouteSpec } from '../../shared/topology';
import type { StageConfig } from '../stages';
import type { ServiceFunction } from './service-function';

/**
 * Stage-wide throttle: a backstop far above what the per-caller limits allow, so a flood is shed before
 * it reaches Lambda concurrency shared with merges.
 */
const THROTTLE = { rateLimit: 500, burstLimit: 1000 };

const METHODS: Record<ManifestMethod, HttpMethod> = {
  GET: HttpMethod.GET,
  HEAD: HttpMethod.HEAD,
  POST: HttpMethod.POST,
  PUT: HttpMethod.PUT,
  PATCH: HttpMethod.PATCH,
  DELETE: HttpMethod.DELETE,
  ANY: HttpMethod.ANY,
};

/** Fields of each access-log line: no caller identity (the design allows only an opaque hash in logs). */
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    routeKey: '$context.routeKey',
    status: '$context.status',
    latencyMs: '$context.responseLatency',
    integrationError: '$context.integrationErrorMessage',
    bytes: '$context.responseLength',
  }),
);

/** Props of an {@link HttpApi}. */
export interface HttpApiProps {
  stage: StageConfig;
}

/**
 * The HTTP API (API Gateway v2) for `/api/v1/*`, pages and discovery. Routes come from the manifest
 * ({@link HttpApi.addRoutes}); every other path or method reaches the fallback function through `$default`.
 */
export class HttpApi extends Construct {
  readonly api: ApiGatewayHttpApi;
  /** The host CloudFront forwards to: the origin custom domain with custom domains, else the execute-api host. */
  readonly domainName: string;
  /** With custom domains: the regional target the origin host's DNS record (CNAME) must name. */
  readonly originTarget?: string;
  private readonly integrations = new Map<FunctionName, HttpLambdaIntegration>();

  constructor(scope: Construct, id: string, props: HttpApiProps) {
    super(scope, id);
    const { stage } = props;
    const domains = stage.domains;
    this.api = new ApiGatewayHttpApi(this, 'Api', {
      description: `Market data HTTP API (${stage.stage})`,
      createDefaultStage: false,
      // With a custom domain only that domain answers; the origin-verify header guards it (and the default).
      disableExecuteApiEndpoint: domains !== undefined,
    });
    const origin = domains
      ? new DomainName(this, 'OriginDomain', {
          domainName: domains.apiOrigin,
          certificate: Certificate.fromCertificateArn(this, 'OriginCertificate', domains.originCertificateArn ?? domains.certificateArn),
          securityPolicy: SecurityPolicy.TLS_1_2,
        })
      : undefined;
    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: stage.logRetention, removalPolicy: stage.removalPolicy });
    new HttpStage(this, 'Stage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: THROTTLE,
      domainMapping: origin ? { domainName: origin } : undefined,
      accessLogSettings: { destination: new LogGroupLogDestination(accessLogs), format: ACCESS_LOG_FORMAT },
    });
    const stack = Stack.of(this);
    this.domainName = domains ? domains.apiOrigin : `${this.api.apiId}.execute-api.${stack.region}.${stack.urlSuffix}`;
    this.originTarget = origin?.regionalDomainName;
  }

  /** Adds one route per manifest entry, each integrated with its function, and `$default` for the fallback. */
  addRoutes(routes: readonly RouteSpec[], fallback: ServiceFunction, functionOf: (name: FunctionName) => ServiceFunction): void {
    for (const route of routes) {
      new HttpRoute(this, `${route.method} ${route.path}`, {
        httpApi: this.api,
        routeKey: HttpRouteKey.with(route.path, METHODS[route.method]),
        integration: this.integrationOf(functionOf(route.function)),
      });
    }
    new HttpRoute(this, 'Default', { httpApi: this.api, routeKey: HttpRouteKey.DEFAULT, integration: this.integrationOf(fallback) });
    // The fallback's integration is shared with its routes, whose API-scoped permission (`<api>/*/*/*`) does
    // not match a `$default` invocation (`<api>/<stage>/$default`): without this, every unmatched path or
    // method (the spec's 404/405s, OPTIONS, /favicon.ico) would answer 500 on AWS.
    fallback.addPermission('DefaultRouteInvoke', {
      principal: new ServicePrincipal('apigateway.amazonaws.com'),
      sourceArn: Stack.of(this).formatArn({ service: 'execute-api', resource: this.api.apiId, resourceName: '*/$default' }),
    });
    NagSuppressions.addResourceSuppressions(
      this,
      [
        {
          id: 'AwsSolutions-APIG4',
          reason:
            'Routes are public by design: anonymous callers have their own tier, and the handlers verify session tokens and API keys themselves so the spec’s check order (401 → 429 → 403 → 400) holds.',
        },
      ],
      true,
    );
  }

  /** Server errors (5xx) of the API, summed per period. */
  metricServerErrors(): Metric {
    return this.api.metricServerError();
  }

  /**
   * One integration per function, and one invoke permission per function scoped to this API: a
   * permission per route would overflow the api function's 20 KB resource policy.
   */
  private integrationOf(fn: ServiceFunction): HttpLambdaIntegration {
    let integration = this.integrations.get(fn.spec.name);
    if (!integration) {
      integration = new HttpLambdaIntegration(`${fn.spec.name}-integration`, fn, { scopePermissionToRoute: false });
      this.integrations.set(fn.spec.name, integration);
    }
    return integration;
  }
}
