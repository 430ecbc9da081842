/** The DynamoDB adapter of the uploads port: admission records and quarantine records over one table. */
import type { UploadsPort } from '../ports/uploads';
import { atPort } from './dependency-failure';
import { bindAll, type Table } from './table';
import { deleteQuarantine, putQuarantine, quarantinedBefore } from './upload-quarantine';
import {
  claimBookAt,
  claimRetry,
  keepAnswer,
  lastCreditedAt,
  releaseBookAt,
  releaseCreditInterval,
  releaseRetry,
  releaseUploadLimit,
  takeCreditInterval,
  takeUploadLimit,
} from './upload-records';

export const dynamoUploads = (t: Table): UploadsPort =>
  atPort(
    'table',
    bindAll(t, {
      lastCreditedAt,
      claimBookAt,
      releaseBookAt,
      claimRetry,
      releaseRetry,
      keepAnswer,
      takeUploadLimit,
      releaseUploadLimit,
      takeCreditInterval,
      releaseCreditInterval,
      putQuarantine,
      quarantinedBefore,
      deleteQuarantine,
    }),
  );
