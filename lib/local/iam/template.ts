/**
 * The dev stage's synthesized template, as the local runtime plays it: bundling skipped (as in
 * test/infra/synth.ts), with cdk.json's feature flags, and synthesized for the local account and region, so the literal parts of its ARNs are
 * the ones local calls carry. The local gateway checks invocations against its `AWS::Lambda::Permission`s
 * (lib/local/iam/invoke-permissions.ts); the test run checks recorded calls against its policies (lib/local/iam).
 * Synthesized once per process.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { appContext } from '../../cdk-context';
import { MarketDataStack } from '../../stack';
import { stackName, stageConfig } from '../../stages';
import { LOCAL_ACCOUNT, LOCAL_REGION } from './calls';
import type { TemplateJson } from './resolve';

let template: TemplateJson | undefined;

/** The dev stage's template (the stage the local runtime plays). */
export function localTemplate(): TemplateJson {
  if (!template) {
    const app = new App({ context: appContext({ 'aws:cdk:bundling-stacks': [] }), builtinCloudFormationValidation: false });
    const config = stageConfig('dev');
    const stack = new MarketDataStack(app, stackName(config.stage), { config, env: { account: LOCAL_ACCOUNT, region: LOCAL_REGION } });
    template = Template.fromStack(stack).toJSON() as TemplateJson;
  }
  return template;
}
