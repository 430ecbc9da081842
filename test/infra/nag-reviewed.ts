/**
 * The reviewed cdk-nag suppressions: each (rule, resources, applies_to) with the reason a reviewer accepted for
 * those resources. `test/infra/nag.test.ts` fails on any suppression in a synthesized stage that is not here
 * word for word (a new one, a reason reworded, a suppression spread to more resources or wider wildcards),
 * and on any entry here that no stage uses any more. Adding a suppression therefore means adding its entry,
 * which is the review. `<stage>` in a reason stands for the stage name.
 */
export interface ReviewedSuppression {
  rule: string;
  /** Logical ids (without CDK's 8-character hash) that may carry it. */
  resources: RegExp;
  /** Stage keys it may appear in (every stage when absent). */
  stages?: RegExp;
  /** The suppression's `applies_to` as CDK writes it (none when absent). */
  appliesTo?: unknown[];
  reason: string;
}

/** Stages without the production safeguards (disposable data, no web ACL). */
const NOT_PRODUCTION = /^(dev|preview-.+)$/;

/** IAM5 findings the stack accepts: key-prefix wildcards of the stage's own buckets and its @connections paths. */
const PREFIX_WILDCARDS = [
  { regex: '/^Resource::.*FilesBucket.*\\*$/g' },
  { regex: '/^Resource::.*WorkBucket.*\\*$/g' },
  { regex: '/^Resource::arn:<AWS::Partition>:execute-api:.*@connections\\/\\*$/g' },
];

export const REVIEWED_SUPPRESSIONS: ReviewedSuppression[] = [
  {
    rule: 'AwsSolutions-APIG1',
    resources: /^LiveApiStage$/,
    reason:
      'WebSocket access logging needs the account-wide API Gateway CloudWatch role, which a per-stage stack must not own; the ws-* functions log every connect, message and disconnect.',
  },
  {
    rule: 'AwsSolutions-APIG4',
    resources: /^HttpApi/,
    reason:
      'Routes are public by design: anonymous callers have their own tier, and the handlers verify session tokens and API keys themselves so the spec’s check order (401 → 429 → 403 → 400) holds.',
  },
  {
    rule: 'AwsSolutions-APIG4',
    resources: /^LiveApi/,
    reason:
      'The $connect function authenticates (cookie, Authorization or ?token=) because the spec needs 400 as well as 401/403 before the upgrade, which an authorizer cannot answer.',
  },
  {
    rule: 'AwsSolutions-CFR1',
    resources: /^(Files|Site)Distribution$/,
    reason: 'The markets are played worldwide; the spec serves every country, so there is nothing to geo-restrict.',
  },
  {
    rule: 'AwsSolutions-CFR2',
    resources: /^SiteDistribution$/,
    stages: NOT_PRODUCTION,
    reason:
      'The <stage> stage runs without a WAF web ACL (StageConfig.waf, on in production): its abuse is bounded by the per-caller limits the API enforces (429), stage throttling and reserved concurrency for merges, and a web ACL costs a fixed monthly fee per stage.',
  },
  {
    rule: 'AwsSolutions-CFR2',
    resources: /^FilesDistribution$/,
    reason:
      'The file host serves immutable files from S3 through the CloudFront cache: no Lambda, table or identity provider stands behind it for a flood to exhaust; the APIs’ distribution carries the web ACL.',
  },
  {
    rule: 'AwsSolutions-CFR4',
    resources: /^(Files|Site)Distribution$/,
    // Production with custom domains sets TLSv1.2_2021 and needs no suppression.
    stages: /^(production|dev|preview-.+)$/,
    reason:
      'The <stage> stage has no custom domain yet, and the default *.cloudfront.net certificate cannot take a minimum TLS version; with a domain the policy is TLSv1.2_2021.',
  },
  {
    rule: 'AwsSolutions-DDB3',
    resources: /^Table$/,
    stages: NOT_PRODUCTION,
    reason: 'The <stage> stage holds disposable test data; only production keeps point-in-time recovery.',
  },
  {
    rule: 'AwsSolutions-IAM5',
    resources: /^Functions[A-Za-z]+Role(DefaultPolicy)?$/,
    appliesTo: PREFIX_WILDCARDS,
    reason:
      'Wildcards are key prefixes: object keys under one prefix the manifest grants (books/, live/, …) of this stage’s files bucket, itself under the stage prefix, object keys of its work bucket, and the @connections/* paths of this stage’s WebSocket API. No wildcard spans another resource.',
  },
  {
    rule: 'AwsSolutions-IAM5',
    resources: /^FunctionsFanoutRole(DefaultPolicy)?$/,
    appliesTo: ['Resource::*'],
    reason: 'dynamodb:ListStreams has no resource-level permissions; the stream read actions themselves are scoped to this table’s stream.',
  },
  {
    rule: 'AwsSolutions-L1',
    resources: /^Functions(Api|Upload|Pages|WsConnect|WsMessage|WsDisconnect|Merge|Fanout|Push|Seal|Snapshot|Retention|Items|LiveSweep|Redrive)$/,
    reason:
      'Node.js 22 is the runtime the design pins (LTS, matched by the esbuild target and the local runtime); moving to a newer runtime is a deliberate upgrade, not a drift.',
  },
  {
    rule: 'AwsSolutions-S1',
    resources: /^AccessLogs$/,
    reason: 'This is the access-log bucket itself; logging it into itself would loop and another bucket would only move the question.',
  },
  {
    rule: 'AwsSolutions-SMG4',
    resources: /^SecretsOrigin$/,
    reason:
      'CloudFront’s origin custom header is static distribution config, so the value rotates in two steps (secret {current, previous}, then the distribution) as docs/security.md describes, not by a rotation Lambda.',
  },
  {
    rule: 'AwsSolutions-SMG4',
    resources: /^SecretsIdentity$/,
    reason: 'Issued by the identity provider’s dashboard, so Secrets Manager cannot rotate it; rotating it is a manual runbook step.',
  },
  {
    rule: 'AwsSolutions-SMG4',
    resources: /^SecretsVapid$/,
    reason: 'The VAPID pair is what browsers subscribed with: a new pair orphans every subscription, so it is rotated only by a deliberate runbook step.',
  },
  {
    rule: 'AwsSolutions-SMG4',
    resources: /^SecretsVapidPublic$/,
    reason: 'The public half of the VAPID pair: it changes only with the pair, by the same deliberate runbook step.',
  },
  {
    rule: 'AwsSolutions-SMG4',
    resources: /^SecretsUploader$/,
    reason: 'The uploader-hash key must stay stable: a new key makes every stored uploader hash unrelated to new uploads (consensus, contributors7d).',
  },
  {
    rule: 'AwsSolutions-SNS2',
    resources: /^AlarmsTopic$/,
    reason:
      'Alarm notifications carry only alarm names and states; CloudWatch cannot publish to a topic under the AWS managed SNS key, and a customer key would cost more than the data is worth.',
  },
  {
    rule: 'AwsSolutions-SQS3',
    resources: /^MergeQueuesRejected$/,
    reason: 'The rejected queue is itself a dead-letter place: nothing consumes it, an alarm fires while it holds a message.',
  },
];
