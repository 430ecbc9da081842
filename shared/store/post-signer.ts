/**
 * SigV4 for the fan-out's `PostToConnection` requests, cut to what they are (issue 27 point 4, the fan-out's
 * time): one invocation signs up to 2000 POSTs that differ only in the connection id, the second and, per
 * distinct message, the body. The SDK's `SignatureV4` clones each request, derives the signing key's cache key
 * with an HMAC and hashes the body on every call, about half the poster's CPU per post. Here the signing key is
 * derived once per day and credentials, a body's hash once per body (the fan-out shares one body among the
 * sockets that get the same message), and each post costs one SHA-256 of its canonical request and one HMAC.
 *
 * It signs exactly as the SDK does for these requests (same headers, same canonical path with the non-S3 double
 * escaping, `x-amz-content-sha256` as `applyChecksum` adds it); test/unit/post-signer.test.ts holds it to the
 * SDK byte for byte. Paths the SDK would normalize (empty, `.` or `..` segments) are left to the SDK's signer.
 */
import { createHash, createHmac } from 'node:crypto';

export interface PostCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** The SDK's header value canonicalization (line breaks to spaces, runs of blanks to one, trimmed). */
const canonicalValue = (v: string): string =>
  v
    .replace(/[\r\n]/g, ' ')
    .replace(/[ \t]+/g, ' ')
    .replace(/^ | $/g, '');

/** The SDK's `escapeUri`: encodeURIComponent plus `!'()*`. */
const escapeUri = (s: string): string => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The canonical path of an already escaped path, escaped once more as for every service but S3; null when the SDK would normalize it. */
export function canonicalPath(path: string): string | null {
  if (!path.startsWith('/')) return null;
  const segments = path.slice(1).split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) return null;
  return escapeUri(path).replace(/%2F/g, '/');
}

const sha256Hex = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex');

export class PostSigner {
  private key: { secret: string; day: string; bytes: Buffer } | null = null;
  private readonly bodyHashes = new WeakMap<Uint8Array, string>();

  constructor(
    private readonly region: string,
    private readonly service = 'execute-api',
  ) {}

  /**
   * The signed headers of `POST path` with `body` to `host` at `date` (content-type application/octet-stream),
   * `authorization` included; null when `path` is one the SDK's signer must normalize.
   */
  sign(credentials: PostCredentials, host: string, path: string, body: Uint8Array, date: Date): Record<string, string> | null {
    const canonical = canonicalPath(path);
    if (canonical === null) return null;
    const longDate = date
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z')
      .replace(/[-:]/g, '');
    const day = longDate.slice(0, 8);
    const scope = `${day}/${this.region}/${this.service}/aws4_request`;
    const payloadHash = this.hashOf(body);
    const token = credentials.sessionToken;
    const headers: Record<string, string> = {
      host,
      'content-type': 'application/octet-stream',
      'content-length': String(body.byteLength),
      'x-amz-date': longDate,
      ...(token ? { 'x-amz-security-token': token } : {}),
      'x-amz-content-sha256': payloadHash,
    };
    const names = token ? SIGNED_WITH_TOKEN : SIGNED;
    const lines = names.map((n) => `${n}:${canonicalValue(headers[n])}`).join('\n');
    const signedHeaders = names.join(';');
    const request = `POST\n${canonical}\n\n${lines}\n\n${signedHeaders}\n${payloadHash}`;
    const toSign = `AWS4-HMAC-SHA256\n${longDate}\n${scope}\n${sha256Hex(request)}`;
    const signature = createHmac('sha256', this.signingKey(credentials.secretAccessKey, day)).update(toSign).digest('hex');
    headers.authorization = `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
    return headers;
  }

  /** The body's SHA-256, kept per body object (bodies shared by many posts are hashed once). */
  private hashOf(body: Uint8Array): string {
    let hash = this.bodyHashes.get(body);
    if (hash === undefined) {
      hash = sha256Hex(body);
      this.bodyHashes.set(body, hash);
    }
    return hash;
  }

  /** The day's signing key, derived again when the day or the secret changes (credentials rotate). */
  private signingKey(secret: string, day: string): Buffer {
    if (this.key && this.key.secret === secret && this.key.day === day) return this.key.bytes;
    const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
    const bytes = hmac(hmac(hmac(hmac(`AWS4${secret}`, day), this.region), this.service), 'aws4_request');
    this.key = { secret, day, bytes };
    return bytes;
  }
}

/** Signed header names, sorted as SigV4 wants them. */
const SIGNED = ['content-length', 'content-type', 'host', 'x-amz-content-sha256', 'x-amz-date'];
const SIGNED_WITH_TOKEN = [...SIGNED, 'x-amz-security-token'];
