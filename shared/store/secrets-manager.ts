/** The Secrets Manager adapter of the secrets port (shared/ports/secrets.ts). */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SecretsPort } from '../ports/secrets';

export function secretsManager(): SecretsPort {
  const client = new SecretsManagerClient({});
  return { read: async (arn) => (await client.send(new GetSecretValueCommand({ SecretId: arn }))).SecretString };
}
