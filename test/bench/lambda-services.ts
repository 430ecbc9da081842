/**
 * The ports a function has on AWS, for CPU figures: the production SDK clients (shared/store/clients/, the same
 * settings: retries, the keep-alive pool, the base64 decoder, checksums) pointed straight at the local engines,
 * DynamoDB Local and s3rver, instead of at the local AWS edge (lib/local/aws-edge/).
 *
 * Why: the edge runs in the runtime's process, so a function's call through it also costs this process the
 * edge's side of the call (the request read again, its SigV4 signature recomputed, the IAM check, metering,
 * re-signing for the engine, the answer piped back). On AWS that work is DynamoDB's and S3's front doors', not
 * the Lambda's: a figure of what the Lambda pays leaves it out. The function's own side of every call (the
 * SDK's serialisation, signing, HTTP, parsing) is the same in both. Only benches use this: every test and the
 * runtime's functions keep going through the edge (its policies and faults are not bypassed anywhere else).
 */

import { localPlatform } from '../../lib/local/functions/local-platform';
import { type OperatorServices, operatorServices } from '../../lib/local/functions/operator';
import { connectionsClient } from '../../shared/store/clients/connections';
import { documentClient } from '../../shared/store/clients/dynamodb';
import { s3Client } from '../../shared/store/clients/s3';

/** The engines' own keys (lib/local/aws-edge/start.ts): DynamoDB Local keeps one database per key and region. */
const DDB_KEY = { accessKeyId: 'local', secretAccessKey: 'local' };
const S3_KEY = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/**
 * Every port of `through` (the runtime's operator services, whose calls go through the edge), rebuilt on
 * production clients that reach `engines` directly; queues, secrets, clock and log are `through`'s.
 */
export function lambdaServices(through: OperatorServices, engines: { dynamodb: string; s3: string }): OperatorServices {
  const config = { ...through.config, endpoints: { dynamodb: engines.dynamodb, s3: engines.s3 } };
  const ddb = documentClient({ ...config, credentials: DDB_KEY });
  const s3 = s3Client({ ...config, credentials: S3_KEY });
  const connections = connectionsClient(config);
  return operatorServices(
    localPlatform({
      config,
      clock: through.clock,
      log: through.log,
      ddb: () => ddb,
      s3: () => s3,
      connections: () => connections,
      queues: () => through.queues,
      secrets: () => through.secrets,
    }),
  );
}
