/**
 * `npm run diff -- --stage X` and `npm run deploy -- --stage X` (issue 26 point 4): the CDK CLI's command for
 * one stage's stack, the stage as context. Everything after the stage goes to the CLI as given
 * (`-c alarmEmail=…`, `-c productionAccount=…`, `-c identity=…`); `--hotswap` is refused.
 */
import { type Stage, stackName } from '../../lib/stages';

export const COMMANDS = ['diff', 'deploy'] as const;
export type Command = (typeof COMMANDS)[number];

const STAGE = /^(production|dev|preview-[a-z0-9][a-z0-9-]{0,19})$/;

export const USAGE =
  'usage: npm run diff|deploy -- --stage production|dev|preview-<name> [-c alarmEmail=…] [-c productionAccount=…] [-c identity=…] [other cdk options]';

/** The `cdk` arguments for `command` on the stage `argv` names; throws a message with the usage on bad input. */
export function cdkArguments(command: string, argv: readonly string[]): string[] {
  if (!COMMANDS.includes(command as Command)) throw new Error(`unknown command "${command}"\n${USAGE}`);
  const rest = [...argv];
  let stage: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (arg === '--stage' || arg.startsWith('--stage=')) {
      if (stage !== undefined) throw new Error(`--stage given twice\n${USAGE}`);
      stage = arg === '--stage' ? rest[i + 1] : arg.slice('--stage='.length);
      rest.splice(i, arg === '--stage' ? 2 : 1);
      i--;
    }
  }
  if (!stage || stage.startsWith('-')) throw new Error(`--stage is required\n${USAGE}`);
  if (!STAGE.test(stage)) throw new Error(`unknown stage "${stage}"\n${USAGE}`);
  if (rest.some((a) => a.startsWith('--hotswap')))
    throw new Error(`--hotswap skips CloudFormation and drifts the stack: deploy through CloudFormation\n${USAGE}`);
  const stack = stackName(stage as Stage);
  const common = [command, stack, '-c', `stage=${stage}`];
  if (command === 'diff') return [...common, ...rest];
  // Deploy writes the outputs check-secrets reads, and asks before any IAM or security-group widening.
  const defaults = [
    ...(rest.some((a) => a.startsWith('--outputs-file')) ? [] : ['--outputs-file', 'cdk-outputs.json']),
    ...(rest.some((a) => a.startsWith('--require-approval')) ? [] : ['--require-approval', 'broadening']),
  ];
  return [...common, ...defaults, ...rest];
}
