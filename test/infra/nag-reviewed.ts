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

/** CDK's bucket-deployment provider (the website's build, lib/constructs/site-assets.ts): the function, its role and policy. */
const SITE_DEPLOY = /^CustomCDKBucketDeployment[0-9A-F]{32}[0-9]+MiB(ServiceRole(DefaultPolicy)?|LogGroup)?$/;

/** Stages without the production safeguards (disposable data, no web ACL). */
const NOT_PRODUCTION = /^(dev|preview-.+)$/;

/** Every function of the manifest, by its logical id. */
const FUNCTIONS = /^Functions(Api|Upload|Pages|WsConnect|WsMessage|WsDisconnect|Merge|Fanout|Push|Seal|Snapshot|Retention|Items|LiveSweep|Redrive)$/;

/** Queues that are themselves where failures end (dead letters, rejected merges, failed runs, skipped stream batches). */
const DEAD_LETTER_PLACES = /^(MergeQueuesmerge[a-z]+DeadLetters|PushQueueDeadLetters|MergeQueuesRejected|Schedules[a-z]+FailedRuns|TableStreamFailed)$/;

const PINNED_RUNTIME =
  'Node.js 22 is the runtime the design pins (LTS, matched by the esbuild target and the local runtime); moving to a newer runtime is a deliberate upgrade, not a drift.';

const WS_ACCESS_LOGS =
  'WebSocket access logging needs the account-wide API Gateway CloudWatch role, which a per-stage stack must not own; the ws-* functions log every connect, message and disconnect.';

/** IAM5 findings the stack accepts: key-prefix wildcards of the stage's own buckets and its @connections paths. */
const PREFIX_WILDCARDS = [
  { regex: '/^Resource::.*FilesBucket.*\\*$/g' },
  { regex: '/^Resource::.*WorkBucket.*\\*$/g' },
  { regex: '/^Resource::arn:(<AWS::Partition>|aws):execute-api:.*@connections\\/\\*$/g' },
];

export const REVIEWED_SUPPRESSIONS: ReviewedSuppression[] = [
  {
    rule: 'AwsSolutions-APIG1',
    resources: /^LiveApiStage$/,
    reason: WS_ACCESS_LOGS,
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
    rule: 'AwsSolutions-IAM5',
    resources: /^Functions[A-Za-z]+Role(DefaultPolicy)?$/,
    stages: /^production/,
    appliesTo: ['Resource::*'],
    reason: 'xray:PutTraceSegments and xray:PutTelemetryRecords (what active tracing adds) have no resource-level permissions: X-Ray takes only Resource "*".',
  },
  {
    rule: 'AwsSolutions-L1',
    resources: FUNCTIONS,
    reason: PINNED_RUNTIME,
  },
  {
    rule: 'AwsSolutions-L1',
    resources: SITE_DEPLOY,
    reason:
      'CDK’s bucket-deployment provider pins its own runtime (it bundles the AWS CLI layer for it); it runs only while CloudFormation deploys the site’s files.',
  },
  {
    rule: 'AwsSolutions-IAM4',
    resources: SITE_DEPLOY,
    appliesTo: ['Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole'],
    reason: 'CDK’s bucket-deployment provider writes its logs with the basic execution policy; it runs only while CloudFormation deploys the site’s files.',
  },
  {
    rule: 'AwsSolutions-IAM5',
    resources: SITE_DEPLOY,
    appliesTo: [
      'Action::s3:GetObject*',
      'Action::s3:GetBucket*',
      'Action::s3:List*',
      'Action::s3:DeleteObject*',
      'Action::s3:Abort*',
      { regex: '/^Resource::arn:(aws|<AWS::Partition>):s3:::cdk-[a-z0-9]+-assets-[0-9]+-[a-z0-9-]+\\/\\*$/g' },
      { regex: '/^Resource::<SiteAssetsBucket[0-9A-F]{8}\\.Arn>\\/\\*$/g' },
    ],
    reason:
      'CDK’s bucket-deployment provider copies the build from the stack’s asset bucket (the build’s key prefix) to the site bucket’s assets/ prefix: object wildcards under those two buckets only.',
  },
  ...['Serverless-LambdaDLQ', 'Serverless-LambdaLatestVersion', 'Serverless-LambdaTracing'].map((rule) => ({
    rule,
    resources: SITE_DEPLOY,
    reason:
      'CDK’s bucket-deployment provider is invoked only by CloudFormation during a deploy, which waits for its answer and fails the deploy on an error: no dead-letter queue, trace or runtime choice of ours would add a signal.',
  })),
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
  {
    rule: 'AwsSolutions-SQS3',
    resources: /^Schedules[a-z]+FailedRuns$/,
    reason:
      'A failed-runs queue is itself a dead-letter place (the EventBridge target’s dead letters and the function’s on-failure destination): nothing consumes it, an alarm fires while it holds a message.',
  },
  {
    rule: 'AwsSolutions-SQS3',
    resources: /^TableStreamFailed$/,
    reason:
      'The stream’s on-failure queue is itself a dead-letter place (the skipped batches’ shard and sequence numbers): nothing consumes it, an alarm fires while it holds a message.',
  },
  // cdk-nag's Serverless pack (issue 26 point 2).
  {
    rule: 'Serverless-APIGWAccessLogging',
    resources: /^LiveApiStage$/,
    reason: WS_ACCESS_LOGS,
  },
  {
    rule: 'Serverless-LambdaDLQ',
    resources: FUNCTIONS,
    reason:
      'Only the scheduled functions are invoked asynchronously, and their failed runs go to an on-failure destination (SQS, alarmed), which AWS recommends over a DLQ; HTTP and WebSocket functions are invoked synchronously, and queue and stream consumers are polled, their failures kept by the queues’ dead-letter queues and the stream’s on-failure queue.',
  },
  {
    rule: 'Serverless-LambdaEventSourceMappingDestination',
    resources: /^Functions(Merge|Push)SqsEventSource[A-Za-z0-9-]+(MergeQueuesmerge[a-z]+Queue|PushQueue)[0-9A-F]{8}$/,
    reason:
      'Lambda takes no on-failure destination for an SQS event source: the queue’s redrive policy moves a message received maxReceives times to its dead-letter queue, which an alarm watches.',
  },
  {
    rule: 'Serverless-LambdaLatestVersion',
    resources: FUNCTIONS,
    reason: PINNED_RUNTIME,
  },
  {
    rule: 'Serverless-LambdaTracing',
    resources: FUNCTIONS,
    stages: NOT_PRODUCTION,
    reason: 'The <stage> stage runs without X-Ray (StageConfig.tracing, on in production; -c tracing=on switches it on for a deploy).',
  },
  {
    rule: 'Serverless-SNSRedrivePolicy',
    resources: /^AlarmsTopic[a-z0-9]+$/,
    stages: /^production/,
    reason:
      'The one subscription is the on-call email: SNS retries a mail server itself, and a dead-letter queue of undelivered alarm notifications could only be alarmed through this same topic; the alarms stay visible in CloudWatch and on the dashboard.',
  },
  {
    rule: 'Serverless-SQSRedrivePolicy',
    resources: DEAD_LETTER_PLACES,
    reason:
      'This queue is itself where failed messages end: nothing consumes it, an alarm fires while it holds a message, and an operator reads or redrives it (docs/runbook.md).',
  },
];
