/**
 * Issue 25 point 5: the tiers of test/tiers.ts (docs/testing.md, "The tiers") hold what they say. A file is
 * in one tier; the offline files reach no engine, no local runtime and no value the engines' global setup
 * provides; the service files drive a local runtime and use none of the handles only the engines have (raw
 * DynamoDB or S3 clients, recorded AWS calls, metered units), so the memory backend can carry them; the
 * unit and offline projects start no engine.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import config from '../../vitest.config';
import { importsOf, ROOT, sourceFiles } from '../support/imports';
import { BOTH_BACKENDS_FILES, OFFLINE_FILES, SERVICE_FILES } from '../tiers';

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** The project's own files `file` reaches through relative imports, itself included. */
function reached(file: string): string[] {
  const seen = new Set<string>([file]);
  const queue = [file];
  while (queue.length > 0) {
    for (const i of importsOf(queue.pop()!)) {
      if (!i.specifier.startsWith('.')) continue;
      const path = [`${i.target}.ts`, join(i.target, 'index.ts'), i.target].find((p) => /\.(ts|mjs)$/.test(p) && existsSync(join(ROOT, p)));
      if (path && !seen.has(path)) {
        seen.add(path);
        queue.push(path);
      }
    }
  }
  return [...seen];
}

/** What only the engines have: their endpoints, raw clients of the table or the bucket, recorded or metered AWS calls. */
const ENGINE_ONLY: Array<[string, RegExp]> = [
  ['an engine endpoint', /inject\(\s*['"](dynamodbEndpoint|s3Endpoint)['"]/],
  ['the raw S3 client', /runtime\.s3\b/],
  ['the raw table client', /operator\.ddb\b/],
  ['a fresh table or bucket', /\b(freshTable|freshBucket|engineConfig)\b/],
  ['metered units', /\bawsMeter\b/],
  ['recorded AWS calls', /\b(callsInMemory|recorder)\b/],
  ['an engine process', /\b(startDynamoDbLocal|startS3rver)\b/],
];

const projects = (config.test?.projects ?? []) as Array<{ test: { name: string; include?: string[]; exclude?: string[]; globalSetup?: string[] } }>;

describe('test tiers', () => {
  const offline = [...sourceFiles('test/infra').filter((f) => f.endsWith('.test.ts')), ...OFFLINE_FILES];

  it('lists only files that exist, each in one tier', () => {
    for (const f of [...OFFLINE_FILES, ...SERVICE_FILES]) expect(existsSync(join(ROOT, f)), f).toBe(true);
    const all = [...OFFLINE_FILES, ...SERVICE_FILES];
    expect(new Set(all).size).toBe(all.length);
    expect(offline.filter((f) => SERVICE_FILES.includes(f))).toEqual([]);
  });

  it('runs the spec acceptance files on both backends: the service tier (memory) and the engines tier', () => {
    const project = (name: string) => projects.find((p) => p.test.name === name)!.test;
    const specs = sourceFiles('test/integration').filter((f) => /\/spec-[^/]+\.test\.ts$/.test(f));
    expect(specs.length).toBeGreaterThanOrEqual(5);
    expect([...BOTH_BACKENDS_FILES].sort()).toEqual(specs.sort());
    for (const f of specs) {
      expect(project('service').include, f).toContain(f);
      expect(project('engines').exclude ?? [], f).not.toContain(f);
    }
  });

  it('keeps the offline files off the engines, the local runtime and the engines’ provided values', () => {
    const forbidden = [
      'lib/local/engines/engines.ts',
      'lib/local/runtime.ts',
      'test/support/engines.ts',
      'test/support/local.ts',
      'test/support/global-setup.ts',
    ];
    for (const f of offline) {
      const files = reached(f);
      expect(
        files.filter((r) => forbidden.includes(r)),
        f,
      ).toEqual([]);
      expect(
        files.filter((r) => r.startsWith('test/') && /\binject\(/.test(read(r))),
        f,
      ).toEqual([]);
    }
  });

  it('keeps the service files on a local runtime, with nothing only the engines have', () => {
    for (const f of SERVICE_FILES) {
      const text = read(f);
      expect(text, f).toMatch(/\bstartLocal\(/);
      // local-memory names the engines' clients to show that the memory mode refuses them, saying so.
      if (f === 'test/integration/local-memory.test.ts') continue;
      expect(
        ENGINE_ONLY.filter(([, re]) => re.test(text)).map(([what]) => `${f}: ${what}`),
        f,
      ).toEqual([]);
    }
  });

  it('runs every tier in npm test: the Java-free ones together, then the service and engines tiers, then the browser tests', () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(scripts['test:unit']).toMatch(/^vitest run --project unit\b/);
    const steps = scripts.test.split(' && ');
    const javaFree = steps.findIndex((s) => s.startsWith('vitest run --project unit --project offline'));
    const engines = steps.findIndex((s) => s.startsWith('vitest run') && s.includes('--project service') && s.includes('--project engines'));
    expect(javaFree).toBeGreaterThan(-1);
    expect(engines).toBeGreaterThan(javaFree);
    expect(steps.at(-1)).toBe('npm run test:e2e');
    // Every project is named by one of the two runs.
    for (const p of projects) expect(`${steps[javaFree]} ${steps[engines]}`).toContain(`--project ${p.test.name}`);
  });

  it('starts no engine for the unit and offline projects', () => {
    const byName = new Map(projects.map((p) => [p.test.name, p.test]));
    expect(byName.get('unit')?.globalSetup ?? []).toEqual([]);
    expect(byName.get('offline')?.globalSetup ?? []).not.toContain('test/support/global-setup.ts');
    expect(byName.get('engines')?.globalSetup).toContain('test/support/global-setup.ts');
    const service = byName.get('service');
    if (service) expect(service.globalSetup ?? []).not.toContain('test/support/global-setup.ts');
  });
});
