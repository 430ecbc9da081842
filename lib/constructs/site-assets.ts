import { join } from 'node:path';
import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AllowedMethods, CachePolicy, type Distribution, ViewerProtocolPolicy } from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { BlockPublicAccess, Bucket, BucketEncryption, type IBucket } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { ASSETS_PREFIX, IMMUTABLE, type SiteBuild, WORKER_PATH } from '../site-build';
import type { StageConfig } from '../stages';

/** Why CDK's deployment provider keeps what cdk-nag finds (test/infra/nag-reviewed.ts holds the same words). */
export const DEPLOY_REASONS = {
  runtime:
    'CDK’s bucket-deployment provider pins its own runtime (it bundles the AWS CLI layer for it); it runs only while CloudFormation deploys the site’s files.',
  logs: 'CDK’s bucket-deployment provider writes its logs with the basic execution policy; it runs only while CloudFormation deploys the site’s files.',
  copy: 'CDK’s bucket-deployment provider copies the build from the stack’s asset bucket (the build’s key prefix) to the site bucket’s assets/ prefix: object wildcards under those two buckets only.',
  deployOnly:
    'CDK’s bucket-deployment provider is invoked only by CloudFormation during a deploy, which waits for its answer and fails the deploy on an error: no dead-letter queue, trace or runtime choice of ours would add a signal.',
};

/** The IAM5 wildcards of the deployment provider: S3 object actions on the CDK asset bucket and the site bucket. */
export const DEPLOY_WILDCARDS = [
  'Action::s3:GetObject*',
  'Action::s3:GetBucket*',
  'Action::s3:List*',
  'Action::s3:DeleteObject*',
  'Action::s3:Abort*',
  { regex: '/^Resource::arn:(aws|<AWS::Partition>):s3:::cdk-[a-z0-9]+-assets-[0-9]+-[a-z0-9-]+\\/\\*$/g' },
  { regex: '/^Resource::<SiteAssetsBucket[0-9A-F]{8}\\.Arn>\\/\\*$/g' },
];

/** Props of a {@link SiteAssets}. */
export interface SiteAssetsProps {
  stage: StageConfig;
  /** The website's build (lib/site-build.ts). */
  build: SiteBuild;
  /** The public distribution (the site's origin): `/assets/*` is served from the bucket through it. */
  distribution: Distribution;
  logsBucket: IBucket;
}

/**
 * The website's build in the site's bucket behind the public distribution (issue 24 point 11), at the same
 * paths the local runtime serves it: `/assets/<name>-<hash>.js`, and the service worker at `/sw.js`. Files are named by their content, so they are
 * cached as immutable at the edge and in browsers, and a deployment never removes the previous build's files
 * (`prune: false`): a page cached until the next hour may still name them. The pages name the entry
 * (`SITE_ENTRY`), so a request reaches the bucket only for a file some deployment wrote.
 */
export class SiteAssets extends Construct {
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string, props: SiteAssetsProps) {
    super(scope, id);
    const { stage } = props;
    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      serverAccessLogsBucket: props.logsBucket,
      serverAccessLogsPrefix: 'site-bucket/',
      removalPolicy: stage.removalPolicy,
      autoDeleteObjects: stage.removalPolicy === RemovalPolicy.DESTROY,
    });
    const prefix = ASSETS_PREFIX.slice(1);
    const deployment = new BucketDeployment(this, 'Deploy', {
      sources: [Source.asset(join(props.build.dir, prefix))],
      destinationBucket: this.bucket,
      destinationKeyPrefix: prefix,
      prune: false,
      cacheControl: [CacheControl.fromString(IMMUTABLE)],
      memoryLimit: 256,
    });
    const origin = S3BucketOrigin.withOriginAccessControl(this.bucket);
    props.distribution.addBehavior(`${ASSETS_PREFIX}*`, origin, {
      viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
      cachePolicy: CachePolicy.CACHING_OPTIMIZED,
      compress: true,
    });
    // The service worker (app/sw.ts) at the origin's root, so its scope is every page: not hashed (its URL is
    // its scope's), so never cached at the edge and revalidated by browsers, which then see a new build's.
    new BucketDeployment(this, 'DeployWorker', {
      sources: [Source.asset(props.build.dir)],
      destinationBucket: this.bucket,
      exclude: ['*'],
      include: [WORKER_PATH.slice(1)],
      prune: false,
      cacheControl: [CacheControl.fromString('no-cache')],
      memoryLimit: 256,
    });
    props.distribution.addBehavior(WORKER_PATH, origin, {
      viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
      cachePolicy: CachePolicy.CACHING_DISABLED,
      compress: true,
    });
    this.suppressDeployFindings(deployment);
  }

  /**
   * The findings of CDK's own deployment provider (one function per stack, beside the deployment, not inside
   * it), each reviewed in test/infra/nag-reviewed.ts: it is CDK's code, run by CloudFormation at deploy only.
   */
  private suppressDeployFindings(deployment: BucketDeployment): void {
    const provider = Stack.of(this).node.children.find((c) => c.node.id.startsWith('Custom::CDKBucketDeployment'));
    if (!provider) throw new Error(`no deployment provider beside ${deployment.node.path}`);
    NagSuppressions.addResourceSuppressions(
      provider,
      [
        { id: 'AwsSolutions-L1', reason: DEPLOY_REASONS.runtime },
        {
          id: 'AwsSolutions-IAM4',
          reason: DEPLOY_REASONS.logs,
          appliesTo: ['Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole'],
        },
        { id: 'AwsSolutions-IAM5', reason: DEPLOY_REASONS.copy, appliesTo: DEPLOY_WILDCARDS },
        { id: 'Serverless-LambdaDLQ', reason: DEPLOY_REASONS.deployOnly },
        { id: 'Serverless-LambdaLatestVersion', reason: DEPLOY_REASONS.deployOnly },
        { id: 'Serverless-LambdaTracing', reason: DEPLOY_REASONS.deployOnly },
      ],
      true,
    );
  }
}
