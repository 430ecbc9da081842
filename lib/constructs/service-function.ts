import { fileURLToPath } from 'node:url';
import { AssetHashType, type BundlingOptions, DockerImage, Duration, type ILocalBundling } from 'aws-cdk-lib';
import { Effect, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Code, Function as LambdaFunction, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { buildSync } from 'esbuild';
import { leadingKeyPattern, MARKET_PK_PREFIX } from '../../shared/store/keys';
import type { BucketRight, FunctionSpec } from '../../shared/topology';
import type { StageConfig } from '../stages';
import { esbuildOptions } from './bundling';

/** The project root: handler entries in the manifest are relative to it. */
export const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Why the functions stay on Node.js 22 (cdk-nag's runtime rules of both packs). */
const PINNED_RUNTIME =
  'Node.js 22 is the runtime the design pins (LTS, matched by the esbuild target and the local runtime); moving to a newer runtime is a deliberate upgrade, not a drift.';

/** Reads that carry the items' partition keys (a transaction's reads are GetItem and ConditionCheckItem). */
const KEYED_READS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem'];

/** Writes that carry the items' partition keys, so `dynamodb:LeadingKeys` can restrict them. */
const KEYED_WRITES = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];

/** PartiQL writes: `dynamodb:LeadingKeys` is not a reliable guard for them, and no handler uses PartiQL. */
const PARTIQL_WRITES = ['dynamodb:PartiQLInsert', 'dynamodb:PartiQLUpdate', 'dynamodb:PartiQLDelete'];

/** Props of a {@link ServiceFunction}. */
export interface ServiceFunctionProps {
  spec: FunctionSpec;
  stage: StageConfig;
  /** The function's whole environment (lib/environment.ts builds it). */
  environment: Record<string, string>;
}

/**
 * The function's code: the esbuild build of its entry (lib/constructs/bundling.ts), run on this machine at synth.
 * Not NodejsFunction's bundling, which writes one file (`--outfile`) and so cannot split off the chunks that only
 * a dynamic `import()` reaches. Stacks that skip bundling (tests: `aws:cdk:bundling-stacks` = []) run no esbuild;
 * the image is never pulled, since local bundling always succeeds or throws.
 */
class EsbuildBundling implements BundlingOptions {
  readonly image = DockerImage.fromRegistry('public.ecr.aws/sam/build-nodejs22.x');
  readonly local: ILocalBundling;

  /** `entry` is also what tells two functions' bundles apart: CDK reuses a bundle whose (serialised) options match. */
  constructor(readonly entry: string) {
    this.local = {
      tryBundle(outputDir) {
        buildSync(esbuildOptions(`${PROJECT_ROOT}${entry}`, outputDir));
        return true;
      },
    };
  }
}

/**
 * A handler of the manifest as a Lambda function: Node 22 on arm64, ESM bundle with source maps, its own
 * log group with the stage's retention, and a role that starts with nothing but writing that log group.
 */
export class ServiceFunction extends LambdaFunction {
  readonly spec: FunctionSpec;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    const { spec, stage } = props;
    // Created beside the function because the function needs both at construction time.
    const logGroup = new LogGroup(scope, `${id}Logs`, { retention: stage.logRetention, removalPolicy: stage.removalPolicy });
    const role = new Role(scope, `${id}Role`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs the ${spec.name} function (${stage.stage})`,
    });
    logGroup.grantWrite(role);
    super(scope, id, {
      code: Code.fromAsset(PROJECT_ROOT, { assetHashType: AssetHashType.OUTPUT, bundling: new EsbuildBundling(spec.entry) }),
      handler: 'index.handler',
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: spec.memoryMb,
      timeout: Duration.seconds(spec.timeoutSeconds),
      // Held only where the stage reserves (lib/stages.ts reserveConcurrency): previews share dev's account.
      reservedConcurrentExecutions: stage.reserveConcurrency ? spec.reservedConcurrency : undefined,
      description: `${spec.name} (${stage.stage})`,
      role,
      logGroup,
      // X-Ray active tracing where the stage traces (lib/stages.ts tracing); the Tracer follows POWERTOOLS_TRACE_ENABLED.
      tracing: stage.tracing ? Tracing.ACTIVE : Tracing.DISABLED,
      environment: props.environment,
    });
    this.spec = spec;
    if (stage.tracing) {
      NagSuppressions.addResourceSuppressions(
        role,
        [
          {
            id: 'AwsSolutions-IAM5',
            reason:
              'xray:PutTraceSegments and xray:PutTelemetryRecords (what active tracing adds) have no resource-level permissions: X-Ray takes only Resource "*".',
            appliesTo: ['Resource::*'],
          },
        ],
        true,
      );
    }
    NagSuppressions.addResourceSuppressions(this, [
      { id: 'AwsSolutions-L1', reason: PINNED_RUNTIME },
      { id: 'Serverless-LambdaLatestVersion', reason: PINNED_RUNTIME },
      {
        id: 'Serverless-LambdaDLQ',
        reason:
          'Only the scheduled functions are invoked asynchronously, and their failed runs go to an on-failure destination (SQS, alarmed), which AWS recommends over a DLQ; HTTP and WebSocket functions are invoked synchronously, and queue and stream consumers are polled, their failures kept by the queues’ dead-letter queues and the stream’s on-failure queue.',
      },
      ...(stage.tracing
        ? []
        : [
            {
              id: 'Serverless-LambdaTracing',
              reason: `The ${stage.stage} stage runs without X-Ray (StageConfig.tracing, on in production; -c tracing=on switches it on for a deploy).`,
            },
          ]),
    ]);
  }

  /**
   * Gives the function exactly the table access its spec asks for (its name comes with the environment): the
   * keyed reads (and writes) on items whose partition key is of a family its spec lists (`tableKeys`), so a
   * compromised socket or push function cannot forge an API key verdict or plant an hourly answer. With
   * `ForAllValues` a request without leading keys would pass vacuously, so the Null check demands them, and
   * Scan (the one read without them) is granted to nobody: no handler scans. Writers without `marketPages`
   * are denied writes to items whose partition key is a market page, so only the merge (and retention, seal)
   * code can change market data, whatever other code runs in their process.
   */
  bindTable(table: { readonly tableArn: string }): void {
    const { table: access, tableKeys = [], marketPages } = this.spec.access;
    if (access === 'none') return;
    if (tableKeys.length === 0) throw new Error(`${this.spec.name} has table access but lists no key families (shared/topology.ts tableKeys)`);
    this.addToRolePolicy(
      new PolicyStatement({
        sid: 'TableItemsOfItsKeyFamilies',
        actions: access === 'write' ? [...KEYED_READS, ...KEYED_WRITES] : KEYED_READS,
        resources: [table.tableArn],
        conditions: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': tableKeys.map(leadingKeyPattern) },
          Null: { 'dynamodb:LeadingKeys': 'false' },
        },
      }),
    );
    if (access !== 'write' || marketPages) return;
    this.addToRolePolicy(
      new PolicyStatement({
        sid: 'DenyMarketPageWrites',
        effect: Effect.DENY,
        actions: KEYED_WRITES,
        resources: [table.tableArn],
        conditions: { 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': [`${MARKET_PK_PREFIX}*`] } },
      }),
    );
    this.addToRolePolicy(new PolicyStatement({ sid: 'DenyPartiQLWrites', effect: Effect.DENY, actions: PARTIQL_WRITES, resources: [table.tableArn] }));
  }

  /**
   * Gives the function exactly the prefix rights its spec lists, each prefix under the
   * stage's own `prefix` (previews share the dev bucket). Listing is granted per prefix through `s3:prefix`;
   * readers get it too, because S3 answers a missing key 404 only to a caller that may list that key.
   */
  bindBucket(bucket: IBucket, prefix = ''): void {
    const access = Object.entries(this.spec.access.bucket ?? {});
    const keysWith = (right: BucketRight) => access.filter(([, rights]) => rights.includes(right)).map(([p]) => `${prefix}${p}*`);
    for (const [right, actions] of OBJECT_ACTIONS) {
      const keys = keysWith(right);
      if (keys.length > 0) this.addToRolePolicy(new PolicyStatement({ actions, resources: keys.map((k) => bucket.arnForObjects(k)) }));
    }
    const listed = [...new Set([...keysWith('read'), ...keysWith('list')])];
    if (listed.length > 0) {
      this.addToRolePolicy(
        new PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn], conditions: { StringLike: { 's3:prefix': listed } } }),
      );
    }
  }

  /** Gives the function the work bucket (internal state, never served) when its spec asks for it, and nothing otherwise. */
  bindWorkBucket(bucket: IBucket): void {
    if (this.spec.access.workBucket !== 'write') return;
    // Exact actions, as for the files bucket; ListBucket makes a missing object 404 (a cold series), not 403.
    this.addToRolePolicy(new PolicyStatement({ actions: ['s3:GetObject', 's3:PutObject'], resources: [bucket.arnForObjects('*')] }));
    this.addToRolePolicy(new PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn] }));
  }
}

/** The object actions of each right (`list` is the bucket-level s3:ListBucket, granted per prefix above). */
const OBJECT_ACTIONS: ReadonlyArray<[BucketRight, string[]]> = [
  ['read', ['s3:GetObject']],
  ['write', ['s3:PutObject']],
  ['delete', ['s3:DeleteObject']],
];
