import { Annotations, Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AccessLevel,
  AllowedMethods,
  CachePolicy,
  Distribution,
  HttpVersion,
  PriceClass,
  ResponseHeadersPolicy,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { BlockPublicAccess, Bucket, BucketEncryption, type IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import type { StageConfig } from '../stages';
import { suppressEdgeFindings } from './edge-findings';

/** The key CloudFront asks for at `/`: never written (the bucket holds only the spec's paths), so `/` is 404. */
export const NO_ROOT_OBJECT = 'index.html';

/** How long browsers may cache a CORS preflight answer. */
const PREFLIGHT_MAX_AGE = Duration.minutes(10);

/** Props of a {@link FilesBucket}. */
export interface FilesBucketProps {
  stage: StageConfig;
  /** Browser origins allowed to read files cross-origin (the stage's origins plus explicit local ports). */
  corsOrigins: string[];
  logsBucket: IBucket;
}

/**
 * The published files: a private, encrypted bucket served only through its own CloudFront distribution
 * (origin access control). CORS is answered by a response-headers policy limited to the stage's origins;
 * the `Cache-Control` and `Content-Encoding` each file was written with pass through unchanged.
 */
export class FilesBucket extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  /** File host base URL ending in `/` (the config's `CDN_BASE`). */
  readonly cdnBase: string;

  constructor(scope: Construct, id: string, props: FilesBucketProps) {
    super(scope, id);
    const { stage, logsBucket } = props;
    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      serverAccessLogsBucket: logsBucket,
      serverAccessLogsPrefix: 'files-bucket/',
      removalPolicy: stage.removalPolicy,
      autoDeleteObjects: stage.removalPolicy === RemovalPolicy.DESTROY,
      // Answers too big for a Lambda (shared/http/answer-files.ts) are read right after their redirect: S3's
      // shortest expiry (a day) removes them whatever the retention sweep does (which also covers previews'
      // prefixes, which a rule on the unprefixed path does not).
      lifecycleRules: [{ id: 'ExpireAnswers', prefix: 'answers/', expiration: Duration.days(1) }],
    });
    const cors = new ResponseHeadersPolicy(this, 'Cors', {
      comment: `File host CORS for the ${stage.stage} origins`,
      corsBehavior: {
        accessControlAllowOrigins: props.corsOrigins,
        accessControlAllowMethods: ['GET', 'HEAD', 'OPTIONS'],
        accessControlAllowHeaders: ['*'],
        accessControlAllowCredentials: false,
        accessControlMaxAge: PREFLIGHT_MAX_AGE,
        originOverride: true,
      },
    });
    // Honour each file's own Cache-Control (no minimum TTL); gzip files carry Content-Encoding already, and
    // CloudFront never re-compresses a response that has one.
    const caching = new CachePolicy(this, 'Caching', {
      comment: 'Files: origin Cache-Control decides',
      minTtl: Duration.seconds(0),
      defaultTtl: Duration.minutes(1),
      maxTtl: Duration.days(365),
      enableAcceptEncodingGzip: true,
      enableAcceptEncodingBrotli: true,
    });
    const domains = stage.domains;
    this.distribution = new Distribution(this, 'Distribution', {
      comment: `Files (${stage.stage})`,
      // `/` would otherwise reach S3 as the bucket root, a listing now that CloudFront may list (below): it asks
      // for this key instead, which is never written (404). No query string reaches S3 (the cache policy
      // forwards none), so `?list-type=2` and `?prefix=` are the bare path.
      defaultRootObject: NO_ROOT_OBJECT,
      defaultBehavior: {
        // READ and LIST: with s3:ListBucket, S3 answers a missing key 404 (spec: "a 404 would be cached at the
        // edge"), not 403. ListBucket is only ever used for the root, which the default root object replaces.
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket, { originAccessLevels: [AccessLevel.READ, AccessLevel.LIST] }),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD_OPTIONS,
        cachePolicy: caching,
        responseHeadersPolicy: cors,
        compress: true,
      },
      domainNames: domains ? [domains.files] : undefined,
      certificate: domains ? Certificate.fromCertificateArn(this, 'Certificate', domains.certificateArn) : undefined,
      // The default *.cloudfront.net certificate has a fixed policy; a custom one takes TLS 1.2+.
      minimumProtocolVersion: domains ? SecurityPolicyProtocol.TLS_V1_2_2021 : undefined,
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      enableLogging: true,
      logBucket: logsBucket,
      logFilePrefix: 'files-cdn/',
    });
    // Reviewed (see the default root object above): the LIST grant only makes missing keys 404; no path or query
    // that reaches S3 can ask for a listing.
    Annotations.of(this.distribution).acknowledgeWarning(
      '@aws-cdk/aws-cloudfront-origins:listBucketSecurityRisk',
      'LIST makes a missing key 404 (spec); the root is a never-written default root object and no query string reaches S3',
    );
    this.cdnBase = `https://${domains ? domains.files : this.distribution.distributionDomainName}/`;
    suppressEdgeFindings(this.distribution, stage, 'files');
  }
}

const LOCAL_HOSTS = ['http://localhost', 'http://127.0.0.1'];

/**
 * The file host's CORS list: the stage's origins, plus each local host with every configured port,
 * because CloudFront compares origins exactly while browsers send the port.
 */
export function fileHostCorsOrigins(origins: readonly string[], localPorts: readonly number[]): string[] {
  const local = origins.filter((o) => LOCAL_HOSTS.includes(o)).flatMap((o) => localPorts.map((p) => `${o}:${p}`));
  return [...new Set([...origins, ...local])];
}
