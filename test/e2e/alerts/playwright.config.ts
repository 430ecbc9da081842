import { defineConfig } from '@playwright/test';
import { findChromium } from '../../support/chromium';

/**
 * The watchlist, alerts, boards and push pages in a real browser (issue 24 points 5, 6): Debian's `chromium`
 * driven by Playwright against one local runtime (manual clock) that ./runtime-setup.ts starts on its own
 * DynamoDB Local and s3rver. Run: `npx playwright test -c test/e2e/alerts`. Screenshots go to test-results/.
 */
export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  outputDir: '../../../test-results/e2e-alerts',
  globalSetup: './runtime-setup.ts',
  workers: 1,
  timeout: 240_000,
  expect: { timeout: 20_000 },
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    launchOptions: { executablePath: findChromium() ?? undefined },
    baseURL: process.env.E2E_BASE,
    trace: 'retain-on-failure',
  },
});
