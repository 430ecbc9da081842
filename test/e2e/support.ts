/**
 * Helpers of the browser tests: signing in through the local identity provider's page (the site's local
 * contract, DESIGN "Local contract of the site"), screenshots at the three sizes and schemes the issue asks
 * for, and the accessibility check (axe-core: no serious or critical violation).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';

/** Where screenshots are kept (test-results/ is git-ignored; CI keeps it as an artifact). */
export const SCREENS = join('test-results', 'screens');

const VARIANTS = [
  { name: 'desktop', width: 1280, height: 800, scheme: 'light' },
  { name: 'phone', width: 390, height: 844, scheme: 'light' },
  { name: 'dark', width: 1280, height: 800, scheme: 'dark' },
] as const;

/** Signs in as `email` on the local identity provider's page, coming back to `redirect`. */
export async function signIn(page: Page, email: string, redirect = '/#/account'): Promise<void> {
  await page.goto(`/_local/idp/sign-in?redirect=${encodeURIComponent(redirect)}`);
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => `${url.pathname}${url.search}${url.hash}` === redirect);
}

/** A screenshot of the page at desktop (1280×800), phone (390×844) and desktop in the dark scheme, none scrolling sideways. */
export async function shoot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENS, { recursive: true });
  const size = page.viewportSize();
  for (const v of VARIANTS) {
    await page.setViewportSize({ width: v.width, height: v.height });
    await page.emulateMedia({ colorScheme: v.scheme });
    // Phone and desktop alike: nothing wider than the screen (wide tables scroll inside their own box).
    expect(await page.evaluate('document.documentElement.scrollWidth'), `${name} at ${v.name}`).toBeLessThanOrEqual(v.width);
    await page.screenshot({ path: join(SCREENS, `${name}-${v.name}.png`), fullPage: true });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  if (size) await page.setViewportSize(size);
}

/** No serious or critical accessibility violation (WCAG 2.1 A and AA rules), in the light and the dark scheme. */
export async function expectAccessible(page: Page): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    const bad = violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${scheme}: ${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    expect(bad).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}
