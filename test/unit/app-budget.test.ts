/**
 * Issue 24 point 9 (and the brief's step 5): the app's initial JavaScript, what a page downloads before
 * anything else runs (the entry and every chunk it imports statically), stays within 100 KB gzip. Clerk's
 * library and chart code load on demand (dynamic imports) and are not counted, but must stay out of the
 * initial set.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readSiteBuild } from '../../lib/site-build';
import { ensureSiteBuild } from '../../scripts/site-build.mjs';

const BUDGET_BYTES = 100 * 1024;

interface Chunk {
  file: string;
  src?: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}

describe('the app’s initial JavaScript', () => {
  ensureSiteBuild({ quiet: true });
  const build = readSiteBuild();
  const manifest = JSON.parse(readFileSync(join(build?.dir ?? '', '.vite', 'manifest.json'), 'utf8')) as Record<string, Chunk>;
  const initial = new Set<string>();
  const visit = (key: string) => {
    if (initial.has(key)) return;
    initial.add(key);
    for (const k of manifest[key].imports ?? []) visit(k);
  };
  for (const [key, chunk] of Object.entries(manifest)) if (chunk.isEntry) visit(key);
  const files = [...initial].flatMap((k) => [manifest[k].file, ...(manifest[k].css ?? [])]);

  it('is at most 100 KB gzip (entry and its static imports)', () => {
    const bytes = files.reduce((sum, f) => sum + gzipSync(readFileSync(join(build?.dir ?? '', f))).length, 0);
    expect(files.length).toBeGreaterThan(0);
    expect(bytes).toBeLessThanOrEqual(BUDGET_BYTES);
  });

  it('leaves Clerk’s library out of it: it is loaded on demand, only on a deployment whose key names Clerk', () => {
    const clerk = Object.entries(manifest).filter(([key]) => key.includes('@clerk/'));
    expect(clerk.length).toBeGreaterThan(0);
    for (const [key, chunk] of clerk) {
      expect(initial.has(key)).toBe(false);
      expect(files).not.toContain(chunk.file);
    }
    expect(Object.values(manifest).some((c) => c.dynamicImports?.some((d) => d.includes('@clerk/')))).toBe(true);
  });
});
