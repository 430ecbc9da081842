import { CfnOutput, Fn } from 'aws-cdk-lib';
import { Bucket, type IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { devExports } from '../stages';

/** Where a stage's functions write files and how readers reach them. */
export interface FileHost {
  bucket: IBucket;
  /** Key prefix inside the bucket ('' when the stage owns the bucket). */
  prefix: string;
  /** `CDN_BASE`: the host's base URL plus the prefix, ending in `/`. */
  cdnBase: string;
}

/** Publishes what previews need from the dev stage: its files bucket, file host base and browser origin. */
export class DevExports extends Construct {
  constructor(scope: Construct, id: string, props: { files: FileHost; publicOrigin: string }) {
    super(scope, id);
    new CfnOutput(this, 'FilesBucketName', { value: props.files.bucket.bucketName, exportName: devExports.filesBucketName });
    new CfnOutput(this, 'CdnBase', { value: props.files.cdnBase, exportName: devExports.cdnBase });
    new CfnOutput(this, 'PublicOrigin', { value: props.publicOrigin, exportName: devExports.publicOrigin });
  }
}

/**
 * A preview's view of the dev stage (deployed first): files go to the dev bucket under the preview's
 * prefix and are served from the dev file host, whose CORS already lists the dev origins previews share.
 */
export class DevImports extends Construct {
  readonly files: FileHost;
  readonly devOrigin: string;

  constructor(scope: Construct, id: string, props: { prefix: string }) {
    super(scope, id);
    this.files = {
      bucket: Bucket.fromBucketName(this, 'FilesBucket', Fn.importValue(devExports.filesBucketName)),
      prefix: props.prefix,
      cdnBase: `${Fn.importValue(devExports.cdnBase)}${props.prefix}`,
    };
    this.devOrigin = Fn.importValue(devExports.publicOrigin);
  }
}
