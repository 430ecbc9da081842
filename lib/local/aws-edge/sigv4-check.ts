/**
 * Checks a request's SigV4 `Authorization` against the secret the runtime issued for its access key id, as
 * AWS checks a caller: the signature is recomputed with `@smithy/signature-v4` (the SDK's own signer) over
 * the headers the caller says it signed, so a request from anything that lacks the secret (another process
 * on the machine, a page in a browser) is refused even when it names a real function's access key.
 */
import { createHash, createHmac, type Hash, type Hmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { HttpRequest } from '@smithy/core/protocols';
import { SignatureV4 } from '@smithy/signature-v4';
import type { Checksum, SourceData } from '@smithy/types';

/** SHA-256 (and HMAC-SHA-256 with a secret) in the shape the signer takes. */
export class Sha256 implements Checksum {
  private hash: Hash | Hmac;

  constructor(private readonly secret?: SourceData) {
    this.hash = this.fresh();
  }

  private fresh(): Hash | Hmac {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(this.secret));
  }

  update(data: Uint8Array | string): void {
    this.hash.update(bytes(data));
  }

  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }

  reset(): void {
    this.hash = this.fresh();
  }
}

const bytes = (data: SourceData): Buffer =>
  typeof data === 'string'
    ? Buffer.from(data, 'utf8')
    : ArrayBuffer.isView(data)
      ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
      : Buffer.from(data);

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request,\s*SignedHeaders=([a-z0-9;-]+),\s*Signature=([0-9a-f]{64})$/;

/** `20260102T030405Z` as a date; null when it is not one. */
function amzDate(value: string): Date | null {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  return m ? new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6])) : null;
}

export type SignatureCheck = { ok: true; accessKeyId: string } | { ok: false; reason: 'unsigned' | 'unknown_key' | 'mismatch'; accessKeyId?: string };

/**
 * Whether `req` (with its `body`) is signed for `service` with the secret `secretOf` gives its access key id.
 * `unsigned`: no SigV4 `Authorization` (or no signed `X-Amz-Date` and `Host`); `unknown_key`: an access key
 * the runtime never issued; `mismatch`: the signature is not the one that secret makes.
 */
export async function checkSignature(
  req: IncomingMessage,
  body: Buffer,
  service: string,
  secretOf: (accessKeyId: string) => string | undefined,
  /** S3 signs its (already encoded) path as sent; every other service escapes it again. */
  uriEscapePath = service !== 's3',
): Promise<SignatureCheck> {
  const auth = AUTHORIZATION.exec(String(req.headers.authorization ?? ''));
  if (!auth) return { ok: false, reason: 'unsigned' };
  const [, accessKeyId, , region, scopeService, signedList, signature] = auth;
  const secret = secretOf(accessKeyId);
  if (secret === undefined) return { ok: false, reason: 'unknown_key', accessKeyId };
  const signed = signedList.split(';');
  const date = amzDate(String(req.headers['x-amz-date'] ?? ''));
  if (scopeService !== service || !date || !signed.includes('host') || !signed.includes('x-amz-date')) return { ok: false, reason: 'mismatch', accessKeyId };
  const headers: Record<string, string> = {};
  for (const name of signed) {
    const value = req.headers[name];
    if (value === undefined) return { ok: false, reason: 'mismatch', accessKeyId };
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const url = new URL(req.url ?? '/', 'http://local');
  const query: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const all = url.searchParams.getAll(key);
    query[key] = all.length === 1 ? all[0] : all;
  }
  const token = req.headers['x-amz-security-token'];
  const signer = new SignatureV4({
    service,
    region,
    credentials: { accessKeyId, secretAccessKey: secret, sessionToken: typeof token === 'string' ? token : undefined },
    sha256: Sha256,
    uriEscapePath,
    applyChecksum: false,
  });
  const request = new HttpRequest({ method: req.method ?? 'GET', protocol: 'http:', hostname: 'local', path: url.pathname, query, headers, body });
  const resigned = (await signer.sign(request, { signingDate: date, signableHeaders: new Set(signed) })) as HttpRequest;
  const expected = /Signature=([0-9a-f]{64})$/.exec(String(resigned.headers.authorization ?? ''))?.[1] ?? '';
  const same = expected.length === signature.length && timingSafeEqual(Buffer.from(expected), Buffer.from(signature));
  return same ? { ok: true, accessKeyId } : { ok: false, reason: 'mismatch', accessKeyId };
}
