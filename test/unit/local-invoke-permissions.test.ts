/**
 * The local gateway checks each invocation against the function's resource policy from the synthesized
 * template, as API Gateway and Lambda do on AWS (issue 26 point 0): a route no `AWS::Lambda::Permission`
 * covers answers 500 locally too, and the stack's own permissions cover every path, matched or not.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpApi } from '../../lib/local/gateways/http-api';
import { LOCAL_ACCOUNT, LOCAL_REGION } from '../../lib/local/iam/calls';
import { httpRouteSourceArn, type InvokePermissions, invokePermissions, LOCAL_HTTP_API_ID, mayInvoke } from '../../lib/local/iam/invoke-permissions';
import type { TemplateJson } from '../../lib/local/iam/resolve';
import { localTemplate } from '../../lib/local/iam/template';
import type { FunctionName } from '../../shared/topology';

const scope = { region: LOCAL_REGION, account: LOCAL_ACCOUNT };

/** The template without the permissions whose logical id contains `fragment`. */
function without(t: TemplateJson, fragment: string): TemplateJson {
  return { Resources: Object.fromEntries(Object.entries(t.Resources).filter(([id, r]) => !(r.Type === 'AWS::Lambda::Permission' && id.includes(fragment)))) };
}

/** A gateway in front of a stand-in function that answers what the handler would (404/405 by route). */
async function gateway(permissions: InvokePermissions): Promise<{ base: string; server: Server; invoked: FunctionName[] }> {
  const invoked: FunctionName[] = [];
  const api = new HttpApi(
    async (fn, event) => {
      invoked.push(fn);
      return { statusCode: (event as { routeKey: string }).routeKey === '$default' ? 404 : 405, body: '{"error":"not_found"}' };
    },
    () => undefined,
  );
  api.permissions = permissions;
  api.permissionScope = scope;
  const server = createServer((req, res) => void api.handle(req, res, new URL(req.url ?? '/', 'http://127.0.0.1'), null));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, invoked };
}

/** Paths no route matches: the spec's 404s, a browser's favicon and preflight, HEAD on an API path. */
const UNMATCHED: Array<[string, string]> = [
  ['GET', '/favicon.ico'],
  ['GET', '/api/v1/nope'],
  ['OPTIONS', '/api/v1/config'],
  ['HEAD', '/api/v1/config'],
  ['DELETE', '/api/v1/ah'],
];

describe('local gateway: invoke permissions from the synthesized template', () => {
  const template = localTemplate();
  const permissions = invokePermissions(template, scope);

  it('refuses a source ARN outside the permissions and takes one inside', () => {
    const config = httpRouteSourceArn('GET /api/v1/config', scope);
    expect(config).toBe(`arn:aws:execute-api:${LOCAL_REGION}:${LOCAL_ACCOUNT}:${LOCAL_HTTP_API_ID}/$default/GET/api/v1/config`);
    expect(mayInvoke(permissions, 'api', config)).toBe(true);
    // Another API, another account, or a function the route does not name: refused.
    expect(mayInvoke(permissions, 'api', httpRouteSourceArn('GET /api/v1/config', scope, 'otherapi'))).toBe(false);
    expect(mayInvoke(permissions, 'api', httpRouteSourceArn('GET /api/v1/config', { ...scope, account: '999999999999' }))).toBe(false);
    expect(mayInvoke(permissions, 'merge', config)).toBe(false);
    // The API-scoped permission of a shared integration (`<api>/*/*/*`) does not cover `$default`.
    const apiScopedOnly = invokePermissions(without(template, 'DefaultRouteInvoke'), scope);
    expect(mayInvoke(apiScopedOnly, 'api', httpRouteSourceArn('$default', scope))).toBe(false);
    expect(mayInvoke(apiScopedOnly, 'api', config)).toBe(true);
  });

  it('answers 500 for a route whose invocation no permission covers, without invoking the function', async () => {
    const g = await gateway(invokePermissions(without(template, 'DefaultRouteInvoke'), scope));
    try {
      for (const [method, path] of UNMATCHED) {
        const res = await fetch(`${g.base}${path}`, { method });
        expect({ method, path, status: res.status }).toEqual({ method, path, status: 500 });
      }
      expect(g.invoked).toEqual([]);
    } finally {
      g.server.close();
    }
  });

  describe('with the stack as synthesized', () => {
    let g: Awaited<ReturnType<typeof gateway>>;
    beforeAll(async () => {
      g = await gateway(permissions);
    });
    afterAll(() => g.server.close());

    it('lets every unmatched path reach the fallback function, which answers its 404/405', async () => {
      for (const [method, path] of UNMATCHED) {
        const res = await fetch(`${g.base}${path}`, { method });
        expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 });
      }
      expect(new Set(g.invoked)).toEqual(new Set(['api']));
    });
  });
});
