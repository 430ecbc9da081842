/**
 * Issue 24 points 5 and 6 in a real browser, against the local runtime: the watchlist (item search, add,
 * remove), alerts of every kind (create, edit, delete, armed/last state), a book that fires one reaching the
 * open page through the live socket, its Web Push delivered to the site's service worker (DevTools'
 * `ServiceWorker.deliverPushMessage` with the payload the service encrypted for this browser) and the
 * notification's click opening its url; limits, missing features and validation errors told as sentences;
 * boards edited; axe finds no serious or critical violation; screenshots desktop, phone and dark.
 */
import { type Browser, type BrowserContext, expect, type Page, test } from '@playwright/test';
import { browserKeys, type PushReceiver, startPushReceiver } from '../support/push-receiver';
import { base, fakePushService, MARKET, sessionClient, settle, uploadBook, user } from './alerts-support';
import { expectAccessible, shoot, signIn } from './support';

/** The service worker's global as the functions evaluated in it use it (the tests' own types have no DOM). */
type WorkerScope = {
  registration: { getNotifications(): Promise<{ title: string; body: string; data: { url: string } }[]> };
  NotificationEvent: new (type: string, init: { notification: unknown }) => Event;
  dispatchEvent(event: Event): boolean;
};

const MARKET_LABEL = 'RP Alliance (US)';

/** The app's sentences never show an answer's JSON. */
async function expectNoRawJson(page: Page): Promise<void> {
  await expect(page.locator('#app')).not.toContainText('{"error"');
  await expect(page.locator('#app')).not.toContainText('"limit"');
}

type Named = { key: number; name: string };

/** Two named items of the deployment's search index (the demo names its items): the test searches them by name. */
async function twoItems(token: string): Promise<[Named, Named]> {
  const index = (await sessionClient(token).searchIndex()) as unknown as { items: [number, string][] };
  const named = index.items.filter(([key, name]) => key < 2 ** 31 && /^[A-Za-z ]+$/.test(name));
  expect(named.length).toBeGreaterThan(10);
  const [a, b] = [named[3], named[named.length - 4]];
  return [
    { key: a[0], name: a[1] },
    { key: b[0], name: b[1] },
  ];
}

/** A browser context of its own, signed in as `email` on the local provider's page, at `route`. */
async function signedIn(browser: Browser, email: string, route: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: base(), viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await signIn(page, email, route);
  return { context, page };
}

test.describe
  .serial('watchlist, alerts and push', () => {
    let context: BrowserContext;
    let page: Page;
    let rx: PushReceiver;
    const keys = browserKeys();
    let token: string;
    let email: string;
    let first: Named;
    let second: Named;

    test.beforeAll(async ({ browser }) => {
      rx = await startPushReceiver();
      ({ email, token } = await user({ plan: 'free' }));
      [first, second] = await twoItems(token);
      context = await browser.newContext({ baseURL: base(), viewport: { width: 1280, height: 800 } });
      await context.grantPermissions(['notifications'], { origin: base() });
      page = await context.newPage();
      await fakePushService(page, `${rx.base}/push/e2e-browser`, keys.keys);
    });

    test.afterAll(async () => {
      await context?.close();
      await rx?.close();
    });

    test('sign in, then add watched items found by name and remove one', async () => {
      await signIn(page, email, '/#/market/watch');
      await expect(page.getByRole('heading', { level: 1, name: 'Watchlist' })).toBeVisible();
      await expect(page.getByText('Your watchlist is empty.')).toBeVisible();
      for (const item of [first, second]) {
        await page.getByRole('searchbox', { name: 'Add an item' }).fill(item.name.slice(0, -1).toLowerCase());
        await page.getByRole('button', { name: `${item.name} (${item.key})` }).click();
        await expect(page.getByRole('link', { name: item.name, exact: true })).toBeVisible();
      }
      await expect(page.getByText('2 of 50 items.')).toBeVisible();
      await page.getByRole('button', { name: `Remove ${second.name}` }).click();
      await expect(page.getByRole('link', { name: second.name, exact: true })).toHaveCount(0);
      expect((await sessionClient(token).watchlist()).items).toEqual([first.key]);
      await expectAccessible(page);
      await shoot(page, 'watchlist');
    });

    test('create, edit and delete alerts; validation errors say what to type', async () => {
      await page.getByRole('link', { name: 'Add an alert' }).click();
      await expect(page.getByRole('heading', { level: 1, name: 'Alerts' })).toBeVisible();
      const form = page.getByRole('form', { name: 'New alert' });
      await expect(form.getByLabel('Item key')).toHaveValue(String(first.key));
      await form.getByLabel('Market').selectOption(MARKET);

      // A value out of the kind's range, and an item missing for a kind other than deal.
      await form.getByLabel('Fires when').selectOption('rise');
      await form.getByLabel('Percent').fill('2000');
      await form.getByLabel('Item key').fill('');
      await form.getByRole('button', { name: 'Create alert' }).click();
      await expect(form.getByText('Enter a whole percent from 1 to 1,000.')).toBeVisible();
      await expect(form.getByText('Choose an item: only a deal alert can watch the whole market.')).toBeVisible();
      await expect(form.getByRole('status')).toHaveText('Correct the 2 fields marked below, then try again.');
      await expectNoRawJson(page);

      // A whole-market deal alert, then the price alert the book will fire.
      await form.getByLabel('Fires when').selectOption('deal');
      await form.getByLabel('Percent').fill('40');
      await form.getByRole('button', { name: 'Create alert' }).click();
      await expect(page.getByRole('heading', { level: 3, name: `Deals in ${MARKET_LABEL}` })).toBeVisible();

      const next = page.getByRole('form', { name: 'New alert' });
      await next.getByLabel('Market').selectOption(MARKET);
      await next.getByRole('searchbox', { name: 'Find an item' }).fill(first.name);
      await next.getByRole('button', { name: `${first.name} (${first.key})` }).click();
      await expect(next.getByLabel('Item key')).toHaveValue(String(first.key));
      await next.getByLabel('Fires when').selectOption('below');
      await next.getByLabel('Price (gold)').fill('5');
      await next.getByLabel(/^Name/).fill('Cheap one');
      await next.getByRole('button', { name: 'Create alert' }).click();
      const card = page.locator('li.alert', { has: page.getByRole('heading', { name: 'Cheap one' }) });
      await expect(card).toContainText(`${MARKET_LABEL}: price at or below 5g 0s 0c.`);
      await expect(card).toContainText('Armed: fires when the condition holds (never fired).');

      // Edit: the form holds the alert; saving replaces it.
      await page.getByRole('button', { name: 'Edit Cheap one' }).click();
      const edit = page.getByRole('form', { name: 'Edit alert' });
      await expect(edit.getByLabel('Price (gold)')).toHaveValue('5g 0s 0c');
      await edit.getByLabel('Price (gold)').fill('4g 50s');
      await edit.getByRole('button', { name: 'Save alert' }).click();
      await expect(card).toContainText('price at or below 4g 50s 0c.');

      // Delete the deal alert.
      await page.getByRole('button', { name: `Delete Deals in ${MARKET_LABEL}` }).click();
      await expect(page.getByRole('heading', { level: 3, name: `Deals in ${MARKET_LABEL}` })).toHaveCount(0);
      const stored = (await sessionClient(token).alerts()).alerts;
      expect(stored.map((a) => [a.market, a.kind, a.item, a.value, a.name])).toEqual([[MARKET, 'below', first.key, 45_000, 'Cheap one']]);
      await expectAccessible(page);
      await shoot(page, 'alerts');
    });

    test('turn on notifications with the VAPID key, set quiet hours, see this browser listed', async () => {
      await page.getByRole('link', { name: 'Notifications on this browser' }).click();
      await expect(page.getByRole('heading', { level: 1, name: 'Notifications' })).toBeVisible();
      await expect(page.getByText('No browser receives notifications yet.')).toBeVisible();
      await page.getByRole('button', { name: 'Turn on notifications' }).click();
      await expect(page.getByRole('status')).toHaveText('Notifications are on for this browser.');
      await expect(page.getByRole('listitem').filter({ hasText: 'This browser' })).toBeVisible();
      // Subscribed with the deployment's VAPID key.
      const { publicKey } = await sessionClient(token).pushKey();
      expect(
        await page.evaluate(() =>
          (globalThis as unknown as { localStorage: { getItem(k: string): string | null } }).localStorage.getItem('e2e-push-subscription'),
        ),
      ).toBe(publicKey);

      await page.getByLabel('Keep quiet hours').check();
      await page.getByLabel('Time zone').fill('Mars/Olympus');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await expect(page.getByRole('status')).toHaveText('“Mars/Olympus” is not a time zone: choose one such as Europe/Berlin.');
      await page.getByLabel('From').fill('23:00');
      await page.getByLabel('Until').fill('06:30');
      await page.getByLabel('Time zone').fill('Europe/Berlin');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await expect(page.getByRole('listitem').filter({ hasText: 'This browser' })).toContainText('quiet 23:00–06:30');
      const [sub] = (await sessionClient(token).pushSubscriptions()).subscriptions;
      expect(sub).toMatchObject({
        endpoint: `${rx.base}/push/e2e-browser`,
        prefs: { market: true, quietHours: { start: '23:00', end: '06:30', tz: 'Europe/Berlin' } },
      });
      await expectAccessible(page);
      await shoot(page, 'notifications');
      // The runtime follows the system clock: quiet hours off again, so the next test's push is never held back.
      await page.getByLabel('Keep quiet hours').uncheck();
      await page.getByRole('button', { name: 'Save settings' }).click();
      await expect(page.getByRole('listitem').filter({ hasText: 'This browser' })).not.toContainText('quiet');
    });

    test('a book that fires the alert reaches the open page live, and its push opens the item page', async () => {
      const cdp = await context.newCDPSession(page);
      const registrations = new Map<string, string>();
      cdp.on('ServiceWorker.workerRegistrationUpdated', (e) => {
        for (const r of e.registrations) if (!r.isDeleted) registrations.set(r.scopeURL, r.registrationId);
      });
      await cdp.send('ServiceWorker.enable');

      await page.goto('/#/market/alerts');
      const card = page.locator('li.alert', { has: page.getByRole('heading', { name: 'Cheap one' }) });
      await expect(card).toContainText('Armed');
      const log = page.getByRole('log', { name: 'Alerts fired while this page is open' });
      // The page marks its log once the live socket said hello.
      await expect(log).toHaveAttribute('data-live', 'open');

      await uploadBook([
        [first.key, 40_000, 12],
        [second.key, 900, 40],
      ]);
      await expect(log).toContainText('Cheap one fired');
      await expect(card).toContainText('Fired: re-arms when the condition stops holding');
      await expect(card.getByRole('list', { name: 'Last firing' })).toContainText(`${first.name}: 4g 0s 0c, 12 listed`);
      await shoot(page, 'alerts-fired');

      // The push the service sent to this browser's endpoint, decrypted with the browser's keys.
      await expect
        .poll(
          async () => {
            await settle();
            return rx.received.length;
          },
          { timeout: 60_000 },
        )
        .toBe(1);
      const text = keys.decrypt(rx.received[0].body).toString('utf8');
      const payload = JSON.parse(text);
      expect(payload).toMatchObject({ v: 1, kind: 'market', url: `/item/${first.key}?m=${MARKET}` });

      // Delivered to the site's service worker, which shows it; a click opens its url.
      await expect.poll(() => registrations.get(`${base()}/`)).toBeTruthy();
      await cdp.send('ServiceWorker.deliverPushMessage', { origin: base(), registrationId: registrations.get(`${base()}/`) as string, data: text });
      const [worker] = context.serviceWorkers();
      expect(worker.url()).toBe(`${base()}/sw.js`);
      await expect
        .poll(() =>
          worker.evaluate(async () => (await (globalThis as unknown as WorkerScope).registration.getNotifications()).map((n) => [n.title, n.body, n.data.url])),
        )
        .toEqual([[payload.title, payload.body, payload.url]]);
      await worker.evaluate(async () => {
        const sw = globalThis as unknown as WorkerScope;
        const [n] = await sw.registration.getNotifications();
        // A click as the browser reports one: the worker's own handler runs.
        sw.dispatchEvent(new sw.NotificationEvent('notificationclick', { notification: n }));
      });
      await page.waitForURL(`${base()}/item/${first.key}?m=${MARKET}`);
      expect(await worker.evaluate(async () => (await (globalThis as unknown as WorkerScope).registration.getNotifications()).length)).toBe(0);
    });

    test('remove this browser’s subscription', async () => {
      await page.goto('/#/market/push');
      await page.getByRole('button', { name: 'Remove this browser' }).click();
      await expect(page.getByText('No browser receives notifications yet.')).toBeVisible();
      expect((await sessionClient(token).pushSubscriptions()).subscriptions).toEqual([]);
      await expect(page.getByRole('button', { name: 'Turn on notifications' })).toBeVisible();
    });
  });

test('the alert limit, the full watchlist and missing features are told as what to do next', async ({ browser }) => {
  const full = await user({ plan: 'free' });
  const api = sessionClient(full.token);
  const [one, two] = await twoItems(full.token);
  for (let i = 0; i < 10; i++) await api.createAlert({ market: MARKET, item: one.key, kind: 'above', value: 100_000_000 + i });
  await api.putWatchlist(Array.from({ length: 50 }, (_, i) => 1000 + i));
  const { context, page } = await signedIn(browser, full.email, '/#/market/alerts');
  await expect(page.getByText('10 of 10 alerts.')).toBeVisible();
  const form = page.getByRole('form', { name: 'New alert' });
  await form.getByLabel('Item key').fill(String(two.key));
  await form.getByLabel('Price (gold)').fill('1');
  await form.getByRole('button', { name: 'Create alert' }).click();
  await expect(form.getByRole('status')).toHaveText('You have reached your limit of 10 alerts: delete an alert you no longer need, then create this one.');
  await expectNoRawJson(page);

  await page.goto('/#/market/watch');
  await page.getByRole('searchbox', { name: 'Add an item' }).fill(String(two.key));
  await page.getByRole('button', { name: `${two.name} (${two.key})` }).click();
  await expect(page.getByRole('status')).toHaveText('Your watchlist is full (50 items on your plan): remove an item before adding another.');
  await expectNoRawJson(page);
  await context.close();

  // Without the features: the pages say so instead of offering writes the service would refuse (403).
  const lacking = await user({ plan: 'free', withhold: ['alerts', 'watchlist', 'boards'] });
  const other = await signedIn(browser, lacking.email, '/#/market/alerts');
  for (const [route, sentence] of [
    ['alerts', 'Your plan does not include alerts: see your plan on the account page.'],
    ['watch', 'Your plan does not include a watchlist: see your plan on the account page.'],
    ['boards', 'Your plan does not include boards: see your plan on the account page.'],
  ]) {
    await other.page.goto(`/#/market/${route}`);
    await expect(other.page.getByText(sentence)).toBeVisible();
    await expect(other.page.getByRole('button', { name: /Create alert|Save boards|Add board/ })).toHaveCount(0);
  }
  await other.context.close();
});

test('boards: add, rename, add and remove widgets, save; past 20 boards the limit is told', async ({ browser }) => {
  const { email, token } = await user({ plan: 'free' });
  const { context, page } = await signedIn(browser, email, '/#/market/boards');
  await expect(page.getByText('You have no boards.')).toBeVisible();
  await page.getByRole('button', { name: 'Add board' }).click();
  await page.getByLabel('Board name').fill('Cloth');
  await page.getByLabel('Board name').dispatchEvent('change');
  await page.getByLabel('Widget', { exact: true }).selectOption('chart');
  await page.getByRole('button', { name: 'Add widget' }).click();
  await page.getByLabel('Widget', { exact: true }).selectOption('price');
  await page.getByRole('button', { name: 'Add widget' }).click();
  await page.getByRole('button', { name: 'Remove widget 1 (Item chart) of Cloth' }).click();
  await page.getByRole('button', { name: 'Save boards' }).click();
  await expect(page.getByRole('status')).toHaveText('Saved 1 board.');
  const doc = await sessionClient(token).boards();
  expect(doc.dashboards).toEqual([{ id: 'board1', name: 'Cloth', widgets: [{ id: 'w2', type: 'price' }] }]);
  await expectAccessible(page);
  await shoot(page, 'boards');

  for (let i = 0; i < 20; i++) await page.getByRole('button', { name: 'Add board' }).click();
  await page.getByRole('button', { name: 'Save boards' }).click();
  await expect(page.getByRole('status')).toHaveText('Too many boards or screens (at most 20): delete one before adding another.');
  await expectNoRawJson(page);
  await context.close();
});
