import { CfnOutput } from 'aws-cdk-lib';
import { Bucket, type IBucket } from 'aws-cdk-lib/aws-s3';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';
import { devParameters } from '../stages';

/** Where a stage's functions write files and how readers reach them. */
export interface FileHost {
  bucket: IBucket;
  /** Key prefix inside the bucket ('' when the stage owns the bucket). */
  prefix: string;
  /** `CDN_BASE`: the host's base URL plus the prefix, ending in `/`. */
  cdnBase: string;
}

/**
 * Publishes what previews need from the dev stage (its files bucket, file host base and browser origin) as
 * SSM parameters, not CloudFormation exports: an export another stack imports can be neither changed nor
 * removed, so every live preview would freeze dev's file host (issue 26 point 0). A preview reads the
 * parameters when it deploys; dev may change them at any time (a preview takes the new values on its next deploy).
 */
export class DevExports extends Construct {
  constructor(scope: Construct, id: string, props: { files: FileHost; publicOrigin: string }) {
    super(scope, id);
    const values: Record<keyof typeof devParameters, string> = {
      filesBucketName: props.files.bucket.bucketName,
      cdnBase: props.files.cdnBase,
      publicOrigin: props.publicOrigin,
    };
    for (const [key, parameterName] of Object.entries(devParameters) as Array<[keyof typeof devParameters, string]>) {
      new StringParameter(this, key, { parameterName, stringValue: values[key], description: `The dev stage's ${key}, read by previews at deploy time` });
      new CfnOutput(this, `${key[0].toUpperCase()}${key.slice(1)}`, { value: values[key] });
    }
  }
}

/**
 * A preview's view of the dev stage (deployed first): files go to the dev bucket under the preview's
 * prefix and are served from the dev file host, whose CORS already lists the dev origins previews share.
 * The values are dev's SSM parameters as they stand when the preview deploys (no export, so no lock on dev).
 */
export class DevImports extends Construct {
  readonly files: FileHost;
  readonly devOrigin: string;

  constructor(scope: Construct, id: string, props: { prefix: string }) {
    super(scope, id);
    const read = (name: string) => StringParameter.valueForStringParameter(this, name);
    this.files = {
      bucket: Bucket.fromBucketName(this, 'FilesBucket', read(devParameters.filesBucketName)),
      prefix: props.prefix,
      cdnBase: `${read(devParameters.cdnBase)}${props.prefix}`,
    };
    this.devOrigin = read(devParameters.publicOrigin);
  }
}
