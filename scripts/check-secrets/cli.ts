/**
 * `npm run check-secrets`: the first deploy's checked step. Reads the secrets an operator must fill in
 * (identity provider key, VAPID pair and its public half) of one stage and says which are still the
 * placeholder the stack created (scripts/check-secrets/check.ts); the values themselves are never printed.
 *
 *   npx cdk deploy -c stage=dev --outputs-file cdk-outputs.json
 *   npm run check-secrets -- --stage dev --outputs cdk-outputs.json
 *
 * Uses the caller's AWS credentials (secretsmanager:GetSecretValue on the three secrets). Exit 0 when the
 * stage is ready, 1 naming each secret still to fill in, 2 on bad arguments or an outputs file without the stage.
 */
import { readFileSync } from 'node:fs';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { type Stage, stackName } from '../../lib/stages';
import { OPERATOR_SECRETS, type OperatorSecret, secretProblems } from './check';

const USAGE = 'usage: npm run check-secrets -- --stage production|dev|preview-<name> --outputs cdk-outputs.json (cdk deploy --outputs-file)';

function fail(code: number, message: string): never {
  console.error(message);
  process.exit(code);
}

function argument(name: string): string {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? process.argv[i + 1] : undefined;
  if (!value || value.startsWith('--')) fail(2, USAGE);
  return value;
}

async function main(): Promise<void> {
  const stage = argument('stage');
  const outputsFile = argument('outputs');
  if (!/^(production|dev|preview-[a-z0-9][a-z0-9-]{0,19})$/.test(stage)) fail(2, `unknown stage "${stage}"\n${USAGE}`);
  const name = stackName(stage as Stage);
  let outputs: Record<string, Record<string, string>>;
  try {
    outputs = JSON.parse(readFileSync(outputsFile, 'utf8')) as Record<string, Record<string, string>>;
  } catch (err) {
    fail(2, `cannot read ${outputsFile}: ${(err as Error).message}\n${USAGE}`);
  }
  const stack = outputs[name];
  if (!stack) fail(2, `${outputsFile} has no outputs of ${name}; deploy the stage with --outputs-file first`);
  const sm = new SecretsManagerClient({});
  const values: Partial<Record<OperatorSecret, string>> = {};
  for (const key of Object.keys(OPERATOR_SECRETS) as OperatorSecret[]) {
    const arn = stack[key];
    if (!arn) fail(2, `${outputsFile}: ${name} has no output ${key}`);
    values[key] = (await sm.send(new GetSecretValueCommand({ SecretId: arn }))).SecretString;
  }
  const problems = secretProblems(values);
  if (problems.length > 0) fail(1, `${name} is not ready:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  console.log(`${name}: the identity key and the VAPID pair are set`);
}

main().catch((err: unknown) => fail(1, `check-secrets: ${(err as Error).message}`));
