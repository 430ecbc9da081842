/**
 * The frame of every packed page (page-codec.ts): byte 0 = VERSION << 4 | kind, byte 1 = flags (bit 0:
 * deflated), then the payload, raw-deflated when that makes it smaller.
 */
import { promisify } from 'node:util';
import { deflateRaw, deflateRawSync, inflateRawSync } from 'node:zlib';
import { Reader, type Writer } from './page-columns';

const VERSION = 1;
export const Kind = { Rows: 1, Candles: 2, Volume: 3, History: 4, CandleHead: 5, CandleRest: 6 } as const;
export type Kind = (typeof Kind)[keyof typeof Kind];
const DEFLATED = 1;
/** Payloads smaller than this are left raw: deflate's framing would eat the gain. */
const DEFLATE_FROM = 64;

/** A page of `kind` from its written payload. */
export function seal(kind: Kind, w: Writer): Uint8Array {
  const payload = w.bytes();
  return frame(kind, payload, payload.length >= DEFLATE_FROM ? deflateRawSync(payload) : undefined);
}

const deflateRawAsync = promisify(deflateRaw);

/**
 * `seal` with the deflate on libuv's pool (the same zlib settings, so the very same bytes): for a merge's
 * many pages at once, whose deflates then run beside the main thread's encoding and sending (the merge
 * function has more than one vCPU). `w` must not be written to until it settles.
 */
export async function sealAsync(kind: Kind, w: Writer): Promise<Uint8Array> {
  const payload = w.bytes();
  return frame(kind, payload, payload.length >= DEFLATE_FROM ? await deflateRawAsync(payload) : undefined);
}

/** The frame around a payload, deflated when that is smaller. */
function frame(kind: Kind, payload: Uint8Array, packed: Uint8Array | undefined): Uint8Array {
  const useDeflate = packed !== undefined && packed.length < payload.length;
  const body = useDeflate ? packed : payload;
  const out = new Uint8Array(2 + body.length);
  out[0] = (VERSION << 4) | kind;
  out[1] = useDeflate ? DEFLATED : 0;
  out.set(body, 2);
  return out;
}

/** A reader over a page's payload (refuses a page of another kind or version). */
export function open(buf: Uint8Array, kind: Kind): Reader {
  return new Reader(payload(buf, kind));
}

/** A page's payload, inflated when it was deflated. */
export function payload(buf: Uint8Array, kind: Kind): Uint8Array {
  if (buf.length < 2 || buf[0] !== ((VERSION << 4) | kind)) throw new RangeError('not a page of the expected kind or version');
  const body = buf.subarray(2);
  return buf[1] & DEFLATED ? new Uint8Array(inflateRawSync(body)) : body;
}

/** The still deflated payload of a deflated page of `kind`; undefined for any other page (read it with `open`). */
export function deflatedBody(buf: Uint8Array, kind: Kind): Uint8Array | undefined {
  return buf.length >= 2 && buf[0] === ((VERSION << 4) | kind) && buf[1] & DEFLATED ? buf.subarray(2) : undefined;
}
