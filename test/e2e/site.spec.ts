/**
 * The website in a real browser against the local runtime (issue 24 points 1-3, "Done when"): a signed-out
 * visitor sees the hourly view and a sign-in prompt; signing in through the local identity provider; pairing
 * a desktop app (its half through the typed client: pair, then poll for the token) by confirming the code in
 * the browser; the account page's plan and API keys; devices listed and removed. Every page is checked with
 * axe and shot at desktop, phone and dark sizes.
 */
import { expect, test } from '@playwright/test';
import { httpClient } from '../../shared/client/http-client';
import { expectAccessible, shoot, signIn } from './support';

const DEMO_USER = 'demo@localhost';

test('a signed-out visitor sees the hourly view and a Sign in prompt, on the home page and on every app route', async ({ page, baseURL }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1, name: 'Market Data Service' })).toBeVisible();
  // The demo's markets as of the top of the hour, each with its most listed items.
  await expect(page.locator('.markets ol li').first()).toBeVisible();
  await expect(page.getByRole('link', { name: 'Sign in' })).toBeVisible();
  await expectAccessible(page);
  await shoot(page, 'home-signed-out');
  for (const route of ['account', 'devices', 'devices/confirm', 'market/watch', 'market/alerts', 'market/boards']) {
    await page.goto(`/#/${route}`);
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
  }
  await expectAccessible(page);
  await shoot(page, 'alerts-signed-out');
  // The prompt goes to the local provider's page and comes back to the route.
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(`${baseURL}/_local/idp/sign-in?redirect=${encodeURIComponent('/#/market/boards')}`);
  await expect(page.getByLabel('Email')).toBeVisible();
  await expectAccessible(page);
  await shoot(page, 'sign-in');
});

test('signs in through the local provider, shows the plan, creates and revokes an API key, and signs out', async ({ page, baseURL }) => {
  await signIn(page, DEMO_USER);
  await expect(page.getByRole('heading', { level: 1, name: 'Account' })).toBeVisible();
  await expect(page.locator('[data-plan]')).toHaveText('premium');
  await expect(page.getByRole('list', { name: 'Features' })).toContainText('prices.live');
  await expect(page.getByText('Signed in as')).toBeVisible();
  await expect(page.getByText(DEMO_USER)).toBeVisible();
  await expectAccessible(page);
  await shoot(page, 'account');

  await page.getByLabel('Key name').fill('e2e sheet');
  await page.getByRole('button', { name: 'Create key' }).click();
  const secret = (await page.getByLabel('New API key').textContent()) ?? '';
  expect(secret).toMatch(/^ak_/);
  // The key is the demo user's: the service knows who it is.
  const me = await httpClient({ base: baseURL ?? '', apiKey: secret }).me();
  expect(me.user?.email).toBe(DEMO_USER);
  await expect(page.getByRole('button', { name: 'Revoke e2e sheet' })).toBeVisible();
  await page.getByRole('button', { name: 'Revoke e2e sheet' }).click();
  await expect(page.getByText('Revoked “e2e sheet”')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Revoke e2e sheet' })).toHaveCount(0);
  const listed = await page.request.get('/_local/idp/api-keys');
  expect((await listed.json()).keys.find((k: { name: string }) => k.name === 'e2e sheet')?.revoked).toBe(true);

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('link', { name: 'Sign in' })).toBeVisible();
  expect((await page.context().cookies()).find((c) => c.name === '__session')).toBeUndefined();
  await page.goto('/#/account');
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
});

test('pairs a desktop app: the app asks for a code, the browser confirms it from the link, the app collects its token', async ({ page, baseURL }) => {
  const desktop = httpClient({ base: baseURL ?? '' });
  const { code, pairId } = await desktop.pairDevice('E2E desktop');
  expect(await desktop.pollPairing(pairId)).toEqual({ status: 'waiting' });

  await signIn(page, DEMO_USER, '/#/devices/confirm');
  // As the desktop app opens it, with the code grouped the way people read it out.
  await page.goto(`/#/devices/confirm?code=${code.slice(0, 4)}-${code.slice(4)}`);
  await expect(page.getByLabel('Code')).toHaveValue(`${code.slice(0, 4)}-${code.slice(4)}`);
  await expectAccessible(page);
  await shoot(page, 'devices-confirm');
  await page.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByRole('status')).toContainText('Paired: “E2E desktop”');

  const paired = await desktop.pollPairing(pairId);
  expect(paired.status).toBe('paired');
  const token = (paired as { token: string }).token;
  expect((await httpClient({ base: baseURL ?? '', token }).me()).user?.email).toBe(DEMO_USER);

  await page.goto('/#/devices');
  await expect(page.getByRole('row', { name: /E2E desktop/ })).toBeVisible();
  await expectAccessible(page);
  await shoot(page, 'devices');
  await page.getByRole('button', { name: 'Remove E2E desktop' }).click();
  await expect(page.getByRole('row', { name: /E2E desktop/ })).toHaveCount(0);
  await expect(httpClient({ base: baseURL ?? '', token }).me()).rejects.toMatchObject({ status: 401 });
});

test('says what to do with a code that does not exist or is mistyped, never showing raw JSON', async ({ page }) => {
  await signIn(page, DEMO_USER, '/#/devices/confirm');
  await page.getByLabel('Code').fill('ABCD EFGH');
  await page.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByRole('status')).toHaveText('No such code: check it against the one your desktop app shows and type it again.');
  await page.getByLabel('Code').fill('AB1');
  await page.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByRole('status')).toContainText('A code is 8 letters and digits');
  await expect(page.locator('#app')).not.toContainText('{');
});

test('answers an unknown path with a 404 page, not the app', async ({ page }) => {
  const answer = await page.goto('/account');
  expect(answer?.status()).toBe(404);
  await expect(page.getByRole('heading', { level: 1, name: 'Not found (404)' })).toBeVisible();
  expect(await page.locator('script[type="module"]').count()).toBe(0);
});

test('shows names the API answers as text, never as markup', async ({ page, baseURL }) => {
  const name = '<img src=x onerror="window.__injected=1">';
  const desktop = httpClient({ base: baseURL ?? '' });
  const { code, pairId } = await desktop.pairDevice(name);
  await signIn(page, DEMO_USER, `/#/devices/confirm?code=${code}`);
  await page.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByRole('status')).toContainText(`Paired: “${name}”`);
  // Listed once the app has collected its token (spec: a bound device is never listed before).
  expect((await desktop.pollPairing(pairId)).status).toBe('paired');
  await page.goto('/#/devices');
  await expect(page.getByRole('rowheader', { name })).toBeVisible();
  expect(await page.locator('#app img').count()).toBe(0);
  expect(await page.evaluate(() => (globalThis as { __injected?: number }).__injected)).toBeUndefined();
  await page.getByRole('button', { name: `Remove ${name}` }).click();
  await expect(page.getByRole('rowheader', { name })).toHaveCount(0);
});
