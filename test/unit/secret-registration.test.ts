import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Deployment, functionEnvironment, type SecretName } from '../../lib/environment';
import { CONFIG_VARIABLES_BY_SOURCE } from '../../shared/config';
import { acceptedOriginValues } from '../../shared/http/edge';
import { awsPlatform } from '../../shared/platform/aws';
import type { SecretsPort } from '../../shared/ports/secrets';
import { FUNCTIONS, type FunctionSpec } from '../../shared/topology';

/** A value no redaction pattern knows the shape of: only a registration can keep it out of a line. */
const plain = (): string => randomBytes(18).toString('hex');

/** What an AWS stage would give `spec`: ARNs for its secrets (lib/constructs/service-functions.ts does the same). */
function awsDeployment(fn: string): Deployment {
  const arn = (name: SecretName) => `arn:aws:secretsmanager:eu-west-1:123456789012:secret:${fn}-${name}`;
  return {
    stage: 'production',
    publicBase: 'https://market.example.test/',
    cdnBase: 'https://files.example.test/',
    origins: 'https://market.example.test',
    identity: { publishableKey: 'pk_live_x', issuer: 'https://idp.example.test', jwksUrl: 'https://idp.example.test/jwks', apiUrl: 'https://idp.example.test' },
    connectionsEndpoint: 'https://live.example.test/production',
    vapidSubject: 'mailto:ops@example.test',
    tableName: 'table',
    bucketName: 'bucket',
    filesPrefix: '',
    workBucketName: 'work',
    logSampleRate: 0,
    tracing: false,
    queueUrl: (name) => `https://sqs.eu-west-1.amazonaws.com/123456789012/${name}`,
    secret: (name) => ({ [CONFIG_VARIABLES_BY_SOURCE.secretArns[name]]: arn(name) }),
  };
}

/** Secrets Manager as one function sees it: each of its secrets with fresh values, and what a log must never show. */
function stageSecrets(spec: FunctionSpec): { port: SecretsPort; hidden: string[] } {
  const privateKey = plain();
  const origin = { current: plain(), previous: plain() };
  const values: Record<SecretName, string> = {
    identity: plain(),
    vapid: JSON.stringify({ publicKey: `BPUB${plain()}`, privateKey }),
    vapidPublic: JSON.stringify({ publicKey: `BPUB${plain()}` }),
    origin: JSON.stringify(origin),
    uploader: plain(),
  };
  const hiddenOf: Record<SecretName, string[]> = {
    identity: [values.identity],
    vapid: [privateKey],
    vapidPublic: [],
    origin: [origin.current, origin.previous],
    uploader: [values.uploader],
  };
  const held = spec.access.secrets ?? [];
  return {
    port: { read: async (arn) => values[held.find((name) => arn.endsWith(`-${name}`)) as SecretName] },
    hidden: held.flatMap((name) => hiddenOf[name]),
  };
}

/**
 * Unit (issue 23, point 7): redaction in AWS equals redaction locally. Each function is started the AWS way
 * (shared/platform/aws.ts from its stack environment, its secrets read through the secrets port), reads the
 * origin secret as a request does, then logs a line naming every secret it loaded; the log is scanned for them.
 */
describe('secrets registered for redaction by the AWS platform', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
    vi.restoreAllMocks();
  });

  it('keeps every secret a function loads out of its log lines, in every function', async () => {
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
    vi.spyOn(console, 'error').mockImplementation((line: unknown) => void lines.push(String(line)));
    const leaks: string[] = [];
    for (const spec of FUNCTIONS.filter((f) => (f.access.secrets ?? []).length > 0)) {
      const { port, hidden } = stageSecrets(spec);
      process.env = { ...saved, ...functionEnvironment(spec, awsDeployment(spec.name)) };
      const platform = await awsPlatform({ secrets: () => port });
      if (spec.access.secrets?.includes('origin')) await acceptedOriginValues({ ...platform, secrets: platform.secrets() });
      const before = lines.length;
      platform.log('error', `loaded ${hidden.join(' ')}`, { detail: `values: ${hidden.join(',')}` });
      const written = lines.slice(before).join('\n');
      expect(written).toContain('loaded');
      for (const s of hidden) if (written.includes(s)) leaks.push(`${spec.name}: ${s.slice(0, 6)}…`);
    }
    expect(leaks).toEqual([]);
  });
});
