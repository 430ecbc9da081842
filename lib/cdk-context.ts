/**
 * The context `cdk.json` gives the app the CDK CLI runs (bin/app.ts): the feature flags aws-cdk-lib currently
 * recommends, as `cdk init` writes them (issue 26 point 4). Apps built in this process rather than by the CLI
 * (the infra tests, the local runtime's template) start from the same context, so what they check is what
 * deploys.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const CDK_JSON = fileURLToPath(new URL('../cdk.json', import.meta.url));

/** cdk.json's `context`, plus `extra` (e.g. `aws:cdk:bundling-stacks`). */
export function appContext(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const { context } = JSON.parse(readFileSync(CDK_JSON, 'utf8')) as { context: Record<string, unknown> };
  return { ...context, ...extra };
}
