/**
 * S3's `LastModified` at the service's clock (lib/local/aws-edge/s3.ts): S3 stamps each object with the time
 * it was written, and the service's clock is AWS's; s3rver stamps the machine's wall clock, which the local
 * runtime's manual or replayed clock does not follow. So the edge records the service-clock time of every
 * write (PutObject, CopyObject, CompleteMultipartUpload) in the object's hidden metadata (kept across
 * restarts, never shown) and in memory, and rewrites `LastModified` in HeadObject, GetObject and list answers
 * to it, as S3 would answer with a clock at the service's time. Production code reads `LastModified` only.
 */
import { request as httpRequest } from 'node:http';

/** The metadata entry (on s3rver) holding an object's service-clock write time in ms; never shown to callers. */
export const STORED_WRITTEN = 'x-amz-meta-local-edge-written';

/** The commands that write an object, so stamp it. */
export const WRITES = new Set(['PutObjectCommand', 'CopyObjectCommand', 'CompleteMultipartUploadCommand']);

/** The text of an XML element's content (S3's answers and DeleteObjects' list escape keys). */
export const xmlUnescape = (s: string): string =>
  s.replace(/&(lt|gt|quot|apos|amp|#(\d+)|#x([0-9a-fA-F]+));/g, (_, name: string, dec?: string, hex?: string) =>
    dec
      ? String.fromCodePoint(Number(dec))
      : hex
        ? String.fromCodePoint(Number.parseInt(hex, 16))
        : ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' }[name] ?? ''),
  );

const encodeKey = (key: string): string => key.split('/').map(encodeURIComponent).join('/');

export class WriteTimes {
  /** `<bucket>/<key>` → service-clock write time (ms); null: written before the edge stamped (s3rver's own time stands). */
  private readonly times = new Map<string, number | null>();

  constructor(
    /** s3rver's origin, asked (HEAD) for the stored time of an object this edge has not seen written since it started. */
    private readonly target: string,
    private readonly now: () => number,
  ) {}

  /** The time a write now is stamped with: S3 keeps `LastModified` to the second. */
  stamp(): number {
    return Math.floor(this.now() / 1000) * 1000;
  }

  /** Notes a write of `bucket/key` at `at`. */
  wrote(bucket: string, key: string, at: number): void {
    this.times.set(`${bucket}/${key}`, at);
  }

  /** Forgets deleted objects (a later write stamps anew). */
  deleted(bucket: string, keys: readonly string[]): void {
    for (const key of keys) this.times.delete(`${bucket}/${key}`);
  }

  /** The write time of an object from its answer's stored metadata header (a HEAD or GET just made), remembered. */
  fromAnswer(bucket: string, key: string, stored: string | string[] | undefined): number | null {
    const known = this.times.get(`${bucket}/${key}`);
    if (known !== undefined) return known;
    const at = Number(stored);
    const time = typeof stored === 'string' && Number.isFinite(at) && at > 0 ? at : null;
    this.times.set(`${bucket}/${key}`, time);
    return time;
  }

  /** The write time of an object, asking s3rver for its metadata when not known in memory. */
  private async lookup(bucket: string, key: string): Promise<number | null> {
    const known = this.times.get(`${bucket}/${key}`);
    if (known !== undefined) return known;
    const stored = await new Promise<string | undefined>((resolve, reject) => {
      const req = httpRequest(new URL(`/${encodeURIComponent(bucket)}/${encodeKey(key)}`, this.target), { method: 'HEAD' }, (answer) => {
        answer.resume();
        resolve(answer.statusCode === 200 ? (answer.headers[STORED_WRITTEN] as string | undefined) : undefined);
      });
      req.on('error', reject);
      req.end();
    });
    return this.fromAnswer(bucket, key, stored);
  }

  /** A ListObjects(V2) answer with each `<Contents>`' `<LastModified>` at its object's service-clock write time. */
  async rewriteList(bucket: string, xml: string): Promise<string> {
    const entries = [...xml.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)];
    const times = await Promise.all(
      entries.map((m) => {
        const key = /<Key>([\s\S]*?)<\/Key>/.exec(m[1]);
        return key ? this.lookup(bucket, xmlUnescape(key[1])) : Promise.resolve(null);
      }),
    );
    let i = 0;
    return xml.replace(/<Contents>([\s\S]*?)<\/Contents>/g, (whole, inner: string) => {
      const at = times[i++];
      if (at === null || at === undefined) return whole;
      return `<Contents>${inner.replace(/<LastModified>[^<]*<\/LastModified>/, `<LastModified>${new Date(at).toISOString()}</LastModified>`)}</Contents>`;
    });
  }
}
