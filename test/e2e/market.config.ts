/**
 * Playwright for the market routes' end-to-end tests (issue 24 point 4): Debian's Chromium through its
 * executable path, against one local runtime (`npm start`'s program, in memory, on a manual clock that the
 * tests move through the control API). `npx playwright test -c test/e2e/market.config.ts`. Screenshots
 * (desktop, phone, dark) are written to test-results/market/ and kept.
 */
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';
import { findChromium } from '../support/chromium';
import { CLOCK_START, E2E_BASE, E2E_PORT } from './market-support';

const ROOT = join(import.meta.dirname, '..', '..');

export default defineConfig({
  testDir: '.',
  testMatch: 'market.spec.ts',
  outputDir: join(ROOT, 'test-results', 'e2e-market'),
  // One runtime, one manual clock: the tests run in order.
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 180_000,
  expect: { timeout: 30_000 },
  reporter: [['list']],
  use: {
    baseURL: E2E_BASE,
    browserName: 'chromium',
    launchOptions: { executablePath: findChromium() ?? undefined },
    viewport: { width: 1280, height: 800 },
    trace: 'retain-on-failure',
  },
  webServer: {
    command: 'node scripts/ensure.mjs && node --import tsx bin/local.ts --memory',
    cwd: ROOT,
    url: `${E2E_BASE}/_local/health`,
    env: { PORT: String(E2E_PORT), CLOCK: 'manual', CLOCK_START: String(CLOCK_START), LOG: 'quiet' },
    // DynamoDB Local (Java) and the S3 server start first: minutes on a loaded machine.
    timeout: 600_000,
    reuseExistingServer: false,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
