/**
 * The whole environment of each function's sandbox in `--bundles` mode (lib/local/functions/sandboxes.ts): what the
 * stack gives it (`functionEnvironment`, lib/environment.ts, the one builder), the local endpoints, and what
 * the Lambda runtime sets. Nothing of the runtime's own process environment: a variable the function needs
 * and the builder forgets is missing here as on AWS, and the config parser's refusal fails the start.
 */
import { dirname } from 'node:path';
import { parseConfig } from '../../../shared/config';
import { FUNCTIONS, type FunctionName } from '../../../shared/topology';
import { type Deployment, functionEnvironment } from '../../environment';
import { LOCAL_ACCOUNT, LOCAL_REGION } from '../iam/calls';
import type { Bundles } from './bundles';

/**
 * `localOnly`: the local engines' endpoints and the other local-only variables; `sqs`: the local SQS
 * endpoint, where the queue URLs point; `secretOf`: the secret access key the runtime issued to a function
 * (the SQS endpoint checks its signatures with it).
 */
export function sandboxEnvironments(
  bundles: Bundles,
  deployment: Deployment,
  localOnly: Record<string, string>,
  sqs: string,
  secretOf: (fn: FunctionName) => string,
): Map<FunctionName, Record<string, string>> {
  const withSqs: Deployment = { ...deployment, queueUrl: (name) => `${sqs}/${LOCAL_ACCOUNT}/${name}` };
  return new Map(
    FUNCTIONS.map((spec) => {
      const env: Record<string, string> = {
        ...functionEnvironment(spec, withSqs),
        ...localOnly,
        // What the Lambda runtime sets; the access key names the function, as its role would (the SQS endpoint's caller).
        AWS_LAMBDA_FUNCTION_NAME: spec.name,
        AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(spec.memoryMb),
        AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${spec.name}`,
        AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
        AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
        LAMBDA_TASK_ROOT: dirname(bundles.bundles.get(spec.name)?.file ?? bundles.dir),
        AWS_DEFAULT_REGION: LOCAL_REGION,
        AWS_ACCESS_KEY_ID: spec.name,
        AWS_SECRET_ACCESS_KEY: secretOf(spec.name),
        AWS_SESSION_TOKEN: 'local',
        AWS_ENDPOINT_URL_SQS: sqs,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      };
      try {
        parseConfig(env);
      } catch (err) {
        throw new Error(`the environment of ${spec.name} does not parse: ${err instanceof Error ? err.message : String(err)}`);
      }
      return [spec.name, env] as const;
    }),
  );
}
