/**
 * Issue 27 point 4 (the fan-out's time): the fan-out's posts are signed by a SigV4 signer cut to
 * `PostToConnection` (shared/store/post-signer.ts) that must sign exactly as the SDK's `SignatureV4` does:
 * every header, the signature included, for any connection id, with and without a session token, across
 * days and credential rotations; a path the SDK would normalize is left to the SDK's signer. And the fan-out's
 * sender gives the sockets that get the same message one body, so the signer hashes it once.
 */
import { Readable } from 'node:stream';
import { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import { HttpRequest } from '@smithy/core/protocols';
import { SignatureV4 } from '@smithy/signature-v4';
import { describe, expect, it } from 'vitest';
import { sendAll } from '../../shared/live/sender';
import type { ConnectionsPort, PostResult, SocketsPort } from '../../shared/ports/connections';
import { ConnectionPoster } from '../../shared/store/connection-poster';
import { PostSigner } from '../../shared/store/post-signer';

const REGION = 'eu-west-1';
const HOST = 'abc123.execute-api.eu-west-1.amazonaws.com';
const WITH_TOKEN = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', sessionToken: 'IQoJb3JpZ2luX2VjE+token/=' };
const ROTATED = { accessKeyId: 'ASIAROTATED', secretAccessKey: 'another/secret+key', sessionToken: 'second-token' };
const NO_TOKEN = { accessKeyId: 'AKIDPLAIN', secretAccessKey: 'plain-secret' };

/** The SDK's hash, as its clients resolve it. */
const Sha256 = new ApiGatewayManagementApiClient({ region: REGION }).config.sha256;

/** The SDK's signature of the same request: headers as `SignatureV4` leaves them. */
async function sdkHeaders(credentials: typeof WITH_TOKEN | typeof NO_TOKEN, path: string, body: Uint8Array, date: Date): Promise<Record<string, string>> {
  const signer = new SignatureV4({ service: 'execute-api', region: REGION, credentials, sha256: Sha256, uriEscapePath: true, applyChecksum: true });
  const request = new HttpRequest({
    protocol: 'https:',
    hostname: HOST,
    method: 'POST',
    path,
    headers: { host: HOST, 'content-type': 'application/octet-stream', 'content-length': String(body.byteLength) },
    body,
  });
  return (await signer.sign(request, { signingDate: date })).headers as Record<string, string>;
}

const encodeLabel = (s: string): string => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const IDS = ['L0SM9cOFvHcCIhw=', 'a+b/c==', "x!'()*~y", 'plain', 'ünï cødé', '%41', '.hidden', 'a.b'];
const DATES = [new Date(Date.UTC(2026, 10, 28, 23, 59, 59, 999)), new Date(Date.UTC(2026, 10, 29, 0, 0, 0, 1)), new Date(Date.UTC(2027, 0, 1, 12, 30, 5))];

describe('the fan-out’s post signer (issue 27 point 4)', () => {
  it('signs every post as the SDK’s SignatureV4 does: any connection id, with and without a token, across days and rotated credentials', async () => {
    const signer = new PostSigner(REGION);
    const bodies = [Buffer.from('{"t":"ah","seq":1}'), Buffer.from(''), Buffer.from('é'.repeat(300))];
    let checked = 0;
    for (const date of DATES)
      for (const credentials of [WITH_TOKEN, NO_TOKEN, ROTATED, WITH_TOKEN])
        for (const id of IDS)
          for (const body of bodies) {
            const path = `/prod/@connections/${encodeLabel(id)}`;
            expect(signer.sign(credentials, HOST, path, body, date)).toEqual(await sdkHeaders(credentials, path, body, date));
            checked++;
          }
    expect(checked).toBe(DATES.length * 4 * IDS.length * bodies.length);
  });

  it('leaves a path the SDK would normalize to the SDK’s signer, and the poster still signs it as the SDK does', async () => {
    const signer = new PostSigner(REGION);
    const body = Buffer.from('x');
    for (const path of ['/prod/@connections/..', '/prod/@connections/.', '/prod//@connections/a', 'relative'])
      expect(signer.sign(NO_TOKEN, HOST, path, body, DATES[0])).toBeNull();
    const client = new ApiGatewayManagementApiClient({
      region: REGION,
      endpoint: `https://${HOST}/prod`,
      credentials: NO_TOKEN,
      requestHandler: { handle: async () => ({ response: { statusCode: 200, headers: {}, body: Readable.from([]) } }) } as never,
    });
    const poster = new ConnectionPoster(client);
    for (const id of ['..', 'L0SM9cOFvHcCIhw=']) {
      const request = await poster.request(id, body, DATES[1]);
      expect(request.headers).toEqual(await sdkHeaders(NO_TOKEN, `/prod/@connections/${encodeLabel(id)}`, body, DATES[1]));
    }
  });

  it('gives the sockets that get the same message one body, encoded once', async () => {
    const posted: Array<[string, Uint8Array]> = [];
    const sockets = {
      post: async (connectionId: string, data: Uint8Array): Promise<PostResult> => {
        posted.push([connectionId, data]);
        return 'sent';
      },
    } as unknown as SocketsPort;
    const ref = (id: string) => ({ connectionId: id, market: 'm', hub: 0, userId: 'u' });
    const a = JSON.stringify({ t: 'ah', seq: 1, audience: 'a' });
    const b = JSON.stringify({ t: 'ah', seq: 1, audience: 'b' });
    // Equal texts built separately (as JSON.stringify per audience would) share a body too.
    const a2 = JSON.stringify(JSON.parse(a));
    const out = await sendAll({ sockets, connections: {} as ConnectionsPort, log: () => undefined }, [
      [ref('1'), a],
      [ref('2'), b],
      [ref('3'), a2],
      [ref('4'), null],
      [ref('5'), b],
    ]);
    expect(out).toEqual({ sent: 4, gone: 0, failed: 0 });
    const body = new Map(posted);
    expect([...body.keys()].sort()).toEqual(['1', '2', '3', '5']);
    expect(Buffer.from(body.get('1') as Uint8Array).toString()).toBe(a);
    expect(Buffer.from(body.get('2') as Uint8Array).toString()).toBe(b);
    expect(body.get('3')).toBe(body.get('1'));
    expect(body.get('5')).toBe(body.get('2'));
    expect(body.get('2')).not.toBe(body.get('1'));
  });
});
