/**
 * Reading published item data (spec api.md: Item data endpoints, item pages): which build answers a request,
 * its files as stored, and the parsed items file, kept in memory per immutable version.
 */
import { gunzipSync } from 'node:zlib';
import { itemFilePaths } from '../domain/file-paths';
import { itemOfKeyInText } from '../domain/item-text';
import { type ItemFile, isBuildName } from '../domain/items';
import { NotFoundError, ValidationError } from '../errors';
import type { BuildRecord } from '../ports/catalogue';
import type { Services } from '../services';
import { getObject, type StoredObject } from './bucket';
import { ensureMerged } from './publish';

/** A build's files as one request sees them: merged (`hash`) or, until merged, generated only. */
export interface ItemFilesRef {
  build: string;
  hash: string | null;
  /** Identifies the file's content: its hash, or the generated files' publication time. */
  version: string;
}

const refOf = (rec: BuildRecord): ItemFilesRef => ({ build: rec.build, hash: rec.hash, version: rec.hash ?? `p${rec.publishedAt}` });

/**
 * Spec GET /api/v1/items?build: the named build (400 `bad_build` when malformed or never published) or the
 * current one (404 `not_found` before anything is published), its merged files rebuilt on request when due.
 */
export async function resolveItemFiles(
  svc: Pick<Services, 'clock' | 'catalogue' | 'files' | 'log' | 'market'>,
  build: string | undefined,
): Promise<ItemFilesRef> {
  if (build !== undefined && !isBuildName(build)) throw new ValidationError('bad_build', 'unknown build');
  const name = build ?? (await svc.catalogue.getCurrent())?.build;
  if (name === undefined) throw new NotFoundError('not_found', 'no item data is published');
  const rec = await ensureMerged(svc, name);
  if (!rec) throw build === undefined ? new NotFoundError('not_found', 'no item data is published') : new ValidationError('bad_build', 'unknown build');
  return refOf(rec);
}

/** The current build's files as they are now, never rebuilding (read-only callers such as pages); null before any. */
export async function currentItemFiles(svc: Pick<Services, 'catalogue'>): Promise<ItemFilesRef | null> {
  const current = await svc.catalogue.getCurrent();
  if (!current) return null;
  if (current.hash) return { build: current.build, hash: current.hash, version: current.hash };
  const rec = await svc.catalogue.getBuild(current.build);
  return rec ? refOf({ ...rec, hash: null }) : null;
}

/** A build's `items` or `search` file as stored (gzip). */
export async function itemFileObject(svc: Pick<Services, 'files'>, ref: ItemFilesRef, file: 'items' | 'search'): Promise<StoredObject> {
  const obj = await getObject(svc, itemFilePaths(ref.build, ref.hash)[file]);
  if (!obj) throw new Error(`item file ${file} of ${ref.build}-${ref.hash} is missing`);
  return obj;
}

/** Decompressed text of a stored file. */
export const objectText = (obj: StoredObject): string => (obj.contentEncoding === 'gzip' ? gunzipSync(obj.data) : obj.data).toString('utf8');

/** A warm function keeps the last few files read, keyed by immutable version (least recently used first out). */
class VersionCache<T> {
  private readonly held = new Map<string, Promise<T>>();
  constructor(private readonly keep: number) {}

  get(id: string, load: () => Promise<T>): Promise<T> {
    let hit = this.held.get(id);
    if (hit) {
      this.held.delete(id);
      this.held.set(id, hit);
      return hit;
    }
    hit = load();
    hit.catch(() => this.held.delete(id));
    this.held.set(id, hit);
    while (this.held.size > this.keep) this.held.delete(this.held.keys().next().value as string);
    return hit;
  }
}

const versionId = (svc: Pick<Services, 'config'>, ref: ItemFilesRef): string => `${svc.config.bucketName}/${svc.config.filesPrefix}${ref.build}/${ref.version}`;

// Parsed files are large (~100k items, several times their text in memory): only readers of every key use them.
const parsed = new VersionCache<ItemFile>(3);
const texts = new VersionCache<string>(3);

/** The parsed items file of a build's files (readers of every key: unknown keys, the sitemap, snapshots). */
export function itemFileOf(svc: Pick<Services, 'config' | 'files'>, ref: ItemFilesRef): Promise<ItemFile> {
  return parsed.get(versionId(svc, ref), async () => JSON.parse(objectText(await itemFileObject(svc, ref, 'items'))) as ItemFile);
}

/**
 * One key's item record and variant from a build's items file, read from its text without parsing the whole
 * file (issue 23: item pages and `/api/v1/items/:key` hold the text, not the parsed file).
 */
export async function itemOfKeyIn(svc: Pick<Services, 'config' | 'files'>, ref: ItemFilesRef, key: number): Promise<ReturnType<typeof itemOfKeyInText>> {
  const text = await texts.get(versionId(svc, ref), async () => objectText(await itemFileObject(svc, ref, 'items')));
  return itemOfKeyInText(text, key);
}
