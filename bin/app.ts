#!/usr/bin/env node
/**
 * The CDK app: one stack for the stage named by `-c stage=production|dev|preview-<name>` (default dev).
 * The only place that reads CDK context (cdk.json holds the recommended feature flags, lib/cdk-context.ts).
 * AWS Solutions and Serverless checks run on every synth, so an unsuppressed finding, warnings included,
 * fails `cdk synth` and `cdk deploy` (lib/nag-checks.ts). `npm run diff|deploy -- --stage X` wrap the CLI
 * (scripts/cdk-stage).
 */
import { App } from 'aws-cdk-lib';
import { addAwsSolutionsChecks } from '../lib/nag-checks';
import { MarketDataStack } from '../lib/stack';
import { type IdentityInstance, stackEnvironment, stackName, stageConfig } from '../lib/stages';

const app = new App();
const text = (key: string): string | undefined => {
  const value: unknown = app.node.tryGetContext(key);
  return typeof value === 'string' && value !== '' ? value : undefined;
};
const stage = String(app.node.tryGetContext('stage') ?? 'dev');
// A preview must bring its own identity instance: -c identity='{"issuer":…,"jwksUrl":…,"apiUrl":…,"publishableKey":…}'.
const identityContext: unknown = app.node.tryGetContext('identity');
const identity = typeof identityContext === 'string' ? (JSON.parse(identityContext) as IdentityInstance) : (identityContext as IdentityInstance | undefined);
const base = stageConfig(stage, identity);
// Where alarms go; production refuses to synthesize without one (lib/constructs/alarms.ts).
const alarmEmail = text('alarmEmail');
// Production's account is pinned; it refuses to synthesize without one (lib/stages.ts stackEnvironment).
const productionAccount = text('productionAccount') ?? (process.env.PRODUCTION_ACCOUNT || undefined);
// X-Ray for a dev or preview deploy: -c tracing=on (production always traces).
const tracing = text('tracing');
const config = {
  ...base,
  ...(alarmEmail ? { alarmEmail } : {}),
  ...(base.env === 'production' && productionAccount ? { account: productionAccount } : {}),
  ...(base.env !== 'production' && tracing ? { tracing: tracing === 'on' || tracing === 'true' } : {}),
};

new MarketDataStack(app, stackName(config.stage), {
  config,
  description: `Market data service (${config.stage})`,
  // A stage with a CloudFront web ACL lives in us-east-1 (StageConfig.region); the others where the CLI points.
  env: stackEnvironment(config, { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION }),
});
addAwsSolutionsChecks(app);
