/**
 * API Gateway's HTTP API in front of the functions, as the local runtime plays it: the request head and body
 * quotas, route selection (`$default` for everything else), the function's resource policy (an invocation
 * no `AWS::Lambda::Permission` of the synthesized template covers answers 500, as Lambda refuses API Gateway
 * on AWS), the 30 s integration timeout, and what API Gateway answers when Lambda refuses or fails an invocation.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { Router } from '../../../shared/http/router';
import type { Log } from '../../../shared/log';
import { FALLBACK_FUNCTION, type FunctionName, HTTP_ROUTES } from '../../../shared/topology';
import { InFlight, LambdaLimitError } from '../functions/lambda';
import { LOCAL_ACCOUNT, LOCAL_REGION } from '../iam/calls';
import { httpRouteSourceArn, type InvokePermissions, invokePermissions, mayInvoke } from '../iam/invoke-permissions';
import type { TemplateJson } from '../iam/resolve';
import { GATEWAY_ERRORS, HTTP_API_MAX_BODY, INTEGRATION_TIMEOUT_MS } from './gateway-limits';
import { REQUEST_HEAD_MAX_BYTES, readBody, requestHeadBytes, sendJson, TOO_LARGE_HEAD, toHttpEvent, writeResult } from './http-events';

export class HttpApi {
  /** API Gateway's integration timeout (30 s for HTTP APIs); tests may shorten it. */
  timeoutMs = INTEGRATION_TIMEOUT_MS;
  private readonly router = new Router(HTTP_ROUTES);
  private readonly inFlight = new InFlight();
  /**
   * Who may invoke what, from the synthesized template (lib/local/iam/invoke-permissions.ts), set when the
   * runtime starts; until then nothing is permitted, so a missing policy fails closed as on AWS. `null`: no IAM
   * at all (the memory mode has no synthesized template: docs/local-runtime.md "The memory mode").
   */
  permissions: InvokePermissions | null = new Map();
  /** The region and account of the template the permissions come from. */
  permissionScope = { region: '', account: '' };

  /** The functions' resource policies (who may invoke them), from the synthesized template. */
  permitFrom(template: TemplateJson): void {
    this.permissionScope = { region: LOCAL_REGION, account: LOCAL_ACCOUNT };
    this.permissions = invokePermissions(template, this.permissionScope);
  }

  constructor(
    private readonly invoke: (fn: FunctionName, event: unknown) => Promise<APIGatewayProxyStructuredResultV2>,
    private readonly log: Log,
  ) {}

  /** One request; `originVerify` is the header the edge adds (null on the direct listener, which has no edge). */
  async handle(req: IncomingMessage, res: ServerResponse, url: URL, originVerify: string | null): Promise<void> {
    if (requestHeadBytes(req) > REQUEST_HEAD_MAX_BYTES) {
      sendJson(res, 431, TOO_LARGE_HEAD, { connection: 'close' });
      return;
    }
    // API Gateway's HTTP API payload quota (10 MB), before any function runs.
    const body = await readBody(req, HTTP_API_MAX_BODY);
    if (body === null) {
      sendJson(res, 413, GATEWAY_ERRORS.tooLarge, { connection: 'close' });
      return;
    }
    const m = this.router.match(req.method ?? 'GET', url.pathname);
    const fn = m.kind === 'route' ? m.route.function : FALLBACK_FUNCTION;
    const routeKey = m.kind === 'route' ? m.routeKey : '$default';
    const sourceArn = httpRouteSourceArn(routeKey, this.permissionScope);
    if (this.permissions && !mayInvoke(this.permissions, fn, sourceArn)) {
      // Lambda refuses API Gateway (AccessDeniedException) and API Gateway answers 500.
      this.log('error', `${fn}: no invoke permission of the function covers ${sourceArn}; API Gateway answers 500`);
      sendJson(res, 500, GATEWAY_ERRORS.internal);
      return;
    }
    const event = toHttpEvent(req, url, body, routeKey, m.kind === 'route' ? m.params : {}, originVerify);
    // 30 s of the gateway's wall time, stretched by the requests in flight at once (see InFlight in lambda.ts).
    const share = this.inFlight.track();
    const integrationTimedOut = new Promise<'timeout'>((r) => {
      share.deadline(Date.now(), this.timeoutMs, () => r('timeout'));
    });
    const invoked = this.invoke(fn, event);
    invoked.catch(() => undefined);
    try {
      const result = await Promise.race([invoked, integrationTimedOut]);
      if (result === 'timeout') {
        sendJson(res, 503, GATEWAY_ERRORS.unavailable);
        return;
      }
      writeResult(res, result, req.method === 'HEAD');
    } catch (err) {
      // What API Gateway answers when the Lambda service refuses or fails the invocation.
      if (!(err instanceof LambdaLimitError)) throw err;
      this.log('warn', `${fn}: ${err.message}`);
      if (err.limit === 'request') sendJson(res, 413, GATEWAY_ERRORS.tooLarge);
      else if (err.limit === 'response') sendJson(res, 502, GATEWAY_ERRORS.internal);
      else sendJson(res, 500, GATEWAY_ERRORS.internal);
    } finally {
      share.done();
    }
  }
}
