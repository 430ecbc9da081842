/**
 * S3's flexible checksums as the local S3 endpoint checks them (lib/local/aws-edge/s3.ts): the SDK's default
 * client sends a checksum with every upload, in a header (`x-amz-checksum-crc32: <base64>`) or, for a
 * streamed body, as the trailer of an `aws-chunked` body (`Content-Encoding: aws-chunked`,
 * `x-amz-decoded-content-length`, `x-amz-trailer: x-amz-checksum-crc32`). s3rver speaks neither, so the
 * endpoint decodes the body, checks the checksum as S3 does and hands s3rver the plain bytes.
 */
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';

/** The algorithms the SDK may send, by their header suffix; CRC64NVME is not computed locally (refused, named). */
export const CHECKSUM_ALGORITHMS = ['crc32', 'crc32c', 'sha1', 'sha256'] as const;
export type ChecksumAlgorithm = (typeof CHECKSUM_ALGORITHMS)[number];

const CRC32C_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32c(data: Buffer): number {
  let c = 0xffffffff;
  for (const byte of data) c = CRC32C_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

const bigEndian = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};

/** The checksum of `data` as S3 states it (base64 of the big-endian CRC, or of the digest). */
export function checksumOf(algorithm: ChecksumAlgorithm, data: Buffer): string {
  switch (algorithm) {
    case 'crc32':
      return bigEndian(crc32(data)).toString('base64');
    case 'crc32c':
      return bigEndian(crc32c(data)).toString('base64');
    case 'sha1':
    case 'sha256':
      return createHash(algorithm).update(data).digest('base64');
  }
}

/** An upload S3 would refuse: its answer's code and message. */
export class ChecksumRefusal extends Error {
  constructor(
    readonly code: 'BadDigest' | 'InvalidRequest' | 'IncompleteBody' | 'InvalidArgument',
    message: string,
  ) {
    super(message);
  }
}

/** The `x-amz-checksum-<algorithm>` header or trailer name of an algorithm, and back. */
export const checksumHeader = (algorithm: ChecksumAlgorithm): string => `x-amz-checksum-${algorithm}`;
const algorithmOf = (header: string): ChecksumAlgorithm | null => {
  const name = header.toLowerCase().replace(/^x-amz-checksum-/, '');
  return (CHECKSUM_ALGORITHMS as readonly string[]).includes(name) ? (name as ChecksumAlgorithm) : null;
};

/**
 * Decodes an `aws-chunked` body: `<hex size>[;extensions]\r\n<bytes>\r\n` chunks, a zero-size chunk, then
 * trailing headers (`name:value\r\n`) and a blank line. Answers the bytes and the trailers.
 */
export function decodeAwsChunked(body: Buffer): { data: Buffer; trailers: Record<string, string> } {
  const parts: Buffer[] = [];
  let at = 0;
  const line = (): string => {
    const end = body.indexOf('\r\n', at);
    if (end < 0) throw new ChecksumRefusal('IncompleteBody', 'The request body terminated unexpectedly');
    const text = body.subarray(at, end).toString('latin1');
    at = end + 2;
    return text;
  };
  for (;;) {
    const head = line();
    const size = Number.parseInt(head.split(';')[0], 16);
    if (!/^[0-9a-fA-F]+$/.test(head.split(';')[0]) || !Number.isSafeInteger(size)) throw new ChecksumRefusal('InvalidArgument', 'Invalid chunk size');
    if (size === 0) break;
    if (at + size + 2 > body.length || body.subarray(at + size, at + size + 2).toString('latin1') !== '\r\n')
      throw new ChecksumRefusal('IncompleteBody', 'The request body terminated unexpectedly');
    parts.push(body.subarray(at, at + size));
    at += size + 2;
  }
  const trailers: Record<string, string> = {};
  while (at < body.length) {
    const header = line();
    if (header === '') break;
    const colon = header.indexOf(':');
    if (colon < 0) throw new ChecksumRefusal('InvalidArgument', 'Malformed trailing header');
    trailers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
  }
  return { data: Buffer.concat(parts), trailers };
}

/**
 * The checksum an upload states (header or trailer), checked against the bytes: null when none is stated;
 * a ChecksumRefusal when it is wrong, malformed or of an algorithm not computed here.
 */
export function verifiedChecksum(data: Buffer, stated: Record<string, string>): { algorithm: ChecksumAlgorithm; value: string } | null {
  const names = Object.keys(stated).filter((h) => h.startsWith('x-amz-checksum-') && h !== 'x-amz-checksum-type' && h !== 'x-amz-checksum-mode');
  if (names.length === 0) return null;
  if (names.length > 1) throw new ChecksumRefusal('InvalidRequest', 'Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.');
  const algorithm = algorithmOf(names[0]);
  if (!algorithm)
    throw new ChecksumRefusal('InvalidRequest', `The local S3 endpoint does not compute ${names[0]} (it checks ${CHECKSUM_ALGORITHMS.join(', ')})`);
  const value = stated[names[0]];
  if (checksumOf(algorithm, data) !== value)
    throw new ChecksumRefusal('BadDigest', `The ${algorithm.toUpperCase()} you specified did not match the calculated checksum.`);
  return { algorithm, value };
}
