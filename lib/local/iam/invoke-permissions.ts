/**
 * The functions' resource policies as API Gateway meets them: each `AWS::Lambda::Permission` of a synthesized
 * template that lets `apigateway.amazonaws.com` invoke a function, its source ARN resolved. API Gateway asks
 * Lambda to invoke with the route's execute-api ARN as the source (`<api-id>/<stage>/<METHOD>/<path>`, and
 * `<api-id>/<stage>/$default` for the `$default` route); a route no permission covers answers 500 on AWS
 * (issue 26 point 0), so the local gateway (lib/local/gateways/http-api.ts) and the infra tests check the same way.
 */
import type { FunctionName } from '../../../shared/topology';
import { globMatch } from './policy';
import type { TemplateJson } from './resolve';

/** The HTTP API's id in local execute-api ARNs. */
export const LOCAL_HTTP_API_ID = 'localhttp';

/** The HTTP API's stage (the stack deploys `$default` only). */
const HTTP_STAGE = '$default';

/** Where the ARNs' literal parts point (the template's region and account, or the local ones). */
export interface ArnScope {
  region: string;
  account: string;
}

/** Each function's source ARN patterns, by manifest name. */
export type InvokePermissions = ReadonlyMap<FunctionName, readonly string[]>;

type Resource = TemplateJson['Resources'][string];

const getAttId = (v: unknown): string | undefined => (v && typeof v === 'object' ? (v as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt']?.[0] : undefined);

/** The manifest name of a function (its description is `<name> (<stage>)`, lib/constructs/service-function.ts). */
const manifestName = (r: Resource | undefined): FunctionName | undefined =>
  r?.Type === 'AWS::Lambda::Function' ? (String(r.Properties?.Description ?? '').match(/^(\S+) \(/)?.[1] as FunctionName | undefined) : undefined;

/** The template's HTTP API (there is one; the WebSocket API is the other `AWS::ApiGatewayV2::Api`). */
function httpApiId(t: TemplateJson): string | undefined {
  return Object.entries(t.Resources).find(([, r]) => r.Type === 'AWS::ApiGatewayV2::Api' && r.Properties?.ProtocolType === 'HTTP')?.[0];
}

/** A source ARN with the HTTP API's id as {@link LOCAL_HTTP_API_ID}; other APIs' ids stay unresolved (no match). */
function resolveArn(t: TemplateJson, value: unknown, scope: ArnScope): string {
  const api = httpApiId(t);
  const pseudo: Record<string, string> = {
    'AWS::Partition': 'aws',
    'AWS::Region': scope.region,
    'AWS::AccountId': scope.account,
    'AWS::URLSuffix': 'amazonaws.com',
  };
  const resolve = (v: unknown): string => {
    if (typeof v === 'string') return v;
    if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (typeof o.Ref === 'string') return pseudo[o.Ref] ?? (o.Ref === api ? LOCAL_HTTP_API_ID : `unresolved:${o.Ref}`);
      if (Array.isArray(o['Fn::Join'])) return (o['Fn::Join'][1] as unknown[]).map(resolve).join(String(o['Fn::Join'][0]));
    }
    return `unresolved:${JSON.stringify(v)}`;
  };
  return resolve(value);
}

/** The API Gateway invoke permissions of every function in `t`. */
export function invokePermissions(t: TemplateJson, scope: ArnScope): InvokePermissions {
  const out = new Map<FunctionName, string[]>();
  for (const r of Object.values(t.Resources)) {
    if (r.Type !== 'AWS::Lambda::Permission' || r.Properties?.Principal !== 'apigateway.amazonaws.com') continue;
    if (r.Properties.Action !== 'lambda:InvokeFunction') continue;
    const fnId = getAttId(r.Properties.FunctionName) ?? (r.Properties.FunctionName as { Ref?: string } | undefined)?.Ref;
    const name = manifestName(fnId ? t.Resources[fnId] : undefined);
    if (!name) continue;
    // A permission without a source ARN lets any API of any account invoke; the stack never makes one.
    const arn = r.Properties.SourceArn === undefined ? '*' : resolveArn(t, r.Properties.SourceArn, scope);
    out.set(name, [...(out.get(name) ?? []), arn]);
  }
  return out;
}

/** The execute-api ARN an invocation of the HTTP API's route carries (`GET /x/{id}`, `$default`). */
export function httpRouteSourceArn(routeKey: string, scope: ArnScope, apiId = LOCAL_HTTP_API_ID): string {
  const [method, path] = routeKey === '$default' ? ['$default', ''] : routeKey.split(' ');
  return `arn:aws:execute-api:${scope.region}:${scope.account}:${apiId}/${HTTP_STAGE}/${method}${path ?? ''}`;
}

/** Whether a permission of `fn` covers `sourceArn` (Lambda's `ArnLike` on the source ARN). */
export function mayInvoke(permissions: InvokePermissions, fn: FunctionName, sourceArn: string): boolean {
  return (permissions.get(fn) ?? []).some((pattern) => globMatch(pattern, sourceArn));
}
