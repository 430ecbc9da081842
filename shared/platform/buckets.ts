/** The files and work bucket ports (functions whose manifest access names a bucket). */
import type { FilesPort } from '../ports/files';
import { S3Files } from '../store/s3-files';
import type { Platform } from './platform';

/** The files bucket, under the stage's prefix. */
export const filesOf = (p: Platform<'s3'>): FilesPort => new S3Files(p.s3(), p.config.bucketName, p.config.filesPrefix);

/** The private work bucket. */
export const workOf = (p: Platform<'s3'>): FilesPort => new S3Files(p.s3(), p.config.workBucketName, '');
