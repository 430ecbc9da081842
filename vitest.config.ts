import { defineConfig } from 'vitest/config';

/**
 * Two projects (issue 12 point 2): `unit` runs the pure rules and the in-memory fakes with no global setup, so
 * no Java and no storage engine (`npm run test:unit`); `integration` (integration, contract and infra tests)
 * gets DynamoDB Local and s3rver from the global setup. `npm test` / `vitest run` runs both.
 */
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
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/contract/**/*.test.ts', 'test/infra/**/*.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          // Every answer of a local runtime is held to the OpenAPI documents (issue 24 point 10).
          setupFiles: ['test/support/openapi-fetch.ts'],
        },
      },
      {
        extends: true,
        test: {
          // The files proved on the in-memory fakes (issue 25 point 4): the local runtime with no Java and no engine.
          name: 'memory',
          include: [
            'test/integration/spec-account.test.ts',
            'test/integration/spec-files-live.test.ts',
            'test/integration/spec-reads.test.ts',
            'test/integration/spec-settings.test.ts',
            'test/integration/spec-uploads.test.ts',
            'test/integration/local-memory.test.ts',
            'test/integration/files-route.test.ts',
            'test/integration/identity-auth.test.ts',
            'test/integration/identity-me.test.ts',
            'test/integration/identity-pairing.test.ts',
            'test/integration/key-scopes.test.ts',
            'test/integration/live-closes.test.ts',
            'test/integration/live-socket.test.ts',
            'test/integration/local-control-errors.test.ts',
            'test/integration/settings-routes.test.ts',
          ],
          env: { LOCAL_BACKEND: 'memory' },
          globalSetup: ['test/support/memory-setup.ts'],
          setupFiles: ['test/support/openapi-fetch.ts'],
        },
      },
    ],
  },
});
