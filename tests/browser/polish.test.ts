/**
 * Everyday chat on a phone, in a real Chromium at 390x844 with touch: no accessibility
 * violations (axe-core) on the login, chat and memory pages; the chat form works with no
 * JavaScript and before the socket is open; finished replies are announced once; the memory
 * page says how full it is as you type, and the settings page asks before resetting the system prompt.
 */
import assert from 'node:assert/strict';
import { after, before, test, type TestContext } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { assertNoPageErrors, launchBrowser, loginInBrowser, newPage } from '../support/browser.js';
import { addPhotoTurn, askForApproval, chatWithToolAndCode, lastAssistant, normalize, openChat, send, trackSocket, waitFor, waitForReplyEnd, waitForSocket } from '../support/chat-page.js';
import { startOllamaStandin } from '../support/ollama-standin.js';
import { markdownRendererVersion } from '../../src/engine/markdown/markdown-renderer.js';
import { renderMarkdown } from '../../src/engine/markdown/render-markdown.js';
import { createConversationStore } from '../../src/storage/conversation-store.js';
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

    await chatWithToolAndCode(page, testApp.standin);
    await askForApproval(page);
    assert.equal(await page.locator('#chat-thread pre').first().getAttribute('tabindex'), '0', 'code blocks take keyboard focus');
    // The reply waits for the person: edits and regenerating, which the server refuses now, are not offered.
    assert.equal(await page.locator('#chat-thread .message-edit').count() > 0, true);
    assert.equal(await page.locator('#chat-thread :is(.message-edit, .message-regenerate, .message-retry):visible').count(), 0);
    assert.deepEqual(await violationsOf(page), [], 'chat page');

    await page.goto(`${baseUrl}/memory`);
    assert.deepEqual(await violationsOf(page), [], 'memory page');
    await page.goto(`${baseUrl}/settings`);
    assert.deepEqual(await violationsOf(page), [], 'settings page');
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
  testApp.standin.enqueue({ content: 'Short and **done**.', chunkSize: 3, chunkDelayMs: 150 });
  await send(page, 'Say something');
  // Read in the page while the reply is still streaming: a short reply can end before a later check.
  const statusWhileStreaming = await page.waitForFunction(() => {
    const streaming = document.querySelector('#chat-thread .chat-message-streaming');
    return streaming ? { text: document.getElementById('chat-status')?.textContent ?? '' } : undefined;
  }, undefined, { polling: 'raf' });
  assert.equal((await statusWhileStreaming.jsonValue())?.text, '', 'nothing announced while streaming');
  assert.equal(await waitForReplyEnd(page), 'complete');
  await waitFor(page, () => (document.getElementById('chat-status')?.textContent ?? '') !== '');
  assert.equal(await page.locator('#chat-status').textContent(), 'Reply finished: Short and done.');
  assertNoPageErrors(page);
});

test('memory page: how full the whole file would be follows typing (UTF-8); the settings page asks before resetting the system prompt', async (t) => {
  const testApp = await buildTestApp(t, { environment: { MEMORY_MAX_BYTES: '100' } });
  const baseUrl = await testApp.listen();
  const { page } = await newPage(t, browser, phone);
  await loginInBrowser(page, baseUrl);
  await page.goto(`${baseUrl}/memory`);
  await page.locator('#memory-file > summary').click();
  await page.locator('#memory-editor').fill('héllo');
  // The server counts (6 bytes of 100: é is two), a moment after the typing stops.
  await waitFor(page, () => document.getElementById('memory-size')?.textContent === '6% full');
  await page.locator('#memory-editor').fill(`${'é'.repeat(50)}\n`);
  await waitFor(page, () => document.querySelector('#memory-size.memory-size-over')?.textContent === '101% full');
  assert.equal(await page.locator('#memory-editor').evaluate((element) => getComputedStyle(element).fontSize), '16px');

  await page.goto(`${baseUrl}/settings`);
  const editor = page.locator('#system-prompt-editor');
  await editor.fill('My own prompt {{memory}}');
  await page.locator('#system-prompt-save').click();
  await page.waitForURL(/saved=prompt/);
  assert.equal(await page.locator('#system-prompt-reset').isVisible(), false, 'the reset button is behind its question');
  await page.locator('#system-prompt-reset-ask > summary').click();
  assert.match(await page.locator('#system-prompt-reset-ask').innerText(), /Replace your system prompt with the default\?/);
  assert.equal(await page.locator('#system-prompt-editor').inputValue(), 'My own prompt {{memory}}', 'asked: nothing reset yet');
  await Promise.all([page.waitForURL(/saved=prompt/), page.locator('#system-prompt-reset').click()]);
  assert.notEqual(await page.locator('#system-prompt-editor').inputValue(), 'My own prompt {{memory}}', 'confirmed: reset to default');
  assertNoPageErrors(page);
});

for (const colorScheme of ['light', 'dark'] as const) {
  test(`axe finds no violations in the phone states: editor, versions, photos and the tray, rename, a failed reply, a search match, ${colorScheme}`, async (t: TestContext) => {
    const { page, test: testApp, baseUrl } = await openChat(t, browser, { context: { ...phone, colorScheme } });
    const store = createConversationStore(testApp.database);
    const conversation = store.createConversation('Show me code', 'llama3.2:latest');
    store.addMessage(conversation.id, 'user', 'Show me code');
    const reply = 'Here is **some code**:\n\n```js\nconst ok = 1 < 2;\n```\n';
    const answer = store.addMessage(conversation.id, 'assistant', reply, { model: 'llama3.2:latest' });
    store.updateMessage(answer.id, { html: renderMarkdown(reply), html_version: markdownRendererVersion });
    await page.goto(`${baseUrl}/c/${conversation.id}`);
    await waitForSocket(page);

    await page.locator('.chat-message-user .message-edit').tap();
    await page.locator('.message-editor').fill('Show me other code');
    assert.deepEqual(await violationsOf(page), [], 'the inline editor open');
    testApp.standin.enqueue({ content: 'Other code: `ok()`.' });
    await page.locator('.message-edit-save').tap();
    await waitFor(page, () => document.querySelector('#chat-thread .chat-message-user .message-version-position')?.textContent === '2/2');
    assert.equal(await waitForReplyEnd(page), 'complete');

    // A photo message, stored as the browser sends one, then a reply that fails.
    const jpeg = await addPhotoTurn(page, testApp.database, conversation.id);
    await page.reload();
    await waitForSocket(page);
    testApp.standin.enqueue({ status: 500, error: 'model runner crashed' });
    await send(page, 'And now?');
    assert.equal(await waitForReplyEnd(page), 'failed');
    await lastAssistant(page).locator('.message-retry').waitFor();
    await page.locator('.message-photo img').waitFor();
    assert.deepEqual(await violationsOf(page), [], 'versions, a photo message and a failed reply with Retry');

    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-axe-photo-'));
    t.after(() => fs.rmSync(folder, { recursive: true, force: true }));
    fs.writeFileSync(path.join(folder, 'blue.jpg'), jpeg);
    await page.locator('#photo-input').setInputFiles(path.join(folder, 'blue.jpg'));
    await waitFor(page, () => document.querySelectorAll('.photo-tray-item:not(.is-uploading)').length === 1);
    assert.deepEqual(await violationsOf(page), [], 'the composer tray with a photo');

    await page.locator('#chat-title-button').tap();
    await page.locator('#chat-title-input').waitFor({ state: 'visible' });
    assert.deepEqual(await violationsOf(page), [], 'the rename field');

    const long = store.createConversation('A long chat', 'llama3.2:latest');
    const ids = Array.from({ length: 80 }, (_, index) => store.addMessage(long.id, index % 2 ? 'assistant' : 'user', index === 20 ? 'The kettle is descaled.' : `Message ${index}`).id);
    await page.goto(`${baseUrl}/c/${long.id}?at=${ids[20]}&q=kettle#message-${ids[20]}`);
    await waitForSocket(page);
    await page.locator('mark.search-mark').waitFor();
    assert.deepEqual(await violationsOf(page), [], 'a chat opened at a search match');
    assertNoPageErrors(page, [/status of 500/]);
  });
}

test('when Ollama is not answering, the failed reply says so in plain words and Retry resends once it is back', async (t) => {
  const { page, test: testApp } = await openChat(t, browser, { context: phone });
  const port = Number(new URL(testApp.standin.url).port);
  await testApp.standin.close();

  await send(page, 'Are you there?');
  assert.equal(await waitForReplyEnd(page), 'failed');
  const failed = lastAssistant(page);
  assert.equal(normalize(await failed.locator('.chat-error-text').textContent()), 'Ollama is not answering. Check that it is running, then retry.');
  assert.match(normalize(await failed.locator('.chat-error-details').textContent()), /Ollama is not answering at http:\/\/127\.0\.0\.1:\d+/, 'the exact words stay under Details');
  assert.equal(await failed.locator('.chat-retry').count(), 0, 'no reload link inside a reply: its Retry button resends');
  const retry = failed.locator('.message-retry');
  assert.equal(normalize(await retry.textContent()), 'Retry');
  const box = (await retry.boundingBox())!;
  assert.ok(box.width >= 44 && box.height >= 44 && box.x + box.width <= 390, `Retry is a full tap target on screen (${box.width}x${box.height} at ${box.x})`);

  // Ollama is back on the same address: Retry asks it the same question, without retyping.
  const back = await startOllamaStandin({ port });
  t.after(() => back.close());
  back.enqueue({ content: 'Yes, here now.' });
  await retry.tap();
  await waitFor(page, () => document.querySelector('#chat-thread .chat-message-assistant:last-of-type')?.getAttribute('data-status') === 'complete');
  assert.equal(normalize(await lastAssistant(page).locator('.chat-message-body').textContent()), 'Yes, here now.');
  assert.equal(back.requests.length, 1);
  assert.equal(back.requests[0]!.messages.at(-1)!.content, 'Are you there?');
  assert.equal(await page.locator('#chat-thread .chat-message-user').count(), 1, 'the question was not sent twice');
  assertNoPageErrors(page);
});

test('Ollama down when the page opened: the typed message stays, and Retry on the notice sends it once Ollama is back', async (t) => {
  const testApp = await buildTestApp(t);
  const baseUrl = await testApp.listen();
  const port = Number(new URL(testApp.standin.url).port);
  await testApp.standin.close();
  const { page } = await newPage(t, browser, phone);
  await trackSocket(page);
  await loginInBrowser(page, baseUrl);
  await waitForSocket(page);
  await page.locator('#chat-input').fill('Is anyone there?');
  await page.locator('#chat-send').tap();
  await waitFor(page, () => document.querySelectorAll('#chat-thread > .chat-error-notice').length > 1);
  assert.equal(await page.locator('#chat-input').inputValue(), 'Is anyone there?', 'the message is kept in the input');
  const retry = page.locator('#chat-thread > .chat-error-notice .chat-retry').last();
  assert.equal(normalize(await page.locator('#chat-thread > .chat-error-notice .chat-error-text').last().textContent()), 'Ollama is not answering. Check that it is running, then retry.');

  const back = await startOllamaStandin({ port });
  t.after(() => back.close());
  back.enqueue({ content: 'Here now.' });
  await retry.tap();
  await page.locator('#chat-thread .chat-message-user').waitFor();
  assert.equal(await waitForReplyEnd(page), 'complete');
  assert.equal(normalize(await page.locator('#chat-thread .chat-message-user .chat-message-body').textContent()), 'Is anyone there?');
  assert.equal(normalize(await lastAssistant(page).locator('.chat-message-body').textContent()), 'Here now.');
  assert.equal(await page.locator('#chat-thread > .chat-error-notice').count(), 0, 'the old notices are gone');
  assert.equal(back.requests.length, 1);
  assertNoPageErrors(page);
});
