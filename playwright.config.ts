/**
 * The website's end-to-end tests in a real browser (issue 24 "Done when"): Debian's `chromium` through its
 * executable path (test/support/chromium.ts; `npx playwright install` is not needed), against the local
 * runtime started as `npm start -- --demo` starts it (DynamoDB Local and s3rver, nothing kept), on a free port.
 * `npm test` runs them after Vitest; `npm run test:e2e` alone. Screenshots are kept under test-results/.
 */
import { execFileSync } from 'node:child_process';
import { defineConfig } from '@playwright/test';
import { findChromium } from './test/support/chromium';

// Chosen once by the runner and inherited by its workers (which read this file again).
process.env.E2E_PORT ??= execFileSync(
  process.execPath,
  ['-e', "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})"],
  { encoding: 'utf8' },
);
const base = `http://127.0.0.1:${process.env.E2E_PORT}`;
const chromium = findChromium();
if (!chromium) throw new Error('Chromium is needed for the browser tests: install it (Debian: apt-get install chromium) or set CHROMIUM_BIN');

export default defineConfig({
  testDir: 'test/e2e',
  outputDir: 'test-results/e2e',
  // One runtime, one browser at a time: the machine is small, and the tests share the demo's data.
  workers: 1,
  fullyParallel: false,
  timeout: 120_000,
  expect: { timeout: 20_000 },
  reporter: [['list']],
  use: {
    baseURL: base,
    launchOptions: { executablePath: chromium },
    viewport: { width: 1280, height: 800 },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
  webServer: {
    command: 'node scripts/ensure.mjs && node --import tsx bin/local.ts --demo',
    // `ready` comes after the demo's replay: the home page then shows the hourly view of two markets.
    wait: { stdout: /^ready http/m },
    env: { PORT: process.env.E2E_PORT, DATA_DIR: ':memory:', LOG: 'quiet' },
    timeout: 600_000,
    reuseExistingServer: false,
    // The demo prints its key and session token: kept out of the test output.
    stdout: 'ignore',
    stderr: 'pipe',
    gracefulShutdown: { signal: 'SIGINT', timeout: 30_000 },
  },
});
