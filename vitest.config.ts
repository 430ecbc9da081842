import { configDefaults, defineConfig } from 'vitest/config';
import { BOTH_BACKENDS_FILES, ENGINE_GLOBS, OFFLINE_FILES, OFFLINE_GLOBS, SERVICE_FILES, SERVICE_ON_MEMORY } from './test/tiers';

/**
 * The tiers (issue 25 point 5; docs/testing.md, "The tiers"; the lists are test/tiers.ts):
 * - `unit`: the pure rules and the in-memory fakes, no global setup, so no Java and no storage engine
 *   (`npm run test:unit`);
 * - `offline`: Java-free files outside test/unit (CDK synth, the cost CLI, the local gateway alone), with only
 *   the website's build made first;
 * - `service`: behaviour through a local runtime on its memory backend (`LOCAL_BACKEND=memory`), no engines.
 *   Defined once `SERVICE_ON_MEMORY` is on; until then its files run in `engines`;
 * - `engines`: DynamoDB Local and s3rver from the global setup, for what only they can show.
 * `vitest run` runs every project; `npm test` runs the Java-free tiers first without isolation (their files share
 * their worker's modules and the synthesized stages: half their CPU; isolation is a setting of the whole pool, so
 * the tiers that start runtimes and wrap `fetch` run apart, isolated), then `service` and `engines`.
 */
// The spec's acceptance files stay in the engines tier too: they pass on both backends.
const service = SERVICE_ON_MEMORY ? SERVICE_FILES.filter((f) => !BOTH_BACKENDS_FILES.includes(f)) : [];
// Every answer of a local runtime is held to the OpenAPI documents (issue 24 point 10).
const openapi = ['test/support/openapi-fetch.ts'];

export default defineConfig({
  test: {
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    testTimeout: 180_000,
    hookTimeout: 420_000,
    reporters: ['default'],
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      {
        extends: true,
        test: { name: 'offline', include: [...OFFLINE_GLOBS, ...OFFLINE_FILES], globalSetup: ['test/support/site-setup.ts'] },
      },
      ...(SERVICE_ON_MEMORY
        ? [
            {
              extends: true as const,
              test: {
                name: 'service',
                include: [...SERVICE_FILES],
                env: { LOCAL_BACKEND: 'memory' },
                globalSetup: ['test/support/runtime-setup.ts'],
                setupFiles: openapi,
              },
            },
          ]
        : []),
      {
        extends: true,
        test: {
          name: 'engines',
          include: [...ENGINE_GLOBS],
          exclude: [...configDefaults.exclude, ...OFFLINE_FILES, ...service],
          globalSetup: ['test/support/global-setup.ts'],
          setupFiles: openapi,
        },
      },
    ],
  },
});
