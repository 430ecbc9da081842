#!/usr/bin/env node
/**
 * The CDK app: one stack for the stage named by `-c stage=production|dev|preview-<name>` (default dev).
 * The only place that reads CDK context. AWS Solutions checks run on every synth, so an unsuppressed
 * finding, warnings included, fails `cdk synth` and `cdk deploy` (lib/nag-checks.ts).
 */
import { App } from 'aws-cdk-lib';
import { addAwsSolutionsChecks } from '../lib/nag-checks';
import { MarketDataStack } from '../lib/stack';
import { type IdentityInstance, stackName, stageConfig } from '../lib/stages';

const app = new App();
const stage = String(app.node.tryGetContext('stage') ?? 'dev');
// A preview must bring its own identity instance: -c identity='{"issuer":…,"jwksUrl":…,"apiUrl":…,"publishableKey":…}'.
const identityContext: unknown = app.node.tryGetContext('identity');
const identity = typeof identityContext === 'string' ? (JSON.parse(identityContext) as IdentityInstance) : (identityContext as IdentityInstance | undefined);
// Where alarms go; production refuses to synthesize without one (lib/constructs/alarms.ts).
const alarmEmail: unknown = app.node.tryGetContext('alarmEmail');
const config = { ...stageConfig(stage, identity), ...(typeof alarmEmail === 'string' && alarmEmail !== '' ? { alarmEmail } : {}) };

new MarketDataStack(app, stackName(config.stage), {
  config,
  description: `Market data service (${config.stage})`,
  // A stage with a CloudFront web ACL lives in us-east-1 (StageConfig.region); the others where the CLI points.
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: config.region ?? process.env.CDK_DEFAULT_REGION },
});
addAwsSolutionsChecks(app);
