import { CfnResource, Duration, RemovalPolicy } from 'aws-cdk-lib';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { NagSuppressions } from 'cdk-nag';
import type { Construct, IConstruct } from 'constructs';
import type { StageConfig } from '../stages';

/** How long access logs are kept: long enough to investigate an incident, short enough to cost nothing. */
const LOG_EXPIRY = Duration.days(90);

/** Props of an {@link AccessLogsBucket}. */
export interface AccessLogsBucketProps {
  stage: StageConfig;
}

/** Private bucket receiving the S3 server access logs of the files bucket and the CloudFront standard logs. */
export class AccessLogsBucket extends Bucket {
  constructor(scope: Construct, id: string, props: AccessLogsBucketProps) {
    const { stage } = props;
    const disposable = stage.removalPolicy === RemovalPolicy.DESTROY;
    super(scope, id, {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      // CloudFront standard logging delivers through an ACL grant, so ACLs cannot be disabled here.
      objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED,
      lifecycleRules: [{ expiration: LOG_EXPIRY }],
      removalPolicy: stage.removalPolicy,
      // Dev and preview stacks must delete cleanly; a non-empty bucket would block `cdk destroy`.
      autoDeleteObjects: disposable,
    });
    NagSuppressions.addResourceSuppressions(this, [
      {
        id: 'AwsSolutions-S1',
        reason: 'This is the access-log bucket itself; logging it into itself would loop and another bucket would only move the question.',
      },
    ]);
  }

  /**
   * Empties the bucket on `cdk destroy` only once `writers` (the distributions, the buckets logging here) are
   * gone. Otherwise CloudFormation runs the emptying beside their deletion: the emptying's deny-writes
   * statement leaves with the bucket policy, which is deleted next, while a distribution being disabled and
   * deleted (minutes) still delivers logs through its ACL grant, and the bucket's deletion fails with
   * `BucketNotEmpty` (issue 26 point 0). A no-op on a retained bucket (production).
   */
  emptiedAfter(...writers: IConstruct[]): void {
    const emptying = this.node.findAll().filter((c) => c instanceof CfnResource && c.cfnResourceType === 'Custom::S3AutoDeleteObjects');
    for (const e of emptying) e.node.addDependency(...writers);
  }
}
