/**
 * Builds a stage's stack for assertions with cdk.json's feature flags (as `cdk synth` has them), without
 * bundling (`aws:cdk:bundling-stacks` = [] skips esbuild) and without the built-in CloudFormation validation
 * (`npm run synth` runs both). One template per stage and process, because synthesis is the slow part.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { appContext } from '../../lib/cdk-context';
import { addAwsSolutionsChecks } from '../../lib/nag-checks';
import { MarketDataStack } from '../../lib/stack';
import { devParameters, type IdentityInstance, STAGES, type StageConfig, stackName, stageConfig } from '../../lib/stages';
import type { FunctionName } from '../../shared/topology';

/** A synthesized stage: its stack, assertion template and resources by logical id. */
export interface Synthesized {
  stage: string;
  stack: MarketDataStack;
  template: Template;
  resources: Record<string, CfnResource>;
}

/** One resource of a template. */
export interface CfnResource {
  Type: string;
  /** Always present (empty when the template omits it). */
  Properties: Record<string, unknown>;
  DeletionPolicy?: string;
  Metadata?: Record<string, unknown>;
}

/** One IAM policy statement. */
export interface Statement {
  Effect: 'Allow' | 'Deny';
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
  Sid?: string;
}

const cache = new Map<string, Synthesized>();

/** The identity instance test previews bring (a preview without one does not synthesize). */
export const PREVIEW_IDENTITY: IdentityInstance = {
  issuer: 'https://preview-market.clerk.accounts.dev',
  jwksUrl: 'https://preview-market.clerk.accounts.dev/.well-known/jwks.json',
  apiUrl: 'https://api.clerk.com',
  publishableKey: 'pk_test_cHJldmlldy1tYXJrZXQuY2xlcmsuYWNjb3VudHMuZGV2JA',
};

/** Custom domains as a stage would configure them (tests build production with them). */
export const EXAMPLE_DOMAINS = {
  public: 'market.example.com',
  files: 'files.market.example.com',
  certificateArn: 'arn:aws:acm:us-east-1:111111111111:certificate/edge',
  apiOrigin: 'api-origin.market.example.com',
  liveOrigin: 'live-origin.market.example.com',
};

/** The alarm address test stages deploy with (production refuses to synthesize without one, `-c alarmEmail`). */
export const ALARM_EMAIL = 'alarms@example.com';

/** Production with custom domains, as `synth` takes it. */
export const productionWithDomains = (): { key: string; config: StageConfig } => ({
  key: 'production+domains',
  config: { ...STAGES.production, domains: EXAMPLE_DOMAINS, alarmEmail: ALARM_EMAIL },
});

/** Where test stacks go when their stage names no region. */
export const TEST_REGION = 'eu-west-1';

/**
 * The synthesized stack of `stage` (a name, or a whole config under a cache `key`), with AWS Solutions checks
 * applied as bin/app.ts applies them when `nag` is set.
 */
export function synth(stage: string | { key: string; config: StageConfig }, options: { nag?: boolean } = {}): Synthesized {
  const name = typeof stage === 'string' ? stage : stage.key;
  const key = `${name}:${options.nag === true}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const app = new App({ context: appContext({ 'aws:cdk:bundling-stacks': [] }), builtinCloudFormationValidation: false });
  const named = (name: string): StageConfig => {
    const config = stageConfig(name, name.startsWith('preview-') ? PREVIEW_IDENTITY : undefined);
    // Production deploys with `-c alarmEmail=…` (bin/app.ts); the other stages are built as configured.
    return config.env === 'production' ? { ...config, alarmEmail: ALARM_EMAIL } : config;
  };
  const config = typeof stage === 'string' ? named(stage) : stage.config;
  const stack = new MarketDataStack(app, stackName(config.stage), { config, env: { account: '111111111111', region: config.region ?? TEST_REGION } });
  if (options.nag) addAwsSolutionsChecks(stack);
  const template = Template.fromStack(stack);
  const raw = template.toJSON().Resources as Record<string, Omit<CfnResource, 'Properties'> & { Properties?: Record<string, unknown> }>;
  const resources = Object.fromEntries(Object.entries(raw).map(([id, r]) => [id, { ...r, Properties: r.Properties ?? {} }]));
  const parameters = (template.toJSON().Parameters ?? {}) as Record<string, { Type: string; Default?: string }>;
  for (const [id, p] of Object.entries(parameters)) if (p.Type.startsWith('AWS::SSM::Parameter::Value') && p.Default) ssmParameters.set(id, p.Default);
  const built = { stage: config.stage, stack, template, resources };
  cache.set(key, built);
  return built;
}

/** Resources of one CloudFormation type, by logical id. */
export function ofType(s: Synthesized, type: string): Array<[string, CfnResource]> {
  return Object.entries(s.resources).filter(([, r]) => r.Type === type);
}

/** The logical id of a manifest function (found by the description ServiceFunction gives it). */
export function functionId(s: Synthesized, name: FunctionName): string {
  const found = ofType(s, 'AWS::Lambda::Function').filter(([, r]) => r.Properties.Description === `${name} (${s.stage})`);
  if (found.length !== 1) throw new Error(`expected one function ${name}, found ${found.length}`);
  return found[0][0];
}

/** The environment variables of a manifest function, unresolved. */
export function environmentOf(s: Synthesized, name: FunctionName): Record<string, unknown> {
  const props = s.resources[functionId(s, name)].Properties as { Environment: { Variables: Record<string, unknown> } };
  return props.Environment.Variables;
}

/** Every IAM statement attached to a manifest function's role. */
export function statementsOf(s: Synthesized, name: FunctionName): Statement[] {
  const role = (s.resources[functionId(s, name)].Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  return ofType(s, 'AWS::IAM::Policy')
    .filter(([, p]) => (p.Properties.Roles as Array<{ Ref: string }>).some((r) => r.Ref === role))
    .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
}

/** Actions of a statement as a list. */
export const actionsOf = (st: Statement): string[] => (Array.isArray(st.Action) ? st.Action : [st.Action]);

/**
 * Resources of a statement as a list: count these, not statements, since `@aws-cdk/aws-iam:minimizePolicies`
 * (cdk.json) merges statements that differ only in their resources.
 */
export const resourcesOf = (st: Statement): unknown[] => (Array.isArray(st.Resource) ? st.Resource : [st.Resource]);

/** Whether `value` (a resolved-or-intrinsic CloudFormation value, or nothing) mentions the logical id `id`. */
export const mentions = (value: unknown, id: string): boolean => (JSON.stringify(value) ?? '').includes(`"${id}"`);

/** What the dev stack publishes for previews (SSM parameters), as a deployed dev stage would hold them. */
export const DEV_PARAMETER_VALUES: Record<string, string> = {
  [devParameters.filesBucketName]: 'dev-files-bucket',
  [devParameters.cdnBase]: 'https://files.dev.example/',
  [devParameters.publicOrigin]: 'https://dev.example',
};

/** Template parameters that read an SSM parameter at deploy time: logical id → parameter name. */
const ssmParameters = new Map<string, string>();

/**
 * Replaces intrinsic functions with plausible values so an environment can be fed to the real config
 * parser: references become `resolved`, dev's SSM parameters their deployed values, joins are concatenated.
 */
export function flatten(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object') {
    const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
    if (join) return join[1].map(flatten).join(join[0]);
    const ref = (value as { Ref?: string }).Ref;
    const parameter = ref === undefined ? undefined : ssmParameters.get(ref);
    if (parameter !== undefined) return DEV_PARAMETER_VALUES[parameter] ?? 'unknown-parameter';
  }
  return 'resolved';
}
