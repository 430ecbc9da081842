/**
 * Each function's local credentials, made at start, as each function has its own role on AWS: the access key
 * id is the function's name, the secret random (only its sandbox's environment and the runtime hold it), so
 * the local AWS edge and the SQS endpoint know the caller by its signature. The runtime's own calls outside
 * any invocation sign with the operator key.
 */
import { randomBytes } from 'node:crypto';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { FUNCTIONS, type FunctionName } from '../../../shared/topology';
import { OPERATOR_KEY } from './edge';

export class LocalCredentials {
  private readonly secrets = new Map<string, string>();

  constructor() {
    for (const key of [...FUNCTIONS.map((f) => f.name), OPERATOR_KEY]) this.secrets.set(key, randomBytes(30).toString('base64url'));
  }

  /** The secret issued to an access key id (a function's name or the operator key). */
  readonly secretOf = (accessKeyId: string): string | undefined => this.secrets.get(accessKeyId);

  /** The credentials of a function (its sandbox's environment) or, with none, the operator's. */
  of(fn: FunctionName | undefined): AwsCredentialIdentity {
    const key = fn ?? OPERATOR_KEY;
    return { accessKeyId: key, secretAccessKey: this.secrets.get(key)!, sessionToken: 'local' };
  }

  /**
   * For the in-process functions' shared SDK clients: each call signs as the function whose invocation makes
   * it (`current`), the operator outside any. Marked memoized so the SDK asks again on every call.
   */
  provider(current: () => FunctionName | undefined): AwsCredentialIdentityProvider {
    const provide = async () => this.of(current());
    return Object.assign(provide, { memoized: true });
  }
}
