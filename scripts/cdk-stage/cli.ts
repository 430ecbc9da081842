/**
 * Runs the CDK CLI on one stage (scripts/cdk-stage/args.ts builds the arguments):
 *
 *   npm run diff -- --stage dev
 *   npm run deploy -- --stage production -c productionAccount=123456789012 -c alarmEmail=ops@example.com
 *
 * Exit: the CLI's, or 2 on bad arguments.
 */
import { spawnSync } from 'node:child_process';
import { cdkArguments } from './args';

let args: string[];
try {
  args = cdkArguments(process.argv[2] ?? '', process.argv.slice(3));
} catch (err) {
  console.error((err as Error).message);
  process.exit(2);
}
console.error(`> cdk ${args.join(' ')}`);
const run = spawnSync('npx', ['cdk', ...args], { stdio: 'inherit' });
process.exit(run.status ?? 1);
