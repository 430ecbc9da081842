/**
 * Internal state of the file jobs (today the folded hour series behind the recent-changes file) in the work
 * bucket: private, never behind the file host (DESIGN: besides the spec's paths the files bucket holds only
 * `answers/v1/<cap>/…`; internal state never sits where the file host serves it). S3 rather than DynamoDB:
 * a 20000-key market's series is about 25 MB, rewritten every hour (docs/interpretations.md). Each stage has
 * its own work bucket, so its keys need no stage prefix.
 */
import type { FilesPort } from '../ports/files';

type WithWork = { work: FilesPort };

export const seriesKey = (market: string): string => `recent-series/v1/${market}.bin`;

/** An object of the work bucket, or null when it does not exist. */
export const getWorkObject = ({ work }: WithWork, key: string): Promise<Buffer | null> => work.get(key);

/** Writes an object of the work bucket. */
export const putWorkObject = ({ work }: WithWork, key: string, data: Uint8Array): Promise<void> =>
  work.put(key, data, { contentType: 'application/octet-stream' });
