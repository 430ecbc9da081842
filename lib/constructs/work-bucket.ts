import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { BlockPublicAccess, Bucket, BucketEncryption, type IBucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import type { StageConfig } from '../stages';

/**
 * A job's state lives on while the job runs (the snapshot job rewrites its series every hour); state nobody
 * rewrote for two weeks belongs to a market gone quiet, and the job rebuilds it cold when needed.
 */
const STATE_EXPIRY = Duration.days(14);

/** Props of a {@link WorkBucket}. */
export interface WorkBucketProps {
  stage: StageConfig;
  logsBucket: IBucket;
}

/**
 * Internal state of the file jobs (the folded hour series behind the recent-changes file): a private,
 * encrypted bucket that no distribution serves, so nothing but the spec's paths sits behind the file host
 * (DESIGN: Published files). Each stage, previews included, has its own.
 */
export class WorkBucket extends Bucket {
  constructor(scope: Construct, id: string, props: WorkBucketProps) {
    const { stage } = props;
    super(scope, id, {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      serverAccessLogsBucket: props.logsBucket,
      serverAccessLogsPrefix: 'work-bucket/',
      lifecycleRules: [{ expiration: STATE_EXPIRY }],
      removalPolicy: stage.removalPolicy,
      autoDeleteObjects: stage.removalPolicy === RemovalPolicy.DESTROY,
    });
  }
}
