/**
 * Publishing item data (spec files-and-live: `items/v1/…` files and the `items/v1/current.json` pointer;
 * api.md: Catalogue upload rules, merge and rebuild). Generated files go to `items/v1/<build>/`, files merged
 * with the catalogue to the immutable `items/v1/<build>-<hash>/`, and the pointer names the current pair.
 */
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { ITEMS_CURRENT_PATH, itemFilePaths } from '../domain/file-paths';
import { buildSearchIndex, type GeneratedItemFile, isAcceptedName, mergeItems, needsRebuild, parseGeneratedItemFile, REBUILD_AFTER_MS } from '../domain/items';
import { itemsCurrentDoc } from '../files/documents';
import type { BuildRecord, CurrentBuild, NameRevision } from '../ports/catalogue';
import type { Services } from '../services';
import { getObject, objectExists, putJsonFile } from './bucket';
import { keysWithRows } from './market-keys';

/** What merging a build needs: the catalogue, the files, and the market rows (which keys are observed). */
type MergeServices = Pick<Services, 'clock' | 'catalogue' | 'files' | 'log' | 'market'>;

/** Spec: `hash` = first 16 hex digits of SHA-256 of the merged items text. */
export const mergedHash = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 16);

/** Writes `items/v1/current.json` `{v: 1, build, hash, items, search, at}` (paths relative to `cdnBase`). */
async function writePointer(svc: Pick<Services, 'files'>, current: CurrentBuild): Promise<void> {
  const pointer = itemsCurrentDoc(current.build, current.hash, itemFilePaths(current.build, current.hash), current.at);
  await putJsonFile(svc, ITEMS_CURRENT_PATH, JSON.stringify(pointer));
}

/** The generated item file of a published build. */
export async function readGeneratedFile(svc: Pick<Services, 'files'>, build: string): Promise<GeneratedItemFile> {
  const obj = await getObject(svc, itemFilePaths(build).items);
  if (!obj) throw new Error(`generated item file of build ${build} is missing`);
  const text = (obj.contentEncoding === 'gzip' ? gunzipSync(obj.data) : obj.data).toString('utf8');
  return JSON.parse(text) as GeneratedItemFile;
}

/**
 * Merges a build's generated data with the catalogue's accepted names and writes the immutable merged files
 * (skipped when files of the same hash exist); records them and, for the current build, moves the pointer.
 * One account's name counts only for a key with a row in some market (`isAcceptedName`), and the catalogue is
 * read through that filter, so the merge holds the names it merges, never every report. `onlyIfChanged`: when
 * the result is the recorded files, nothing is written or recorded.
 */
async function mergeBuild(svc: MergeServices, rec: BuildRecord, rev: NameRevision, generated?: GeneratedItemFile, onlyIfChanged = false): Promise<BuildRecord> {
  const [file, observedKeys] = await Promise.all([generated ?? readGeneratedFile(svc, rec.build), keysWithRows(svc)]);
  const observed = new Set(observedKeys);
  const isObserved = (key: number): boolean => observed.has(key);
  const leaders = await svc.catalogue.catalogueLeaders((l) => isAcceptedName(l, file, isObserved));
  const merged = mergeItems(file, leaders, rev.changedAt, isObserved);
  const text = JSON.stringify(merged);
  const hash = mergedHash(text);
  if (onlyIfChanged && hash === rec.hash) return rec;
  const paths = itemFilePaths(rec.build, hash);
  // The items file is written last, so its presence means the pair is complete.
  if (!(await objectExists(svc, paths.items))) {
    await putJsonFile(svc, paths.search, JSON.stringify(buildSearchIndex(merged)));
    await putJsonFile(svc, paths.items, text);
  }
  const now = svc.clock.now();
  const outcome = { hash, mergedAt: now, revision: rev.revision, changedAt: rev.changedAt };
  if (!(await svc.catalogue.recordMerged(rec, outcome))) return (await svc.catalogue.getBuild(rec.build)) ?? rec;
  const current = await svc.catalogue.getCurrent();
  if (current?.build === rec.build) await pointCurrentAt(svc, { build: rec.build, hash, at: now });
  svc.log('info', 'item files merged', { build: rec.build, hash, named: merged.catalogue.named });
  return { ...rec, ...outcome };
}

async function pointCurrentAt(svc: Pick<Services, 'catalogue' | 'files'>, current: CurrentBuild): Promise<void> {
  if (await svc.catalogue.updateCurrentFiles(current)) await writePointer(svc, current);
}

/**
 * The local control API's `POST /_local/items` (DESIGN): validates a generated item file, publishes it as its
 * build (generated files, then merged files) and makes that build current.
 */
export async function publishGeneratedItems(svc: MergeServices, value: unknown): Promise<{ build: string; hash: string | null }> {
  const file = parseGeneratedItemFile(value);
  const now = svc.clock.now();
  const paths = itemFilePaths(file.build);
  await putJsonFile(svc, paths.search, JSON.stringify(buildSearchIndex(file)));
  await putJsonFile(svc, paths.items, JSON.stringify(file));
  const rec = await svc.catalogue.putPublishedBuild(file.build, file.source, now);
  const current: CurrentBuild = { build: file.build, hash: null, at: now };
  await svc.catalogue.setCurrent(current);
  await writePointer(svc, current);
  const merged = await mergeBuild(svc, rec, await svc.catalogue.nameRevision(), file);
  return { build: file.build, hash: merged.hash };
}

/**
 * Spec Catalogue upload rules: a build's merged files, rebuilt first when missing or when an accepted name
 * changed since they were built and they are at least 10 minutes old. Null for a build never published.
 */
export async function ensureMerged(svc: MergeServices, build: string): Promise<BuildRecord | null> {
  const [rec, rev] = await Promise.all([svc.catalogue.getBuild(build), svc.catalogue.nameRevision()]);
  if (!rec) return null;
  if (!needsRebuild(rec, rev.revision, svc.clock.now())) return rec;
  return mergeBuild(svc, rec, rev);
}

/**
 * A build's merged files when an observation is what changed: a key some account alone named got its first
 * row since they were built (no name revision marks that). Merged again once the files are 10 minutes old, and
 * written only when the result differs.
 */
async function mergeObserved(svc: MergeServices, rec: BuildRecord | null): Promise<BuildRecord | null> {
  if (!rec?.hash || rec.mergedAt === null || svc.clock.now() - rec.mergedAt < REBUILD_AFTER_MS) return rec;
  const rev = await svc.catalogue.nameRevision();
  if (rev.revision !== rec.revision) return rec;
  return mergeBuild(svc, rec, rev, undefined, true);
}

/**
 * The items schedule (every 10 minutes): rebuilds the current build's merged files when due (a name changed,
 * or a key named by one account was observed), and re-points the pointer when it lags its build's record (a
 * run that stopped between the two writes).
 */
export async function rebuildCurrentItems(svc: MergeServices): Promise<{ build: string | null; hash: string | null }> {
  const before = await svc.catalogue.getCurrent();
  if (!before) return { build: null, hash: null };
  const rec = await mergeObserved(svc, await ensureMerged(svc, before.build));
  const current = await svc.catalogue.getCurrent();
  if (rec?.hash && current?.build === rec.build && current.hash !== rec.hash)
    await pointCurrentAt(svc, { build: rec.build, hash: rec.hash, at: svc.clock.now() });
  return { build: before.build, hash: rec?.hash ?? null };
}
