/**
 * Everyday chat on a phone, in a real Chromium at 390x844 with touch: no accessibility
 * violations (axe-core) on the login, chat and memory pages; the chat form works with no
 * JavaScript and before the socket is open; finished replies are announced once; the memory
 * page counts bytes as you type and asks before resetting the system prompt.
 */
import assert from 'node:assert/strict';
import { after, before, test, type TestContext } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { assertNoPageErrors, launchBrowser, loginInBrowser, newPage } from '../support/browser.js';
import { openChat, send, waitFor, waitForReplyEnd } from '../support/chat-page.js';
import { buildTestApp } from '../support/test-app.js';
import { createTestRegistry } from '../support/test-tools.js';

let browser: Browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

const phone: BrowserContextOptions = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 };

async function violationsOf(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  return results.violations.map(
    (violation) => `${violation.id} (${violation.impact}): ${violation.help} — ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
  );
}

for (const colorScheme of ['light', 'dark'] as const) {
  test(`axe finds no violations on login, chat (messages, code, tool and approval cards) and memory, ${colorScheme}`, async (t: TestContext) => {
    const { registry } = createTestRegistry();
    const { page, test: testApp, baseUrl } = await openChat(t, browser, { app: { dependencies: { registry } }, context: { ...phone, colorScheme } });
    const { page: loginPage } = await newPage(t, browser, { ...phone, colorScheme });
    await loginPage.goto(`${baseUrl}/login`);
    assert.deepEqual(await violationsOf(loginPage), [], 'login page');

    testApp.standin.enqueue(
      { content: 'Let me calculate. [TOOL:calculator]6 * 7[/TOOL]' },
      { content: 'The answer is **42**.\n\n```js\nconst answer = 42; // a long line that has to scroll sideways on a phone screen\n```\n' },
      { content: '[TOOL:send_note]buy milk[/TOOL]' },
    );
    await send(page, 'What is 6 times 7?');
    await waitFor(page, () => document.querySelectorAll('.chat-message-assistant').length === 2);
    assert.equal(await waitForReplyEnd(page), 'complete');
    await send(page, 'Send a note to buy milk');
    await page.locator('.tool-call-card .tool-approval').waitFor();
    assert.equal(await page.locator('#chat-thread pre').first().getAttribute('tabindex'), '0', 'code blocks take keyboard focus');
    assert.deepEqual(await violationsOf(page), [], 'chat page');

    await page.goto(`${baseUrl}/memory`);
    assert.deepEqual(await violationsOf(page), [], 'memory page');
    assertNoPageErrors(page);
  });
}

test('with JavaScript off, the chat form posts: the message is saved and the reply shows after the redirect', async (t) => {
  const testApp = await buildTestApp(t);
  const baseUrl = await testApp.listen();
  const { page } = await newPage(t, browser, { ...phone, javaScriptEnabled: false });
  testApp.standin.enqueue({ content: 'Answered without scripts.' });
  await loginInBrowser(page, baseUrl);
  assert.equal(new URL(page.url()).pathname, '/');
  await page.locator('#chat-input').fill('Hello without JavaScript');
  await Promise.all([page.waitForURL(/\/c\/\d+$/), page.locator('#chat-send').click()]);
  assert.match(await page.locator('#chat-thread .chat-message-user').innerText(), /Hello without JavaScript/);
  // Without a socket the page shows the reply as saved; reload until it is finished.
  for (let attempt = 0; attempt < 50; attempt++) {
    if ((await page.locator('#chat-thread .chat-message-assistant').getAttribute('data-status')) !== 'streaming') break;
    await new Promise((resolve) => setTimeout(resolve, 100));
    await page.reload();
  }
  assert.match(await page.locator('#chat-thread .chat-message-assistant').innerText(), /Answered without scripts\./);
  assert.equal(testApp.standin.requests.length, 1);
});

test('Send pressed before the socket is open still sends (the form posts), and nothing is lost', async (t) => {
  const testApp = await buildTestApp(t);
  const baseUrl = await testApp.listen();
  const { page } = await newPage(t, browser, phone);
  // A socket that never opens: the state a page is in for its first moments on a slow start.
  // Stays CONNECTING, like a real socket on a slow network: htmx would hold the message in its
  // queue. A string, not a function: the test's TypeScript transform would add helpers the page lacks.
  await page.addInitScript({
    content: `
      class NeverOpens extends EventTarget {
        constructor(url) { super(); this.url = url; this.readyState = 0; window.__socketsMade = (window.__socketsMade || 0) + 1; }
        send() { throw new Error('not open'); }
        close() {}
      }
      NeverOpens.CONNECTING = 0; NeverOpens.OPEN = 1; NeverOpens.CLOSING = 2; NeverOpens.CLOSED = 3;
      window.WebSocket = NeverOpens;
    `,
  });
  testApp.standin.enqueue({ content: 'Got it early.' });
  await loginInBrowser(page, baseUrl);
  // htmx has set up the form and asked for a socket, which is still connecting.
  await waitFor(page, () => (window as unknown as { __socketsMade?: number }).__socketsMade! > 0);
  await page.locator('#chat-input').fill('Sent too early');
  await Promise.all([page.waitForNavigation({ url: /\/c\/\d+$/ }), page.locator('#chat-send').click()]);
  assert.match(await page.locator('#chat-thread .chat-message-user').innerText(), /Sent too early/, 'the server page shows the message');
  assert.equal(testApp.standin.requests.length, 1, 'the reply was started');
  assertNoPageErrors(page);
});

test('a finished reply is announced once in the status region; the thread is not a live region', async (t) => {
  const { page, test: testApp } = await openChat(t, browser, { context: phone });
  assert.equal(await page.locator('#chat-thread').getAttribute('aria-live'), null);
  testApp.standin.enqueue({ content: 'Short and **done**.', chunkSize: 3, chunkDelayMs: 20 });
  await send(page, 'Say something');
  assert.equal(await page.locator('#chat-status').textContent(), '', 'nothing announced while streaming');
  assert.equal(await waitForReplyEnd(page), 'complete');
  await waitFor(page, () => (document.getElementById('chat-status')?.textContent ?? '') !== '');
  assert.equal(await page.locator('#chat-status').textContent(), 'Reply finished: Short and done.');
  assertNoPageErrors(page);
});

test('memory page: the byte counter follows typing (UTF-8), and Reset to default asks first', async (t) => {
  const testApp = await buildTestApp(t);
  const baseUrl = await testApp.listen();
  const { page } = await newPage(t, browser, phone);
  await loginInBrowser(page, baseUrl);
  await page.goto(`${baseUrl}/memory`);
  await page.locator('#memory-editor').fill('héllo');
  assert.match(await page.locator('#memory-size').innerText(), /^6 \/ \d+ bytes$/);
  assert.equal(await page.locator('#memory-editor').evaluate((element) => getComputedStyle(element).fontSize), '16px');

  const editor = page.locator('#system-prompt-editor');
  await editor.fill('My own prompt {{memory}}');
  await page.locator('#system-prompt-save').click();
  await page.waitForURL(/saved=prompt/);
  const dialogs: string[] = [];
  page.once('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await page.locator('#system-prompt-reset').click();
  assert.equal(dialogs.length, 1);
  assert.match(dialogs[0]!, /default/);
  assert.equal(await page.locator('#system-prompt-editor').inputValue(), 'My own prompt {{memory}}', 'dismissed: nothing reset');
  page.once('dialog', (dialog) => void dialog.accept());
  await Promise.all([page.waitForURL(/saved=prompt/), page.locator('#system-prompt-reset').click()]);
  assert.notEqual(await page.locator('#system-prompt-editor').inputValue(), 'My own prompt {{memory}}', 'accepted: reset to default');
  assertNoPageErrors(page);
});
