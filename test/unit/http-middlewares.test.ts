import { gunzipSync } from 'node:zlib';
import middy from '@middy/core';
import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../shared/errors';
import { gzipLarge, httpErrors } from '../../shared/http/middlewares';
import { COMPRESS_FROM } from '../../shared/http/respond';
import type { HttpEvent, HttpResult } from '../../shared/http/types';
import type { LogLevel } from '../../shared/log';
import { DependencyFailure } from '../../shared/ports/dependency-failure';

const event = (headers: Record<string, string> = {}): HttpEvent =>
  ({ routeKey: 'GET /x', rawPath: '/x', headers, requestContext: { http: { method: 'GET', sourceIp: '192.0.2.1' } } }) as unknown as HttpEvent;

/** A chain with the error mapping, whose handler throws `err`; the lines it logs are kept. */
function throwing(err: unknown) {
  const logged: Array<[LogLevel, string]> = [];
  const h = middy<HttpEvent, HttpResult>()
    .use(
      httpErrors({
        outage: () => 'storage_failed',
        log: (level, msg) => logged.push([level, msg]),
        decorate: (_e, r) => ({ ...r, headers: { ...r.headers, 'x-decorated': '1' } }),
      }),
    )
    .handler(async () => {
      throw err;
    });
  return { run: () => h(event(), {} as never), logged };
}

/** Unit (issue 12, point 4): error mapping and large-answer gzip are middy middlewares of the HTTP functions. */
describe('HTTP middlewares', () => {
  it('maps a domain error to its code and status, decorated like any answer', async () => {
    const { run, logged } = throwing(new NotFoundError('unknown_alert', 'no such alert'));
    const res = await run();
    expect(res).toMatchObject({ statusCode: 404, headers: { 'cache-control': 'private, no-store', 'x-decorated': '1' } });
    expect(JSON.parse(res.body as string)).toEqual({ error: 'unknown_alert', message: 'no such alert' });
    expect(logged).toEqual([]);
  });

  it("maps a storage outage (the ports' one error) to the route's 503 and anything else to a logged 500 internal", async () => {
    const outage = throwing(new DependencyFailure('table', Object.assign(new Error('down'), { name: 'InternalServerError', $fault: 'server' })));
    const res = await outage.run();
    expect(res.statusCode).toBe(503);
    expect(JSON.parse(res.body as string)).toMatchObject({ error: 'storage_failed' });
    expect(outage.logged).toEqual([['warn', 'a dependency did not answer']]);
    const bug = throwing(new TypeError('x is undefined'));
    const crashed = await bug.run();
    expect(crashed.statusCode).toBe(500);
    expect(JSON.parse(crashed.body as string)).toEqual({ error: 'internal', message: 'internal error' });
    expect(bug.logged).toEqual([['error', 'unexpected error']]);
  });

  it('gzips an answer from 1 MiB on to a caller that accepts gzip, and only then', async () => {
    const big = JSON.stringify({ rows: 'x'.repeat(COMPRESS_FROM) });
    const h = middy<HttpEvent, HttpResult>()
      .use(gzipLarge())
      .handler(async () => ({ statusCode: 200, headers: { 'content-type': 'application/json' }, body: big }));
    const gz = await h(event({ 'accept-encoding': 'br, gzip' }), {} as never);
    expect(gz).toMatchObject({ isBase64Encoded: true, headers: { 'content-encoding': 'gzip', vary: 'Accept-Encoding' } });
    expect(gunzipSync(Buffer.from(gz.body as string, 'base64')).toString()).toBe(big);
    const plain = await h(event({ 'Accept-Encoding': 'identity' }), {} as never);
    expect(plain).toMatchObject({ body: big, headers: { vary: 'Accept-Encoding' } });
    expect(plain.isBase64Encoded).toBeUndefined();
    const small = middy<HttpEvent, HttpResult>()
      .use(gzipLarge())
      .handler(async () => ({ statusCode: 200, body: '{}' }));
    expect(await small(event({ 'accept-encoding': 'gzip' }), {} as never)).toEqual({ statusCode: 200, body: '{}' });
  });
});
