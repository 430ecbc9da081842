import { describe, expect, it } from 'vitest';
import { RUNTIME_VARIABLES, stackVariablesOf } from '../../lib/environment';
import { devParameters } from '../../lib/stages';
import { CONFIG_VARIABLES, CONFIG_VARIABLES_BY_SOURCE, envOfStage, parseConfig } from '../../shared/config';
import { CATALOGUE_NEW_KEYS_PER_DAY } from '../../shared/domain/item-catalogue';
import { endpointAllowed, PUSH_SERVICE_HOSTS } from '../../shared/domain/push-subscription';
import { accessIn, deadLetterQueueName, FUNCTIONS, MERGE_QUEUES, MERGE_REJECTED_QUEUE, PUSH_QUEUE } from '../../shared/topology';
import { environmentOf, flatten, ofType, synth } from './synth';

const resolvedEnvironment = (stage: string, name: (typeof FUNCTIONS)[number]['name']): Record<string, string> =>
  Object.fromEntries(Object.entries(environmentOf(synth(stage), name)).map(([k, v]) => [k, flatten(v)]));

describe('function environment', () => {
  it('names where every variable the config parser reads comes from, each once', () => {
    const { deployment, workBucket, secretArns, secretValues, lambda, local } = CONFIG_VARIABLES_BY_SOURCE;
    // VAPID_PUBLIC_KEY comes from the pair (push) or from its public half alone (api): one variable, two secrets.
    const fromSecrets = [...new Set(Object.values(secretValues).flat())];
    const sourced = [...deployment, ...workBucket, ...Object.values(secretArns), ...fromSecrets, ...lambda, ...local];
    expect([...sourced].sort()).toEqual([...CONFIG_VARIABLES].sort());
    expect(new Set(sourced).size).toBe(sourced.length);
  });

  it('sets, for every function of every stage, each variable the config reads from the deployment, and nothing else', () => {
    const { workBucket, secretArns, secretValues, lambda, local } = CONFIG_VARIABLES_BY_SOURCE;
    for (const stage of ['production', 'dev', 'preview-abc']) {
      const s = synth(stage);
      // Production's api has no work bucket (issue 23: only POST /admin/snapshot, 404 there, used it).
      for (const spec of FUNCTIONS.map((f) => accessIn(f, envOfStage(stage)))) {
        const set = Object.keys(environmentOf(s, spec.name)).sort();
        expect(set, `${stage} ${spec.name}`).toEqual(stackVariablesOf(spec).sort());
        // What the template leaves out is read from the function's own secrets at cold start, set by the
        // Lambda runtime, only used locally, or not granted to the function (then the parser's default holds).
        const held = spec.access.secrets ?? [];
        const notHeld = (['identity', 'vapid', 'vapidPublic', 'origin', 'uploader'] as const).filter((n) => !held.includes(n));
        const mayLack: string[] = [
          ...held.flatMap((n) => secretValues[n]),
          ...lambda,
          ...local,
          ...(spec.access.workBucket === 'write' ? [] : workBucket),
          ...notHeld.flatMap((n) => [secretArns[n], ...secretValues[n]]),
        ];
        expect(
          CONFIG_VARIABLES.filter((v) => !set.includes(v) && !mayLack.includes(v)),
          `${stage} ${spec.name}`,
        ).toEqual([]);
        expect(
          set.filter((v) => !(CONFIG_VARIABLES as string[]).includes(v)),
          `${stage} ${spec.name}`,
        ).toEqual([...RUNTIME_VARIABLES].sort());
      }
    }
  });

  it('satisfies the service config schema for every function of every stage', () => {
    for (const stage of ['production', 'dev', 'preview-abc']) {
      for (const spec of FUNCTIONS) {
        const config = parseConfig(resolvedEnvironment(stage, spec.name));
        expect(config.stage).toBe(stage);
        expect(config.env).toBe(stage.startsWith('preview') ? 'preview' : stage);
      }
    }
  });

  it('hands each function the URLs of exactly the queues it may use', () => {
    const urls = (name: (typeof FUNCTIONS)[number]['name']) => Object.keys(parseConfig(resolvedEnvironment('dev', name)).queueUrls).sort();
    expect(urls('api')).toEqual([]);
    expect(urls('upload')).toEqual(MERGE_QUEUES.map((q) => q.name).sort());
    expect(urls('merge')).toEqual([MERGE_REJECTED_QUEUE.name, PUSH_QUEUE.name].sort());
    expect(urls('push')).toEqual([PUSH_QUEUE.name]);
    expect(urls('redrive')).toEqual(
      [...MERGE_QUEUES.map((q) => q.name), ...MERGE_QUEUES.map((q) => deadLetterQueueName(q.name)), MERGE_REJECTED_QUEUE.name].sort(),
    );
    expect(urls('pages')).toEqual([]);
  });

  it('passes secret ARNs only to the functions whose access lists the secret', () => {
    const s = synth('dev');
    for (const spec of FUNCTIONS) {
      const env = environmentOf(s, spec.name);
      expect('IDP_SECRET_ARN' in env, spec.name).toBe(spec.access.secrets?.includes('identity') ?? false);
      expect('VAPID_SECRET_ARN' in env, spec.name).toBe(spec.access.secrets?.includes('vapid') ?? false);
      expect('VAPID_PUBLIC_ARN' in env, spec.name).toBe(spec.access.secrets?.includes('vapidPublic') ?? false);
      expect('ORIGIN_SECRET_ARN' in env, spec.name).toBe(spec.access.secrets?.includes('origin') ?? false);
      expect('UPLOADER_SECRET_ARN' in env, spec.name).toBe(spec.access.secrets?.includes('uploader') ?? false);
    }
  });

  it('gives the origin secret to exactly the functions behind CloudFront, and the uploader key to upload', () => {
    const s = synth('production');
    const holders = (variable: string) =>
      FUNCTIONS.filter((f) => variable in environmentOf(s, f.name))
        .map((f) => f.name)
        .sort();
    expect(holders('ORIGIN_SECRET_ARN')).toEqual(['api', 'pages', 'upload', 'ws-connect']);
    expect(holders('UPLOADER_SECRET_ARN')).toEqual(['upload']);
  });

  it("accepts only the browsers' push services in every AWS stage: loopback receivers are for the local runtime", () => {
    for (const stage of ['production', 'dev', 'preview-abc']) {
      for (const spec of FUNCTIONS) {
        const { push } = parseConfig(resolvedEnvironment(stage, spec.name));
        expect(push.loopback, `${stage} ${spec.name}`).toBe(false);
        expect(push.hosts).toEqual([...PUSH_SERVICE_HOSTS]);
        expect(endpointAllowed('http://127.0.0.1:9000/p', push)).toBe(false);
        expect(endpointAllowed('https://fcm.googleapis.com/fcm/send/x', push)).toBe(true);
      }
    }
  });

  it('allows only its own origin in production and the dev origins elsewhere', () => {
    const origins = (stage: string) => resolvedEnvironment(stage, 'api').ORIGINS.split(',');
    expect(origins('production')).toEqual(['https://resolved']);
    expect(origins('dev')).toEqual(expect.arrayContaining(['http://localhost', 'http://127.0.0.1', 'https://market-dev.example.workers.dev']));
    // A preview: its own origin, the dev origin (imported from the dev stack), then the local ones.
    expect(origins('preview-abc')).toEqual(['https://resolved', 'https://dev.example', ...origins('dev').slice(1)]);
  });

  it('publishes a preview under its prefix of the dev file host and bucket', () => {
    const s = synth('preview-abc');
    const env = environmentOf(s, 'snapshot');
    expect(env.FILES_PREFIX).toBe('preview-abc/');
    expect(flatten(env.BUCKET_NAME)).toBe('dev-files-bucket');
    expect(flatten(env.CDN_BASE)).toBe('https://files.dev.example/preview-abc/');
    // Only the access-log bucket, the work bucket (internal state, never served) and the website's build
    // (issue 24: its own site, own bucket) are the preview's own: its files are the dev host's.
    expect(
      ofType(s, 'AWS::S3::Bucket')
        .map(([id]) => id.replace(/[0-9A-F]{8}$/, ''))
        .sort(),
    ).toEqual(['AccessLogs', 'SiteAssetsBucket', 'WorkBucket']);
  });

  it('publishes the dev file host for previews as SSM parameters, with no CloudFormation export to lock dev', () => {
    const outputs = synth('dev').template.toJSON().Outputs as Record<string, { Export?: { Name: string } }>;
    expect(Object.values(outputs).flatMap((o) => (o.Export ? [o.Export.Name] : []))).toEqual([]);
    const published = ofType(synth('dev'), 'AWS::SSM::Parameter').map(([, p]) => p.Properties.Name);
    expect(published.sort()).toEqual(Object.values(devParameters).sort());
  });

  it('gives every deployed stage the daily catalogue quota of 10,000 keys; only the local runtime may lower it', () => {
    for (const stage of ['production', 'dev', 'preview-abc']) {
      const env = resolvedEnvironment(stage, 'upload');
      expect(env.CATALOGUE_KEYS_PER_DAY, stage).toBeUndefined();
      expect(parseConfig(env).catalogueKeysPerDay, stage).toBe(CATALOGUE_NEW_KEYS_PER_DAY);
    }
    expect(CATALOGUE_NEW_KEYS_PER_DAY).toBe(10_000);
    expect(parseConfig({ ...resolvedEnvironment('dev', 'upload'), CATALOGUE_KEYS_PER_DAY: '300' }).catalogueKeysPerDay).toBe(300);
    expect(() => parseConfig({ ...resolvedEnvironment('dev', 'upload'), CATALOGUE_KEYS_PER_DAY: '0' })).toThrow();
  });
});
