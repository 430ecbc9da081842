/**
 * The files port: a bucket of objects under one key prefix (the stage's `FILES_PREFIX` for the files bucket,
 * none for the private work bucket), with the headers they are served with. Paths are relative to the prefix.
 */

/** The headers an object is stored (and, on the files bucket, served) with. */
export interface StoredHeaders {
  contentType: string;
  contentEncoding?: string;
  cacheControl?: string;
}

export interface FileHead {
  size: number;
  /** When it was written on the service clock (the bucket's own time where the object carries none). */
  writtenAt?: number;
}

export interface ListedFile {
  /** Path relative to the prefix. */
  path: string;
  /** The bucket's `LastModified` (wall clock). */
  lastModified?: number;
}

export interface FilesPort {
  /** Writes an object (replacing one at the same path), stamped with the service clock's time. */
  put(path: string, body: Uint8Array, headers: StoredHeaders): Promise<void>;
  /** The object's bytes, or null when there is none. */
  get(path: string): Promise<Buffer | null>;
  /** The object's size and write time, or null when there is none. */
  head(path: string): Promise<FileHead | null>;
  /** Every object under a path prefix, in key order. */
  list(prefix: string): Promise<ListedFile[]>;
  /** Deletes objects (missing ones are no error). */
  delete(paths: readonly string[]): Promise<void>;
}
