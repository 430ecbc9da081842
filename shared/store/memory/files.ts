/** In-memory fake of the files port (unit tests); the contract suite holds it to the S3 adapter. */
import type { Clock } from '../../clock';
import type { FileHead, FilesPort, ListedFile, StoredHeaders } from '../../ports/files';

interface StoredObject {
  body: Buffer;
  headers: StoredHeaders;
  writtenAt: number;
}

/** S3 keeps an object's `LastModified` to the second: the fake's write times are too. */
const toSecond = (ms: number): number => Math.floor(ms / 1000) * 1000;

export class MemoryFiles implements FilesPort {
  readonly objects = new Map<string, StoredObject>();

  constructor(private readonly clock: Clock) {}

  async put(path: string, body: Uint8Array, headers: StoredHeaders): Promise<void> {
    this.objects.set(path, { body: Buffer.from(body), headers: { ...headers }, writtenAt: toSecond(this.clock.now()) });
  }

  async get(path: string): Promise<Buffer | null> {
    const o = this.objects.get(path);
    return o ? Buffer.from(o.body) : null;
  }

  async head(path: string): Promise<FileHead | null> {
    const o = this.objects.get(path);
    return o ? { size: o.body.length, writtenAt: o.writtenAt } : null;
  }

  async list(prefix: string): Promise<ListedFile[]> {
    return [...this.objects]
      .filter(([path]) => path.startsWith(prefix))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([path, o]) => ({ path, lastModified: o.writtenAt }));
  }

  async delete(paths: readonly string[]): Promise<void> {
    for (const p of paths) this.objects.delete(p);
  }

  /** The stored headers of an object (tests). */
  headersOf(path: string): StoredHeaders | undefined {
    return this.objects.get(path)?.headers;
  }
}
