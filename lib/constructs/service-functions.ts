import { Stack } from 'aws-cdk-lib';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import type { StageConfig } from '../stages';
import type { FunctionName, FunctionSpec } from '../topology';
import type { DataTable } from './data-table';
import type { FileHost } from './dev-link';
import type { LiveApi } from './live-api';
import type { ManifestQueue } from './queues';
import { SECRET_ARN_VARIABLES, type ServiceSecrets } from './secrets';
import { ServiceFunction } from './service-function';

/** Props of {@link ServiceFunctions}. */
export interface ServiceFunctionsProps {
  stage: StageConfig;
  specs: readonly FunctionSpec[];
  /** Variables every function gets (shared/config.ts); table, bucket, queue and secret variables are added per function. */
  environment: Record<string, string>;
  table: DataTable;
  files: FileHost;
  /** Internal state, for functions whose spec lists `workBucket`. */
  work: IBucket;
  mergeQueues: readonly ManifestQueue[];
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
    const allQueues = [...props.mergeQueues, props.pushQueue];
    for (const spec of props.specs) {
      const fn = new ServiceFunction(this, pascal(spec.name), { spec, stage: props.stage, environment: props.environment });
      fn.bindTable(props.table);
      fn.bindBucket(props.files.bucket, props.files.prefix);
      fn.bindWorkBucket(props.work);
      const { queues, connections, secrets = [] } = spec.access;
      const sendTo = queues === 'send-all' ? allQueues : queues === 'send-merge' ? props.mergeQueues : queues === 'send-push' ? [props.pushQueue] : [];
      for (const q of sendTo) q.queue.grantSendMessages(fn);
      // Only the queues it may send to: a URL it cannot use would only invite a confusing AccessDenied.
      fn.addEnvironment('QUEUE_URLS', Stack.of(this).toJsonString(Object.fromEntries(sendTo.map((q) => [q.spec.name, q.queue.queueUrl]))));
      if (connections) props.liveApi.grantConnections(fn);
      for (const name of secrets) {
        props.secrets.secrets[name].grantRead(fn);
        fn.addEnvironment(SECRET_ARN_VARIABLES[name], props.secrets.secrets[name].secretArn);
      }
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
 * The wildcards CDK's grants produce are bounded to this stack's own resources: object keys of the files
 * bucket (under the stage prefix), the S3 action families read/write/delete, and the @connections paths
 * of the stage's WebSocket API.
 */
function suppressGrantWildcards(fn: ServiceFunction): void {
  NagSuppressions.addResourceSuppressions(
    fn.role!,
    [
      {
        id: 'AwsSolutions-IAM5',
        reason:
          'Wildcards come from scoped CDK grants: object keys of this stage’s files bucket (limited to its prefix) and of its work bucket, S3 Get/List/Put/Delete action families on those buckets, and the @connections/* paths of this stage’s WebSocket API. No wildcard spans another resource.',
        appliesTo: [
          'Action::s3:GetObject*',
          'Action::s3:GetBucket*',
          'Action::s3:List*',
          'Action::s3:Abort*',
          'Action::s3:DeleteObject*',
          { regex: '/^Resource::.*FilesBucket.*\\*$/g' },
          { regex: '/^Resource::.*WorkBucket.*\\*$/g' },
          { regex: '/^Resource::arn:<AWS::Partition>:execute-api:.*@connections\\/\\*$/g' },
        ],
      },
    ],
    true,
  );
}
