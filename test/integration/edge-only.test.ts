import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type Local, startLocal } from '../support/local';

const MINUTE = 60_000;
const MARKET = 'forever.normal.alliance.us';

/**
 * Integration (issue 11, point 2): only CloudFront reaches the APIs. The runtime's gateway plays CloudFront
 * (it adds the origin-verify header and sets CloudFront-Viewer-Address); its `direct` listener plays the
 * APIs' execute-api host, which anyone can call without passing CloudFront.
 */
describe('only the edge reaches the APIs', () => {
  let local: Local;

  beforeAll(async () => {
    local = await startLocal({ direct: true });
  });
  afterAll(() => local.close());

  const direct = (path: string, headers: Record<string, string> = {}, method = 'GET') => fetch(`${local.directBase}${path}`, { method, headers });
  const viaEdge = (path: string, headers: Record<string, string> = {}) => fetch(`${local.base}${path}`, { headers });
  const statuses = async (n: number, send: () => Promise<Response>) => Promise.all(Array.from({ length: n }, async () => (await send()).status));
  const count = (list: number[], status: number) => list.filter((s) => s === status).length;
  /** Starts at the top of a fresh minute, so no rate counter is shared with another test. */
  const nextMinute = async () => {
    const now = await local.now();
    await local.setClock((Math.floor(now / MINUTE) + 1) * MINUTE);
  };

  it('refuses a request that bypassed the edge with 403 edge_only, on every route and method', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/me'],
      ['GET', '/api/v1/config'],
      ['POST', '/api/v1/ah/books'],
      ['GET', '/api/v1/no-such-route'],
      ['GET', '/'],
      ['GET', '/llms.txt'],
    ]) {
      const res = await direct(path, {}, method);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(await res.json()).toEqual({ error: 'edge_only', message: 'use the public host' });
    }
    const wrong = await direct('/api/v1/me', { 'x-origin-verify': 'a'.repeat(43) });
    expect(wrong.status).toBe(403);
    expect((await viaEdge('/api/v1/me', { 'x-origin-verify': 'forged by the viewer' })).status).toBe(200);
  });

  it('asks the identity provider nothing for a request that bypassed the edge', async () => {
    const user = await local.user();
    const key = await local.apiKey(user.id);
    await local.faults({ identity: 'down' });
    try {
      // Through the edge an uncached key needs the provider, which is down: 503. Directly: 403, asked nothing.
      expect((await direct('/api/v1/me', { authorization: `Bearer ${key}` })).status).toBe(403);
      expect((await viaEdge('/api/v1/me', { authorization: `Bearer ${key}` })).status).toBe(503);
    } finally {
      await local.faults({ identity: 'up' });
    }
    expect((await viaEdge('/api/v1/me', { authorization: `Bearer ${key}` })).status).toBe(200);
  });

  it('writes no rate counter for refused requests, whatever viewer address they claim', async () => {
    await nextMinute();
    const claimed = { 'cloudfront-viewer-address': '100.64.9.9:443', 'x-forwarded-for': '100.64.9.9' };
    expect(count(await statuses(70, () => direct('/api/v1/me', claimed)), 403)).toBe(70);
    // Neither the claimed address nor the socket's own was counted: both still have their whole minute.
    const fromClaimed = await statuses(61, () => viaEdge('/api/v1/me', { 'x-forwarded-for': '100.64.9.9' }));
    expect([count(fromClaimed, 200), count(fromClaimed, 429)]).toEqual([60, 1]);
    expect(count(await statuses(60, () => viaEdge('/api/v1/me', { 'x-forwarded-for': '127.0.0.1' })), 200)).toBe(60);
  });

  it('keys the limit by the address the edge saw, not a CloudFront-Viewer-Address the viewer sent', async () => {
    await nextMinute();
    const forged = { 'x-forwarded-for': '100.64.7.1', 'cloudfront-viewer-address': '100.64.7.2:1' };
    const sent = await statuses(61, () => viaEdge('/api/v1/me', forged));
    expect([count(sent, 200), count(sent, 429)]).toEqual([60, 1]);
    expect((await viaEdge('/api/v1/me', { 'x-forwarded-for': '100.64.7.2' })).status).toBe(200);
  });

  it('keys IPv6 callers by their /64', async () => {
    await nextMinute();
    const sent = await statuses(60, () => viaEdge('/api/v1/me', { 'x-forwarded-for': '2001:db8:1:2::a' }));
    expect(count(sent, 200)).toBe(60);
    const sameNet = await viaEdge('/api/v1/me', { 'x-forwarded-for': '2001:db8:1:2:ffff:eeee:dddd:b' });
    expect(sameNet.status).toBe(429);
    expect((await viaEdge('/api/v1/me', { 'x-forwarded-for': '2001:db8:1:3::a' })).status).toBe(200);
  });

  it('refuses a live socket upgrade that bypassed the edge before authenticating it', async () => {
    const user = await local.user();
    const token = await local.session(user.id);
    const upgrade = (base: string) =>
      new Promise<number>((resolve, reject) => {
        const ws = new WebSocket(`${base.replace('http', 'ws')}/api/v1/live?market=${MARKET}&token=${token}`);
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('open', () => {
          ws.close();
          resolve(101);
        });
        ws.on('error', reject);
      });
    expect(await upgrade(local.directBase)).toBe(403);
    expect(await upgrade(local.base)).toBe(101);
  });
});
