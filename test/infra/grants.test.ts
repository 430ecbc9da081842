import { describe, expect, it } from 'vitest';
import { type FunctionName, SCHEDULES, STREAM_CONSUMER } from '../../shared/topology';
import { actionsOf, environmentOf, flatten, resourcesOf, type Statement, statementsOf, synth } from './synth';

/**
 * What each function's code touches in the files bucket and the queues, read from the code (issue 11,
 * point 8), written out here rather than taken from the manifest so a manifest change cannot move both.
 * Prefixes are relative to the stage's files prefix.
 */
interface Expected {
  read?: string[];
  write?: string[];
  delete?: string[];
  list?: string[];
  /** `merge`: the six merge queues; `push`: the push queue. */
  queues?: Array<'merge' | 'push'>;
  /** Sets failed merges aside in the rejected queue. */
  rejects?: boolean;
  /** Takes the merge queues' dead letters back (receives and deletes them). */
  redrives?: boolean;
}

const RETAINED = ['live/', 'books/', 'candles/v1/m1/', 'candles/v1/h1/', 'candles/v1/h1c/', 'candles/v1/d1/', 'candles/v1/d1c/', 'snap/', 'recent/', 'volume/'];

const EXPECTED: Record<FunctionName, Expected> = {
  // book route, snapshot reads, updater files, item data (rebuilt on request), POST /admin/snapshot; answers too
  // big for a Lambda (the only writer of answers/, issue 13)
  api: { read: ['books/', 'releases/', 'items/', 'snap/', 'recent/'], write: ['items/', 'snap/', 'recent/', 'answers/'] },
  upload: { write: ['books/', 'quarantine/'], delete: ['books/', 'quarantine/'], queues: ['merge'] },
  // item data, icons, and the newest hourly snapshots (the home page's most listed items)
  pages: { read: ['items/', 'icons/', 'snap/'] },
  'ws-connect': {},
  'ws-message': {},
  'ws-disconnect': {},
  merge: { read: ['books/'], write: ['live/'], queues: ['push'], rejects: true },
  fanout: {},
  push: { queues: ['push'] },
  seal: { write: ['candles/', 'volume/'] },
  snapshot: { read: ['snap/', 'recent/', 'items/'], write: ['snap/', 'recent/'] },
  // reads nothing (issue 26 point 5: a live file's write time is its LastModified, in every stage),
  // and deletes what older versions left under work/ (internal state now in the private work bucket)
  retention: { list: [...RETAINED, 'work/', 'answers/'], delete: [...RETAINED, 'quarantine/', 'work/', 'answers/'] },
  items: { read: ['items/'], write: ['items/'] },
  'live-sweep': {},
  // probes books/ (what a merge reads) before it returns dead letters to the merge queues
  redrive: { read: ['books/'], queues: ['merge'], rejects: true, redrives: true },
};

/**
 * Production's differences: POST /admin/snapshot answers 404 there, so the api keeps no snapshot writes and no
 * work bucket, only what its other routes use (issue 23 point 5).
 */
const IN_PRODUCTION: Partial<Record<FunctionName, Expected>> = {
  api: { read: ['books/', 'releases/', 'items/', 'snap/', 'recent/'], write: ['items/', 'answers/'] },
};

const S3_ACTIONS: Record<string, keyof Expected> = { 's3:GetObject': 'read', 's3:PutObject': 'write', 's3:DeleteObject': 'delete' };
const sorted = (list: string[] | undefined): string[] => [...new Set(list ?? [])].sort();

/** The key patterns (`books/*`) of a resource inside the files bucket, after the stage prefix. */
function keyPattern(resource: unknown, stagePrefix: string): string {
  const arn = flatten(resource);
  // The partition is a literal where the stack's region is (`@aws-cdk/core:enablePartitionLiterals`, cdk.json).
  const m = arn.match(/^(?:resolved|arn:(?:resolved|aws):s3:::dev-files-bucket)\/(.*)$/);
  if (!m) throw new Error(`not an object resource of the files bucket: ${arn}`);
  expect(m[1].startsWith(stagePrefix), arn).toBe(true);
  return m[1].slice(stagePrefix.length);
}

/** A function's S3 grants as prefix lists per right (list: the `s3:prefix` values of s3:ListBucket). */
function bucketGrants(stage: string, name: FunctionName, stagePrefix: string): Required<Pick<Expected, 'read' | 'write' | 'delete' | 'list'>> {
  const out = { read: [] as string[], write: [] as string[], delete: [] as string[], list: [] as string[] };
  // The private work bucket (internal state) is checked on its own in least-privilege.test.ts.
  const onFiles = (st: Statement) => !JSON.stringify(st.Resource).includes('WorkBucket');
  for (const st of statementsOf(synth(stage), name).filter((x) => x.Effect === 'Allow' && onFiles(x))) {
    for (const action of actionsOf(st).filter((a) => a.startsWith('s3:'))) {
      if (action === 's3:ListBucket') {
        const prefixes = (st.Condition?.StringLike?.['s3:prefix'] ?? []) as string[];
        expect(prefixes.length, `${name}: ListBucket without a prefix condition`).toBeGreaterThan(0);
        for (const p of prefixes) {
          expect(p.startsWith(stagePrefix) && p.endsWith('*'), p).toBe(true);
          out.list.push(p.slice(stagePrefix.length, -1));
        }
        continue;
      }
      const right = S3_ACTIONS[action];
      expect(right, `${name} may not have ${action}`).toBeDefined();
      for (const r of resourcesOf(st)) {
        const pattern = keyPattern(r, stagePrefix);
        expect(pattern.endsWith('*') && pattern.length > 1, `${name}: ${action} on ${pattern}`).toBe(true);
        out[right as 'read' | 'write' | 'delete'].push(pattern.slice(0, -1));
      }
    }
  }
  return out;
}

function queueGrants(name: FunctionName): { merge: number; push: number; rejected: number; deadLetters: number; failures: number } {
  const statements = statementsOf(synth('dev'), name).filter((st) => st.Effect === 'Allow');
  const targets = statements.filter((st) => actionsOf(st).includes('sqs:SendMessage')).flatMap((st) => resourcesOf(st).map((r) => JSON.stringify(r)));
  const rejected = targets.filter((r) => r.includes('MergeQueuesRejected')).length;
  const merge = targets.filter((r) => r.includes('MergeQueues') && !r.includes('MergeQueuesRejected') && !r.includes('DeadLetters')).length;
  const push = targets.filter((r) => r.includes('PushQueue')).length;
  // Lambda sends a failed scheduled run or a skipped stream batch there as the function (issue 26 point 3).
  const failures = targets.filter((r) => r.includes('FailedRuns') || r.includes('StreamFailed')).length;
  expect(merge + push + rejected + failures, `${name} sends to a queue outside the stage's`).toBe(targets.length);
  const deadLetters = statements
    .filter((st) => actionsOf(st).includes('sqs:ReceiveMessage'))
    .flatMap((st) => resourcesOf(st).map((r) => JSON.stringify(r)))
    .filter((r) => r.includes('DeadLetters')).length;
  return { merge, push, rejected, deadLetters, failures };
}

describe('least privilege: each function touches only the bucket prefixes and queues its code uses', () => {
  for (const [stage, stagePrefix] of [
    ['dev', ''],
    ['production', ''],
    ['preview-abc', 'preview-abc/'],
  ] as const) {
    it(`grants each function exactly its prefixes of the files bucket (${stage})`, () => {
      for (const [name, everywhere] of Object.entries(EXPECTED) as Array<[FunctionName, Expected]>) {
        const want = (stage === 'production' ? IN_PRODUCTION[name] : undefined) ?? everywhere;
        const got = bucketGrants(stage, name, stagePrefix);
        expect(sorted(got.read), `${name} read`).toEqual(sorted(want.read));
        expect(sorted(got.write), `${name} write`).toEqual(sorted(want.write));
        expect(sorted(got.delete), `${name} delete`).toEqual(sorted(want.delete));
        // Readers may list their prefixes: S3 answers a missing key 404 (not 403) only to a caller that may list it.
        expect(sorted(got.list), `${name} list`).toEqual(sorted([...(want.read ?? []), ...(want.list ?? [])]));
      }
    });
  }

  it('lets nothing but upload write or delete books, and nothing write releases/', () => {
    for (const name of Object.keys(EXPECTED) as FunctionName[]) {
      const got = bucketGrants('dev', name, '');
      expect(
        got.write.some((p) => 'releases/'.startsWith(p) || p.startsWith('releases/')),
        name,
      ).toBe(false);
      expect(got.write.includes('books/'), name).toBe(name === 'upload');
      expect(got.delete.includes('books/'), name).toBe(name === 'upload' || name === 'retention');
    }
  });

  it("keeps the admin snapshot's writes (snap/, recent/, the work bucket) out of production's api, and only there", () => {
    for (const stage of ['dev', 'production', 'preview-abc']) {
      const s = synth(stage);
      const statements = statementsOf(s, 'api').filter((st) => st.Effect === 'Allow');
      const onWork = statements.some((st) => JSON.stringify(st.Resource).includes('WorkBucket'));
      const prefix = stage === 'preview-abc' ? 'preview-abc/' : '';
      const writes = bucketGrants(stage, 'api', prefix).write;
      const admin = stage !== 'production';
      expect(onWork, `${stage}: work bucket`).toBe(admin);
      expect('WORK_BUCKET_NAME' in environmentOf(s, 'api'), stage).toBe(admin);
      expect(writes.includes('snap/') && writes.includes('recent/'), `${stage}: snapshot writes`).toBe(admin);
    }
  });

  it('lets each function send only to the queues it uses', () => {
    for (const [name, want] of Object.entries(EXPECTED) as Array<[FunctionName, Expected]>) {
      const want6 = want.queues?.includes('merge') ? 6 : 0;
      const want1 = want.queues?.includes('push') ? 1 : 0;
      const rejected = want.rejects ? 1 : 0;
      const deadLetters = want.redrives ? 6 : 0;
      const failures = SCHEDULES.some((s) => s.function === name) || STREAM_CONSUMER.function === name ? 1 : 0;
      expect(queueGrants(name), name).toEqual({ merge: want6, push: want1, rejected, deadLetters, failures });
      const urls = JSON.parse(flatten(environmentOf(synth('dev'), name).QUEUE_URLS)) as Record<string, string>;
      expect(Object.keys(urls).length, `${name} QUEUE_URLS`).toBe(want6 + want1 + rejected + deadLetters);
    }
  });
});
