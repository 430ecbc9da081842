/**
 * The secrets port: a secret's string by ARN. Secrets Manager in AWS (shared/store/secrets-manager.ts), built
 * only by the functions whose manifest access names secrets; the local runtime sets secret values directly
 * (no ARN), so its port is never asked.
 */
export interface SecretsPort {
  read(arn: string): Promise<string | undefined>;
}
