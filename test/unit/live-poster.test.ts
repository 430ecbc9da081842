import { createHash, createHmac } from 'node:crypto';
import { Readable } from 'node:stream';
import { ApiGatewayManagementApiClient, PostToConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
import type { HttpRequest } from '@smithy/core/protocols';
import { describe, expect, it } from 'vitest';
import { ConnectionPoster, PostError } from '../../shared/store/connection-poster';

const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', sessionToken: 'session-token' };
const ENDPOINT = 'https://abc123.execute-api.eu-west-1.amazonaws.com/prod';

/** A request handler that records requests and answers with the statuses it is given, in order (0: the connection drops). */
function recorder(statuses: number[] = []) {
  const requests: HttpRequest[] = [];
  return {
    requests,
    handle: async (req: HttpRequest) => {
      requests.push(req);
      const status = statuses.shift() ?? 200;
      if (status === 0) throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
      const headers: Record<string, string> = status === 410 ? { 'x-amzn-errortype': 'GoneException' } : {};
      return { response: { statusCode: status, headers, body: Readable.from([Buffer.from(status === 200 ? '' : '{"message":"x"}')]) } };
    },
    updateHttpClientConfig: () => undefined,
    httpHandlerConfigs: () => ({}),
  };
}

function client(handler: ReturnType<typeof recorder>): ApiGatewayManagementApiClient {
  return new ApiGatewayManagementApiClient({
    region: 'eu-west-1',
    endpoint: ENDPOINT,
    credentials: CREDENTIALS,
    requestHandler: handler as never,
    maxAttempts: 1,
  });
}

/** SigV4 written out from AWS's description, independent of the SDK: the signature a request should carry. */
function expectedSignature(req: HttpRequest): string {
  const auth = String(req.headers.authorization);
  const signed = /SignedHeaders=([^,]+)/.exec(auth)?.[1].split(';') ?? [];
  const scope = /Credential=[^/]+\/([^,]+)/.exec(auth)?.[1] ?? '';
  const [day, region, service] = scope.split('/');
  const header = (name: string) => Object.entries(req.headers).find(([k]) => k.toLowerCase() === name)?.[1] ?? '';
  const body = req.body as Uint8Array;
  const canonical = [
    req.method,
    // Non-S3 services escape the already-escaped path once more.
    req.path
      .split('/')
      .map((s) => encodeURIComponent(s))
      .join('/'),
    '',
    ...signed.map((h) => `${h}:${String(header(h)).trim()}`),
    '',
    signed.join(';'),
    createHash('sha256').update(body).digest('hex'),
  ].join('\n');
  const toSign = ['AWS4-HMAC-SHA256', header('x-amz-date'), scope, createHash('sha256').update(canonical).digest('hex')].join('\n');
  const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
  const key = hmac(hmac(hmac(hmac(`AWS4${CREDENTIALS.secretAccessKey}`, day), region), service), 'aws4_request');
  return createHmac('sha256', key).update(toSign).digest('hex');
}

const signatureOf = (req: HttpRequest) => /Signature=([0-9a-f]+)/.exec(String(req.headers.authorization))?.[1];

describe('ConnectionPoster', () => {
  it('sends the request the SDK sends for PostToConnection, correctly signed for execute-api', async () => {
    const sdk = recorder();
    await client(sdk).send(new PostToConnectionCommand({ ConnectionId: 'L0SM9cOFvHcCIhw=', Data: Buffer.from('{"t":"ah"}') }));
    const viaSdk = sdk.requests[0];

    const mine = recorder();
    await new ConnectionPoster(client(mine)).post('L0SM9cOFvHcCIhw=', Buffer.from('{"t":"ah"}'));
    const viaPoster = mine.requests[0];

    for (const field of ['method', 'protocol', 'hostname', 'path'] as const) expect(viaPoster[field]).toBe(viaSdk[field]);
    expect(viaPoster.path).toBe('/prod/@connections/L0SM9cOFvHcCIhw%3D');
    expect(Buffer.from(viaPoster.body as Uint8Array).toString()).toBe('{"t":"ah"}');
    for (const h of ['host', 'content-type', 'content-length', 'x-amz-security-token', 'x-amz-content-sha256'])
      expect(viaPoster.headers[h]).toBe(viaSdk.headers[h]);
    expect(String(viaPoster.headers.authorization)).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/execute-api\/aws4_request, SignedHeaders=content-length;content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token, Signature=[0-9a-f]{64}$/,
    );
    // The independent signer agrees with the SDK's signature (so it is right), and with the poster's.
    expect(signatureOf(viaSdk)).toBe(expectedSignature(viaSdk));
    expect(signatureOf(viaPoster)).toBe(expectedSignature(viaPoster));
  });

  it('answers gone on 410, retries throttles, server errors and dropped connections, and throws on other failures', async () => {
    expect(await new ConnectionPoster(client(recorder([410]))).post('a', Buffer.from('x'))).toBe('gone');

    const flaky = recorder([429, 0, 200]);
    expect(await new ConnectionPoster(client(flaky)).post('a', Buffer.from('x'))).toBe('sent');
    expect(flaky.requests).toHaveLength(3);

    const down = recorder([503, 503, 503, 503]);
    await expect(new ConnectionPoster(client(down)).post('a', Buffer.from('x'))).rejects.toBeInstanceOf(PostError);
    expect(down.requests).toHaveLength(3);

    const dropped = recorder([0, 0, 0]);
    await expect(new ConnectionPoster(client(dropped)).post('a', Buffer.from('x'))).rejects.toThrow('socket hang up');
    expect(dropped.requests).toHaveLength(3);

    const refused = recorder([403]);
    await expect(new ConnectionPoster(client(refused)).post('a', Buffer.from('x'))).rejects.toMatchObject({ status: 403 });
    expect(refused.requests).toHaveLength(1);
  });
});
