/**
 * A browser's side of Web Push for tests: a P-256 key pair and auth secret like `PushManager.subscribe()`
 * makes, an RFC 8291 `aes128gcm` decrypter, and a tiny push service on 127.0.0.1 that records requests.
 */
import { createDecipheriv, createECDH, hkdfSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export interface BrowserKeys {
  /** What the browser hands the site: `{endpoint, keys: {p256dh, auth}}` minus the endpoint. */
  keys: { p256dh: string; auth: string };
  decrypt(body: Buffer): Buffer;
}

/** A fresh browser key pair (P-256 ECDH) and 16-byte auth secret. */
export function browserKeys(): BrowserKeys {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const auth = randomBytes(16);
  const uaPublic = ecdh.getPublicKey();
  return {
    keys: { p256dh: uaPublic.toString('base64url'), auth: auth.toString('base64url') },
    decrypt: (body) => decryptAes128gcm(body, (asPublic) => ecdh.computeSecret(asPublic), uaPublic, auth),
  };
}

/** RFC 8291 / RFC 8188: header salt(16) rs(4) idlen(1) keyid(= sender's public key), one record, padding delimiter 2. */
export function decryptAes128gcm(body: Buffer, ecdh: (asPublic: Buffer) => Buffer, uaPublic: Buffer, auth: Buffer): Buffer {
  const salt = body.subarray(0, 16);
  const idlen = body[20];
  const asPublic = body.subarray(21, 21 + idlen);
  const record = body.subarray(21 + idlen);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, asPublic]);
  const ikm = Buffer.from(hkdfSync('sha256', ecdh(asPublic), auth, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const plain = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  let end = plain.length - 1;
  while (end >= 0 && plain[end] === 0) end--;
  if (plain[end] !== 2) throw new Error('not a last record (padding delimiter 2 missing)');
  return plain.subarray(0, end);
}

export interface ReceivedPush {
  path: string;
  method: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface PushReceiver {
  base: string;
  received: ReceivedPush[];
  /** The status the receiver answers for a path (default 201). */
  statusFor: Map<string, number>;
  close(): Promise<void>;
}

/** A push service on 127.0.0.1 that records every request. */
export async function startPushReceiver(): Promise<PushReceiver> {
  const received: ReceivedPush[] = [];
  const statusFor = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, method: req.method ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      res.statusCode = statusFor.get(path) ?? 201;
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    base: `http://127.0.0.1:${port}`,
    received,
    statusFor,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
