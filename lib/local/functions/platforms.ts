/**
 * What each function is composed on locally: its own configuration, built by the environment builder the
 * stack uses (lib/environment.ts) with the secrets' values where AWS has their ARNs and the local endpoints,
 * over one set of real SDK clients that sign every call as the function making it (so the local AWS edge
 * holds it to that function's policies), and the queue port held to the manifest's queue grants.
 */

import type { S3Client } from '@aws-sdk/client-s3';
import type { Clock } from '../../../shared/clock';
import { parseConfig } from '../../../shared/config';
import type { Log } from '../../../shared/log';
import type { ClientName, Platform } from '../../../shared/platform/platform';
import { keepSecretsOutOfLogs } from '../../../shared/platform/secret-env';
import type { QueuePort } from '../../../shared/ports/queues';
import type { SecretsPort } from '../../../shared/ports/secrets';
import { connectionsClient } from '../../../shared/store/clients/connections';
import { documentClient } from '../../../shared/store/clients/dynamodb';
import { s3Client } from '../../../shared/store/clients/s3';
import { FUNCTIONS, type FunctionName, type FunctionSpec, functionSpec } from '../../../shared/topology';
import { type Deployment, functionEnvironment } from '../../environment';
import type { LocalAws } from '../aws-edge/start';
import type { LocalQueues } from '../background/queues';
import type { MergeCrash } from '../control/merge-crash';
import { LOCAL_REGION } from '../iam/calls';
import { enforceQueueGrants } from '../iam/grants';
import { type LocalNames, type LocalSecrets, localDeployment } from './deployment';
import { currentFunction } from './lambda';
import { localPlatform } from './local-platform';
import { instrumentClients } from './service-clients';

export interface PlatformParts {
  names: LocalNames;
  secrets: LocalSecrets;
  /** The website's entry file (the pages' deployment names it). */
  siteEntry: string;
  aws: LocalAws;
  clock: Clock;
  log: Log;
  mergeCrash: MergeCrash;
  queues: LocalQueues;
  /** Wraps the queue port as the handlers see it (the call recorder, when calls are recorded). */
  recordQueues: (queues: QueuePort) => QueuePort;
  /** A daily quota of keys new to the catalogue below the deployed 10,000 (tests). */
  catalogueKeysPerDay?: number;
}

export interface LocalPlatforms {
  /** Each function's platform, its composition root's ground. */
  byFunction: Map<FunctionName, Platform<ClientName>>;
  /** The operator's: calls outside any invocation (the control API's publishing) may touch everything. */
  operator: Platform<ClientName>;
  /** The shared S3 client, signed as the function whose invocation makes the call. */
  s3: S3Client;
  /** The queue port every in-process function (and, through the SQS endpoint, every sandbox) uses. */
  queues: QueuePort;
  /** What the sandboxes' environments are built from (`--bundles`). */
  deployment: Deployment;
  localOnly: Record<string, string>;
}

/** Calls outside any invocation (the control API's publishing) are the operator's: every access. */
export const OPERATOR: FunctionSpec = {
  ...functionSpec('api'),
  access: {
    table: 'write',
    workBucket: 'write',
    queues: ['merge', 'push'],
    mergeFailures: 'redrive',
    secrets: ['identity', 'vapid', 'origin', 'uploader'],
  },
};

// Locally every secret's value is set directly (no ARN), so nothing asks this port.
const NO_SECRETS: SecretsPort = { read: async (arn) => Promise.reject(new Error(`the local runtime has no secret ${arn}`)) };

/**
 * Each function's configuration, built by the stack's environment builder (lib/environment.ts) over the local
 * deployment, with `localOnly`'s variables (endpoints, the push loopback) added: the engines' and the memory mode's.
 */
export function localConfigs(p: Pick<PlatformParts, 'names' | 'secrets' | 'siteEntry'>, localOnly: Record<string, string>) {
  const deployment = { ...localDeployment(p.names, p.secrets), siteEntry: p.siteEntry };
  // Each configuration's secrets are kept out of the logs by the AWS platform's own registration
  // (shared/platform/secret-env.ts), so the local runtime redacts exactly what a function in AWS does.
  const configOf = (spec: FunctionSpec) => {
    const config = parseConfig({ ...functionEnvironment(spec, deployment), ...localOnly });
    keepSecretsOutOfLogs(config);
    return config;
  };
  return { deployment, configOf };
}

/** What every local deployment sets beyond the stack's environment: its gateways, Web Push to loopback, the region, a test's lower catalogue quota. */
export const localOnlyBase = (catalogueKeysPerDay?: number): Record<string, string> => ({
  LOCAL_GATEWAY: 'on',
  PUSH_LOOPBACK: 'allow',
  AWS_REGION: LOCAL_REGION,
  ...(catalogueKeysPerDay ? { CATALOGUE_KEYS_PER_DAY: String(catalogueKeysPerDay) } : {}),
});

/** The queue port every in-process function uses: a crashed merge sends nothing, and each function only its granted queues. */
export function localQueuePort(queues: LocalQueues, mergeCrash: MergeCrash, log: Log): QueuePort {
  return enforceQueueGrants(crashable(queues, mergeCrash), currentFunction, (message) => log('error', message));
}

export function localPlatforms(p: PlatformParts): LocalPlatforms {
  const localOnly = { DYNAMODB_ENDPOINT: p.aws.edge.url, S3_ENDPOINT: p.aws.edge.url, ...localOnlyBase(p.catalogueKeysPerDay) };
  const { deployment, configOf } = localConfigs(p, localOnly);
  // One set of real SDK clients for the in-process functions, each call signed as the function making it.
  const config = { ...configOf(OPERATOR), credentials: p.aws.credentials.provider(currentFunction) };
  const clients = { ddb: documentClient(config), s3: s3Client(config), connections: connectionsClient(config) };
  instrumentClients(clients, { mergeCrash: p.mergeCrash });
  const queues = p.recordQueues(localQueuePort(p.queues, p.mergeCrash, p.log));
  const platformOf = (spec: FunctionSpec): Platform<ClientName> =>
    localPlatform({
      config: configOf(spec),
      clock: p.clock,
      log: p.log,
      ddb: () => clients.ddb,
      s3: () => clients.s3,
      connections: () => clients.connections,
      queues: () => queues,
      secrets: () => NO_SECRETS,
    });
  return {
    byFunction: new Map(FUNCTIONS.map((spec) => [spec.name, platformOf(spec)])),
    operator: platformOf(OPERATOR),
    s3: clients.s3,
    queues,
    deployment,
    localOnly,
  };
}

/** A crashed merge sends nothing either; its error path may still hide the failed messages (a throw, not a lost process). */
function crashable(queues: LocalQueues, mergeCrash: MergeCrash): QueuePort {
  return {
    send: async (queue, messages) => {
      mergeCrash.assertAlive();
      await queues.send(queue, messages);
    },
    changeVisibility: (arn, handles, seconds) => queues.changeVisibility(arn, handles, seconds),
    receive: (queue, max, visibility) => queues.receive(queue, max, visibility),
    delete: (queue, handles) => queues.delete(queue, handles),
  };
}
