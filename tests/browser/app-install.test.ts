/**
 * The service worker in a real Chromium on http://localhost (a secure context, like HTTPS): it
 * registers, shows the offline page when the server is gone, never keeps a private page, and
 * clears the caches of older versions.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { assertNoPageErrors, launchBrowser, loginInBrowser, newPage } from '../support/browser.js';
import { buildTestApp } from '../support/test-app.js';

let browser: Browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

/** What the service worker's caches hold: cache name → request paths. */
function cachedPaths(page: Page): Promise<Record<string, string[]>> {
  return page.evaluate(async () => {
    const contents: Record<string, string[]> = {};
    for (const name of await caches.keys()) {
      const requests = await (await caches.open(name)).keys();
      contents[name] = requests.map((request) => new URL(request.url).pathname).sort();
    }
    return contents;
  });
}

/** Waits until the worker is active and controls this page; returns the worker's script URL. */
function waitForControllingWorker(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready;
    if (!navigator.serviceWorker.controller) {
      await new Promise((resolve) => navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }));
    }
    return registration.active!.scriptURL;
  });
}

test('on localhost the worker registers, keeps no private page, and shows the offline page once the server is gone', async (t) => {
  const testApp = await buildTestApp(t);
  const baseUrl = (await testApp.listen()).replace('127.0.0.1', 'localhost');
  const { page } = await newPage(t, browser);
  await loginInBrowser(page, baseUrl);
  assert.equal(await page.evaluate(() => window.isSecureContext), true, 'http://localhost is a secure context');
  assert.equal(await waitForControllingWorker(page), `${baseUrl}/sw.js`);

  // Private pages, loaded while the worker is in control, go to the network and are never kept.
  await page.goto(`${baseUrl}/memory`);
  await page.locator('textarea#memory-editor').waitFor({ state: 'attached' }); // inside "Edit the whole file"
  await page.goto(`${baseUrl}/`);
  assertNoPageErrors(page);
  const cached = await cachedPaths(page);
  assert.deepEqual(Object.keys(cached), ['hearth-offline-v1']);
  assert.deepEqual(cached['hearth-offline-v1'], ['/static/icon.svg', '/static/offline.css', '/static/offline.html'],
    'only the offline page and its files; no chat, memory or login page');

  await testApp.app.close();
  const lostPage = `${baseUrl}/memory?from=home-screen`;
  const response = await page.goto(lostPage);
  assert.ok(response?.fromServiceWorker(), 'answered by the worker');
  await assert.doesNotReject(page.getByRole('heading', { name: 'Hearth cannot be reached' }).waitFor());
  assert.match(await page.locator('main#offline').innerText(), /Is the computer on and on the same Wi-Fi\?/);
  assert.equal(page.url(), lostPage, 'the address stays the page the user asked for');
  assert.equal(await page.locator('a#offline-retry').evaluate((link) => (link as HTMLAnchorElement).href), lostPage, 'Retry loads that page again');
  // Its stylesheet came from the cache too (the button is styled as a pill, not a bare link).
  assert.equal(await page.locator('a#offline-retry').evaluate((link) => getComputedStyle(link).borderTopLeftRadius), '999px');
  // The chat page was open when the server went away: its socket trying to reconnect, and its asking
  // whether the login still holds (GET /session), are expected: refused once the server is gone, or
  // answered 503 by Fastify while it is closing.
  assertNoPageErrors(page, [
    /WebSocket connection to '[^']*\/ws\?[^']*' failed/,
    /htmx:ws:error/,
    /Failed to load resource: (net::ERR_CONNECTION_REFUSED|the server responded with a status of 503 \(Service Unavailable\)) \([^)]*\/session:/,
  ]);
});

test('Chromium reads the manifest without complaint and finds Hearth installable on localhost', async (t) => {
  const testApp = await buildTestApp(t);
  const baseUrl = (await testApp.listen()).replace('127.0.0.1', 'localhost');
  const { context, page } = await newPage(t, browser);
  await page.goto(`${baseUrl}/login`);
  await waitForControllingWorker(page);
  const devtools = await context.newCDPSession(page);
  const manifest = await devtools.send('Page.getAppManifest') as { url: string; errors: Array<{ message: string }> };
  assert.equal(manifest.url, `${baseUrl}/manifest.webmanifest`);
  assert.deepEqual(manifest.errors.map((error) => error.message), []);
  const installability = await devtools.send('Page.getInstallabilityErrors') as { installabilityErrors: Array<{ errorId: string }> };
  // Playwright's contexts are incognito ones, where Chromium never installs apps; nothing else may be wrong.
  assert.deepEqual(installability.installabilityErrors.map((error) => error.errorId).filter((id) => id !== 'in-incognito'), []);
});

test('a new worker version removes the caches of older versions and leaves other caches alone', async (t) => {
  const testApp = await buildTestApp(t);
  const baseUrl = (await testApp.listen()).replace('127.0.0.1', 'localhost');
  const { page } = await newPage(t, browser);
  // The offline page itself does not register the worker: a clean origin to plant old caches in.
  await page.goto(`${baseUrl}/static/offline.html`);
  await page.evaluate(async () => {
    await (await caches.open('hearth-offline-v0')).put('/static/old.css', new Response('old'));
    await (await caches.open('someone-else')).put('/their-file', new Response('theirs'));
  });
  await page.goto(`${baseUrl}/login`);
  await waitForControllingWorker(page);
  assert.deepEqual(Object.keys(await cachedPaths(page)).sort(), ['hearth-offline-v1', 'someone-else']);
});
