/**
 * What the chat page's scripts share (public/page-kit.js, window.hearth), seen from the page: a
 * save that fails says why in words a person can act on, and the same line announced twice is
 * heard twice. The rest of it (the frame loop, the CSRF token) is exercised by the chat tests.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { assertNoPageErrors, launchBrowser, phone } from '../support/browser.js';
import { openChat, send, waitFor, waitForReplyEnd } from '../support/chat-page.js';

let browser: Browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

const britishPhone = phone({ locale: 'en-GB' });
const shots = process.env.HEARTH_SCREENSHOTS;

test('renaming a chat that cannot be saved says why: no answer, the server\'s words, or the status', async (t) => {
  const { page, test: app } = await openChat(t, browser, { context: britishPhone });
  app.standin.enqueue({ content: 'Hello.' });
  await send(page, 'Name this chat');
  await waitForReplyEnd(page);
  await waitFor(page, () => !(document.getElementById('chat-title-button') as HTMLButtonElement).disabled);
  const error = page.locator('#chat-title-error');
  const rename = async (title: string, shot?: string) => {
    if (await page.locator('#chat-title-form').isHidden()) await page.locator('#chat-title-button').tap();
    await page.locator('#chat-title-input').fill(title);
    await page.locator('#chat-title-save').tap();
    await error.waitFor({ state: 'visible' });
    const text = await error.innerText();
    if (shots && shot) await page.screenshot({ path: `${shots}/${shot}` });
    await page.evaluate(() => { document.getElementById('chat-title-error')!.hidden = true; });
    return text;
  };

  await page.route('**/c/*/title', (route) => route.abort('connectionrefused'));
  assert.equal(await rename('Trip plans', 'page-kit-title-unreachable.png'), 'The server could not be reached; the title was not saved.');
  await page.unroute('**/c/*/title');

  // The server's own refusals come back as the form with its words (chat-header.test.ts: an empty title).
  await page.route('**/c/*/title', (route) => route.fulfill({ status: 503, contentType: 'application/json', body: '{"error":"Saving is paused."}' }));
  assert.equal(await rename('Trip plans'), 'The title was not saved (503).');
  await page.unroute('**/c/*/title');

  await page.route('**/c/*/title', (route) => route.fulfill({ status: 502, contentType: 'text/html', body: '<h1>Bad gateway</h1>' }));
  assert.equal(await rename('Trip plans'), 'The title was not saved (502).');
  await page.unroute('**/c/*/title');

  // Nothing was renamed by the failures; the real server saves it (the token is the page's own).
  assert.equal(await page.locator('#chat-title-text').innerText(), 'Name this chat');
  await page.locator('#chat-title-input').fill('Trip plans');
  await page.locator('#chat-title-save').tap();
  await page.locator('#chat-title-form').waitFor({ state: 'hidden' });
  assert.equal(await page.locator('#chat-title-text').innerText(), 'Trip plans');
  // The browser logs the three failed requests made above; nothing else may go wrong.
  assertNoPageErrors(page, [/Failed to load resource: .*\/c\/\d+\/title/, /htmx: htmx:error: Failed to fetch/]);
});

test('the same line announced twice reaches the status region twice', async (t) => {
  const { page } = await openChat(t, browser, { context: britishPhone });
  const heard = await page.evaluate(async () => {
    const status = document.getElementById('chat-status')!;
    const lines: string[] = [];
    // What the region holds after each change: a repeat is heard only if it was emptied in between,
    // in an earlier frame (emptied and set in one go is one change, which screen readers skip).
    new MutationObserver(() => lines.push(status.textContent ?? '')).observe(status, { childList: true, characterData: true, subtree: true });
    const { hearth } = window as unknown as { hearth: { announce(text: string): void } };
    for (const line of ['Copied', 'Copied']) {
      hearth.announce(line);
      await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    }
    return lines;
  });
  assert.deepEqual(heard, ['Copied', '', 'Copied']);
  assertNoPageErrors(page);
});
