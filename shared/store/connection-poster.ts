/**
 * `PostToConnection` for the fan-out's hot path. One merge posts to every socket of a hub (up to 2000), and
 * through the SDK command each post resolves endpoint rules, runs the retry and serde middleware and builds a
 * new signer: about three quarters of the fan-out's CPU. This poster sends the same request (the operation is
 * `POST {stage}/@connections/{id}` with the raw message as its body, SigV4 for `execute-api`) with the SDK's
 * own parts taken from the client's resolved config: its credentials provider, region, endpoint, hash and
 * HTTP handler (keep-alive pool), signed by a SigV4 signer cut to this request (post-signer.ts, issue 27 point
 * 4). Tests check its requests are signed byte for byte as the SDK signs them.
 * Everything else (closing, describing) still goes through the SDK client.
 */
import type { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import { HttpRequest } from '@smithy/core/protocols';
import { SignatureV4 } from '@smithy/signature-v4';
import type { Endpoint } from '@smithy/types';
import type { PostResult } from '../ports/connections';
import { PostSigner } from './post-signer';

const RETRYABLE = new Set([429, 500, 502, 503, 504]);
const ATTEMPTS = 3;

export class PostError extends Error {
  constructor(
    readonly status: number,
    readonly errorType: string,
  ) {
    super(`PostToConnection answered ${status}${errorType ? ` (${errorType})` : ''}`);
  }
}

/** The SDK's label encoding: encodeURIComponent plus `!'()*`. */
const encodeLabel = (s: string): string => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

export class ConnectionPoster {
  private ready: Promise<{ signer: SignatureV4; fast: PostSigner; endpoint: Endpoint }> | null = null;

  constructor(private readonly client: ApiGatewayManagementApiClient) {}

  private init(): Promise<{ signer: SignatureV4; fast: PostSigner; endpoint: Endpoint }> {
    this.ready ??= (async () => {
      const cfg = this.client.config;
      if (!cfg.endpoint) throw new Error('the connections client has no endpoint');
      const region = await cfg.region();
      const signer = new SignatureV4({
        service: 'execute-api',
        region,
        credentials: cfg.credentials,
        sha256: cfg.sha256,
        uriEscapePath: true,
        applyChecksum: true,
      });
      return { signer, fast: new PostSigner(region), endpoint: await cfg.endpoint() };
    })();
    return this.ready;
  }

  /**
   * The signed request for one post (exposed for the signing test): signed by the post signer (post-signer.ts:
   * the SDK's signature at a fraction of its CPU), or by the SDK's for a path it would normalize. `body` is
   * hashed once per object: a body shared by many posts must not change between them.
   */
  async request(connectionId: string, body: Uint8Array, signingDate?: Date): Promise<HttpRequest> {
    const { signer, fast, endpoint } = await this.init();
    const base = (endpoint.path ?? '').replace(/\/$/, '');
    const hostname = endpoint.port ? `${endpoint.hostname}:${endpoint.port}` : endpoint.hostname;
    const path = `${base}/@connections/${encodeLabel(connectionId)}`;
    const where = { protocol: endpoint.protocol, hostname: endpoint.hostname, port: endpoint.port, method: 'POST', path, body };
    const credentials = await this.client.config.credentials();
    const headers = fast.sign(credentials, hostname, path, body, signingDate ?? new Date());
    if (headers) return new HttpRequest({ ...where, headers });
    const request = new HttpRequest({
      ...where,
      headers: { host: hostname, 'content-type': 'application/octet-stream', 'content-length': String(body.byteLength) },
    });
    return (await signer.sign(request, { signingDate })) as HttpRequest;
  }

  /** Posts one message; retries throttles, 5xx and dropped connections twice (as the SDK's standard mode would). */
  async post(connectionId: string, data: Uint8Array): Promise<PostResult> {
    for (let attempt = 1; ; attempt++) {
      const request = await this.request(connectionId, data);
      let status: number;
      let errorType = '';
      try {
        const { response } = await this.client.config.requestHandler.handle(request);
        status = response.statusCode;
        errorType = String(response.headers['x-amzn-errortype'] ?? '').split(':')[0];
        drain(response.body);
      } catch (err) {
        // A keep-alive socket the far end closed, a reset, a timeout: the request may be sent again.
        if (attempt >= ATTEMPTS) throw err;
        await backoff(attempt);
        continue;
      }
      if (status >= 200 && status < 300) return 'sent';
      if (status === 410) return 'gone';
      if (!RETRYABLE.has(status) || attempt >= ATTEMPTS) throw new PostError(status, errorType);
      await backoff(attempt);
    }
  }
}

const backoff = (attempt: number): Promise<void> => new Promise((r) => setTimeout(r, 50 * 2 ** attempt * Math.random()));

/** Reads an answer's body to its end so the keep-alive socket goes back to the pool. */
function drain(body: unknown): void {
  const stream = body as { resume?: () => void } | undefined;
  stream?.resume?.();
}
