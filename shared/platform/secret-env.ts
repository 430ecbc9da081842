import type { Config } from '../config';
import { keepOutOfLogs } from '../log';
import type { SecretsPort } from '../ports/secrets';

/**
 * Secrets named by the stack (identity provider secret key, VAPID key pair or its public half, uploader-hash
 * key, origin-verify values), read once per cold start into the variables the config schema reads. Locally no
 * ARN is set and nothing is read: the local runtime sets the values themselves. The origin-verify secret
 * rotates, so shared/http/edge.ts re-reads it on its own; the cold start's read only gets its values into the
 * configuration, so they are registered for redaction with the others (an unreadable one is left to edge.ts,
 * which answers 503).
 */
export async function loadSecretEnv(env: NodeJS.ProcessEnv, secrets: SecretsPort | undefined): Promise<Record<string, string>> {
  if (!env.IDP_SECRET_ARN && !env.VAPID_SECRET_ARN && !env.VAPID_PUBLIC_ARN && !env.UPLOADER_SECRET_ARN && !env.ORIGIN_SECRET_ARN) return {};
  if (!secrets) throw new Error('a secret ARN is set but this function was composed without the secrets port');
  const read = async (arn: string) => (await secrets.read(arn)) ?? '';
  const out: Record<string, string> = {};
  if (env.IDP_SECRET_ARN) out.IDP_SECRET_KEY = await read(env.IDP_SECRET_ARN);
  if (env.UPLOADER_SECRET_ARN) out.UPLOADER_KEY = await read(env.UPLOADER_SECRET_ARN);
  if (env.VAPID_SECRET_ARN) {
    const pair = parsed(await read(env.VAPID_SECRET_ARN));
    // not set up yet: push stays off (503 push_unconfigured)
    if (pair.publicKey && pair.privateKey) Object.assign(out, { VAPID_PUBLIC_KEY: pair.publicKey, VAPID_PRIVATE_KEY: pair.privateKey });
  }
  if (env.VAPID_PUBLIC_ARN) {
    const { publicKey } = parsed(await read(env.VAPID_PUBLIC_ARN));
    if (publicKey) out.VAPID_PUBLIC_KEY = publicKey;
  }
  if (env.ORIGIN_SECRET_ARN) {
    try {
      out.ORIGIN_VERIFY = await read(env.ORIGIN_SECRET_ARN);
    } catch {
      // edge.ts reads it again on the first request, and refuses with 503 while it cannot.
    }
  }
  return out;
}

const parsed = (raw: string): { publicKey?: string; privateKey?: string } => {
  try {
    const value = JSON.parse(raw) as unknown;
    return value && typeof value === 'object' ? (value as { publicKey?: string; privateKey?: string }) : {};
  } catch {
    return {};
  }
};

/**
 * Every secret value a function's configuration carries: the one list, registered for log redaction by both
 * platforms (shared/platform/aws.ts and the local runtime), so what AWS keeps out of the logs is what the
 * local runtime does. The VAPID public key is public and stays readable.
 */
export function secretValuesOf(config: Config): string[] {
  return [config.idp.secretKey, config.vapid?.privateKey ?? '', ...config.originVerify, config.uploaderKey].filter(Boolean);
}

/** Keeps every secret of a function's configuration out of its log lines (shared/log-redact.ts). */
export function keepSecretsOutOfLogs(config: Config): void {
  keepOutOfLogs(...secretValuesOf(config));
}
