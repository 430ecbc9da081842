import type { SecretsPort } from '../ports/secrets';

/**
 * Secrets named by the stack (identity provider secret key, VAPID key pair, uploader-hash key), read once per
 * cold start into the variables the config schema reads. Locally no ARN is set and nothing is read. The
 * origin-verify secret rotates, so shared/http/edge.ts re-reads it on its own.
 */
export async function loadSecretEnv(env: NodeJS.ProcessEnv, secrets: SecretsPort | undefined): Promise<Record<string, string>> {
  if (!env.IDP_SECRET_ARN && !env.VAPID_SECRET_ARN && !env.UPLOADER_SECRET_ARN) return {};
  if (!secrets) throw new Error('a secret ARN is set but this function was composed without the secrets port');
  const read = async (arn: string) => (await secrets.read(arn)) ?? '';
  const out: Record<string, string> = {};
  if (env.IDP_SECRET_ARN) out.IDP_SECRET_KEY = await read(env.IDP_SECRET_ARN);
  if (env.UPLOADER_SECRET_ARN) out.UPLOADER_KEY = await read(env.UPLOADER_SECRET_ARN);
  if (env.VAPID_SECRET_ARN) {
    const raw = await read(env.VAPID_SECRET_ARN);
    try {
      const pair = JSON.parse(raw) as { publicKey?: string; privateKey?: string };
      if (pair.publicKey && pair.privateKey) Object.assign(out, { VAPID_PUBLIC_KEY: pair.publicKey, VAPID_PRIVATE_KEY: pair.privateKey });
    } catch {
      // not set up yet: push stays off (503 push_unconfigured)
    }
  }
  return out;
}
