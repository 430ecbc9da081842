import { Aws, Stack } from 'aws-cdk-lib';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { deadLetterQueueName, type FunctionName, type FunctionSpec, MERGE_REJECTED_QUEUE } from '../../shared/topology';
import { type Deployment, functionEnvironment } from '../environment';
import type { StageConfig } from '../stages';
import type { DataTable } from './data-table';
import type { FileHost } from './dev-link';
import type { LiveApi } from './live-api';
import type { ManifestQueue } from './queues';
import { SECRET_ARN_VARIABLES, type ServiceSecrets } from './secrets';
import { ServiceFunction } from './service-function';

/** The part of a {@link Deployment} the stack knows before its functions' resources. */
export type StageDeployment = Pick<
  Deployment,
  'stage' | 'publicBase' | 'siteEntry' | 'cdnBase' | 'origins' | 'identity' | 'connectionsEndpoint' | 'vapidSubject' | 'logSampleRate' | 'tracing'
>;

/** Props of {@link ServiceFunctions}. */
export interface ServiceFunctionsProps {
  stage: StageConfig;
  specs: readonly FunctionSpec[];
  /** What every function is told about the stage; table, bucket, queue and secret variables are filled in here. */
  deployment: StageDeployment;
  table: DataTable;
  files: FileHost;
  /** Internal state, for functions whose spec lists `workBucket`. */
  work: IBucket;
  mergeQueues: readonly ManifestQueue[];
  /** Where merges that failed for their own data are set aside. */
  mergeRejected: IQueue;
  pushQueue: ManifestQueue;
  liveApi: LiveApi;
  secrets: ServiceSecrets;
}

const pascal = (name: string): string => name.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase());

/** Every function of the manifest, each granted exactly the access its spec lists. */
export class ServiceFunctions extends Construct {
  private readonly byName = new Map<FunctionName, ServiceFunction>();

  constructor(scope: Construct, id: string, props: ServiceFunctionsProps) {
    super(scope, id);
    // Queue names only, after one shared base: whole URLs for every market (twice for redrive) came near
    // Lambda's 4 KB environment limit (issue 26 point 0).
    const queueNames = new Map<string, string>([
      ...[...props.mergeQueues, props.pushQueue].map((q): [string, string] => [q.spec.name, q.queue.queueName]),
      ...props.mergeQueues.map((q): [string, string] => [deadLetterQueueName(q.spec.name), q.deadLetterQueue.queueName]),
      [MERGE_REJECTED_QUEUE.name, props.mergeRejected.queueName],
    ]);
    const deployment: Deployment = {
      ...props.deployment,
      tableName: props.table.tableName,
      bucketName: props.files.bucket.bucketName,
      filesPrefix: props.files.prefix,
      workBucketName: props.work.bucketName,
      queueUrl: (name) => queueNames.get(name) ?? `unknown queue ${name}`,
      queueUrlBase: `https://sqs.${Aws.REGION}.${Aws.URL_SUFFIX}/${Aws.ACCOUNT_ID}/`,
      secret: (name) => ({ [SECRET_ARN_VARIABLES[name]]: props.secrets.secrets[name].secretArn }),
      toJson: (value) => Stack.of(this).toJsonString(value),
    };
    for (const spec of props.specs) {
      const fn = new ServiceFunction(this, pascal(spec.name), { spec, stage: props.stage, environment: functionEnvironment(spec, deployment) });
      fn.bindTable(props.table);
      fn.bindBucket(props.files.bucket, props.files.prefix);
      fn.bindWorkBucket(props.work);
      const { queues, mergeFailures, connections, secrets = [] } = spec.access;
      const sendTo = (queues ?? []).flatMap((group) => (group === 'merge' ? props.mergeQueues : [props.pushQueue]));
      for (const q of sendTo) q.queue.grantSendMessages(fn);
      if (mergeFailures) props.mergeRejected.grantSendMessages(fn);
      if (mergeFailures === 'redrive') for (const q of props.mergeQueues) q.deadLetterQueue.grantConsumeMessages(fn);
      if (connections) props.liveApi.grantConnections(fn);
      for (const name of secrets) props.secrets.secrets[name].grantRead(fn);
      this.byName.set(spec.name, fn);
      suppressGrantWildcards(fn);
    }
  }

  /** The function of a manifest name. */
  get(name: FunctionName): ServiceFunction {
    const fn = this.byName.get(name);
    if (!fn) throw new Error(`function ${name} is not in the manifest`);
    return fn;
  }

  /** All functions, in manifest order. */
  all(): ServiceFunction[] {
    return [...this.byName.values()];
  }
}

/**
 * The wildcards left are bounded to this stack's own resources: object keys under one granted prefix of the
 * files bucket (under the stage prefix) and the @connections paths of the stage's WebSocket API.
 */
function suppressGrantWildcards(fn: ServiceFunction): void {
  NagSuppressions.addResourceSuppressions(
    fn.role!,
    [
      {
        id: 'AwsSolutions-IAM5',
        reason:
          'Wildcards are key prefixes: object keys under one prefix the manifest grants (books/, live/, …) of this stage’s files bucket, itself under the stage prefix, object keys of its work bucket, and the @connections/* paths of this stage’s WebSocket API. No wildcard spans another resource.',
        appliesTo: [
          { regex: '/^Resource::.*FilesBucket.*\\*$/g' },
          { regex: '/^Resource::.*WorkBucket.*\\*$/g' },
          { regex: '/^Resource::arn:(<AWS::Partition>|aws):execute-api:.*@connections\\/\\*$/g' },
        ],
      },
    ],
    true,
  );
}
