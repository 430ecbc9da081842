/**
 * Which tier each test file outside `test/unit/` runs in (issue 25 point 5; docs/testing.md, "The tiers").
 * vitest.config.ts builds its projects from these lists, and test/unit/test-tiers.test.ts holds them to the
 * files on disk, so a file is never in two tiers and a name left behind by a rename fails a test.
 *
 * - unit: `test/unit/` (not listed here): pure rules and the in-memory fakes, no global setup.
 * - offline: needs neither Java nor s3rver (CDK synth, the cost CLI, the local WebSocket gateway alone).
 * - service: behaviour through a local runtime, which its memory backend carries (no Java, no S3 server).
 * - engines: what only DynamoDB Local and s3rver can show; every file not listed elsewhere lands here, so a new
 *   integration test runs on the engines until someone says it needs less.
 */

/** Whether the service tier runs on the memory backend (`LOCAL_BACKEND=memory`, issue 25 point 5): on unless
 * `SERVICE_TIER=engines`, which puts the service files back in the engines project (a whole run on the engines,
 * to compare the two backends: `SERVICE_TIER=engines npx vitest run --project engines`). */
export const SERVICE_ON_MEMORY = process.env.SERVICE_TIER !== 'engines';

/** Java-free files of test/integration and test/contract (all of test/infra is Java-free too: CDK synth). */
export const OFFLINE_FILES: readonly string[] = [
  // `npm run cost` on a fixture and a synthesized template.
  'test/integration/cost-cli.test.ts',
  // The local WebSocket gateway and @connections on a bare HTTP server, no runtime.
  'test/integration/local-live-gateway.test.ts',
  // The queues port on its fake and the runtime's in-process queues (no engine plays SQS).
  'test/contract/queues.contract.test.ts',
  // The sockets port on its fake and the API Gateway adapter against the local gateway alone.
  'test/contract/sockets.contract.test.ts',
];

/** Behaviour through a local runtime (`startLocal`) that the memory backend carries: the spec, reads,
 * uploads, identity, live, files, pages, abuse, fuzz. */
export const SERVICE_FILES: readonly string[] = [
  'abuse-floods',
  'catalogue-abuse',
  'check-order',
  'client-http',
  'client-package',
  'edge-only',
  'files-prefix',
  'files-publish',
  'files-route',
  'full-range-market',
  'fuzz-routes',
  'http-caching',
  'identity-auth',
  'identity-me',
  'identity-pairing',
  'identity-pairing-spray',
  'identity-rate',
  'items-routes',
  'key-scopes',
  'live-closes',
  'live-gap',
  'live-reconnect',
  'live-socket',
  'live-upgrade-limits',
  'live-upgrade-origin',
  'local-control-errors',
  'local-failed-runs',
  'local-limits',
  'local-memory',
  'merge-books',
  'merge-redelivery',
  'merge-watch',
  'names-inert',
  'pages-chart-browser',
  'pages-history',
  'reads-hourly',
  'reads-large',
  'reference-page',
  'retention-market',
  'settings-push',
  'settings-routes',
  'site',
  'spec-account',
  'spec-files-live',
  'spec-reads',
  'spec-settings',
  'spec-uploads',
  'store-limits',
  'upload-credit',
  'upload-errors',
  'upload-retries',
].map((name) => `test/integration/${name}.test.ts`);

/** The spec's acceptance files, which run on both backends (issue 25, "Done when": the acceptance-style spec tests
 * pass on both modes): in the service tier on the memory backend, and in the engines tier on the engines. */
export const BOTH_BACKENDS_FILES: readonly string[] = ['spec-account', 'spec-files-live', 'spec-reads', 'spec-settings', 'spec-uploads'].map(
  (name) => `test/integration/${name}.test.ts`,
);

/** Every file the engines project runs: the rest of test/integration and test/contract. */
export const ENGINE_GLOBS: readonly string[] = ['test/integration/**/*.test.ts', 'test/contract/**/*.test.ts'];

/** Java-free globs beyond {@link OFFLINE_FILES}. */
export const OFFLINE_GLOBS: readonly string[] = ['test/infra/**/*.test.ts'];
