/**
 * The layers import downwards only (issue 12 point 3): the manifest lives in shared/ so that lib/ (the CDK
 * stack, the local runtime) and shared/ both import it from below, and nothing in shared/ reaches up into
 * lib/, bin/, lambdas/ or test/.
 */
import { describe, expect, it } from 'vitest';
import { importsOf, sourceFiles } from '../support/imports';

describe('layering', () => {
  it('keeps shared/ free of imports from lib/, bin/, lambdas/ and test/', () => {
    const upward = sourceFiles('shared').flatMap((file) =>
      importsOf(file)
        .filter((i) => /^(lib|bin|lambdas|test)(\/|$)/.test(i.target))
        .map((i) => `${file} imports ${i.specifier}`),
    );
    expect(upward).toEqual([]);
  });

  it('finds the imports it checks (the scan itself works)', () => {
    const targets = importsOf('shared/topology.ts').map((i) => i.target);
    expect(targets).toContain('shared/domain/market');
    expect(importsOf('lib/stack.ts').some((i) => i.target === 'shared/topology')).toBe(true);
  });
});
