/**
 * The Secrets Manager adapter of the secrets port (shared/ports/secrets.ts). The SDK client is loaded on the
 * first read: a function whose stage sets no secret ARN (the local runtime, a bench) never loads it.
 */
import type { SecretsPort } from '../ports/secrets';
import { atPort } from './dependency-failure';

export function secretsManager(): SecretsPort {
  let client: Promise<{ read(arn: string): Promise<string | undefined> }> | undefined;
  const load = async () => {
    const { GetSecretValueCommand, SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
    const sm = new SecretsManagerClient({});
    return { read: async (arn: string) => (await sm.send(new GetSecretValueCommand({ SecretId: arn }))).SecretString };
  };
  return atPort('secrets', {
    read: async (arn: string) => {
      client ??= load();
      return (await client).read(arn);
    },
  });
}
