/**
 * gzip through the Compression Streams API (browsers, Node 18+), so the client needs no `node:zlib`: upload
 * bodies are gzipped (spec Uploads: optional `Content-Encoding: gzip`), and files a host served without
 * `Content-Encoding` are gunzipped here.
 */

/** Whether this platform has the Compression Streams API. */
export const canGzip = (): boolean => typeof CompressionStream === 'function';

/** Bytes over an ArrayBuffer (what `fetch` takes as a body under the DOM's types). */
export type Bytes = Uint8Array<ArrayBuffer>;

async function through(bytes: Uint8Array, stream: CompressionStream | DecompressionStream): Promise<Bytes> {
  const piped = new Blob([bytes as Bytes]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(piped).arrayBuffer());
}

/** The gzip of a text's UTF-8 bytes. */
export const gzipText = (text: string): Promise<Bytes> => through(new TextEncoder().encode(text), new CompressionStream('gzip'));

/** True when the bytes start with gzip's magic number. */
export const isGzip = (bytes: Uint8Array): boolean => bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;

/** The bytes gunzipped when they are gzip, else as they are. */
export const maybeGunzip = async (bytes: Uint8Array): Promise<Uint8Array> => (isGzip(bytes) ? through(bytes, new DecompressionStream('gzip')) : bytes);
