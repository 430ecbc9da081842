/** The secrets port in memory: a secret's string by ARN, undefined for one never stored (Secrets Manager's shape). */
import type { SecretsPort } from '../../ports/secrets';

export class MemorySecrets implements SecretsPort {
  constructor(private readonly values: Readonly<Record<string, string>> = {}) {}

  async read(arn: string): Promise<string | undefined> {
    return this.values[arn];
  }
}
