/**
 * A long chat on a phone: it opens at its newest messages, and scrolling up loads earlier ones
 * above without moving what the person is reading.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { messagePageSize } from '../../src/web/chat/chat-reader.js';
import { createConversationStore } from '../../src/storage/conversation-store.js';
import { assertNoPageErrors, launchBrowser, phone } from '../support/browser.js';
import { openChat, waitFor, waitForSocket } from '../support/chat-page.js';

let browser: Browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

const articleCount = () => document.querySelectorAll('#chat-thread article.chat-message').length;

test('scrolling up a long chat on a phone loads earlier messages without a jump', async (t) => {
  const { test: testApp, baseUrl, page } = await openChat(t, browser, {
    context: phone({ deviceScaleFactor: 3 }),
  });
  const store = createConversationStore(testApp.database);
  const conversation = store.createConversation('A long chat', 'llama3');
  const ids: number[] = [];
  const total = messagePageSize * 3;
  for (let index = 1; index <= total; index++) {
    const role = index % 2 === 1 ? 'user' : 'assistant';
    const message = store.addMessage(conversation.id, role, `Message ${index}: ${'some words to fill a line '.repeat(1 + (index % 4))}`);
    if (role === 'assistant') store.updateMessage(message.id, { html: `<p>Message ${index}: a reply.</p>` });
    ids.push(message.id);
  }

  await page.goto(`${baseUrl}/c/${conversation.id}`);
  await waitForSocket(page);
  assert.equal(await page.evaluate(articleCount), messagePageSize);
  // Opened at the bottom: the newest message is on screen.
  await page.locator(`#message-${ids.at(-1)}`).waitFor({ state: 'visible' });
  const bottomGap = await page.evaluate(() => {
    const thread = document.getElementById('chat-thread')!;
    return thread.scrollHeight - thread.scrollTop - thread.clientHeight;
  });
  assert.ok(bottomGap < 2, `the thread opens scrolled to its end (gap ${bottomGap})`);

  // Scroll to the top: the sentinel comes into view and the page before arrives above.
  const oldestShown = `#message-${ids[total - messagePageSize]}`;
  const topBefore = await page.evaluate((selector) => {
    const thread = document.getElementById('chat-thread')!;
    thread.scrollTop = 0;
    return document.querySelector(selector)!.getBoundingClientRect().top;
  }, oldestShown);
  await waitFor(page, (count) => document.querySelectorAll('#chat-thread article.chat-message').length === count, messagePageSize * 2);
  const topAfter = await page.evaluate((selector) => document.querySelector(selector)!.getBoundingClientRect().top, oldestShown);
  assert.ok(Math.abs(topAfter - topBefore) <= 1, `the message being read stays put: ${topBefore} → ${topAfter}`);
  const order = await page.evaluate(() => [...document.querySelectorAll('#chat-thread article.chat-message')].map((element) => Number(element.id.slice(8))));
  assert.deepEqual(order, ids.slice(messagePageSize));
  // The new sentinel is above the screen: it waits for the next scroll rather than loading everything.
  assert.equal(await page.locator('.load-earlier').count(), 1);
  assert.equal(await page.locator('.load-earlier').isVisible(), true);
  assert.ok((await page.locator('.load-earlier').boundingBox())!.y < 0, 'the next sentinel is above the screen');

  // The keyboard fallback: the button loads the first page, after which no sentinel is left.
  await page.locator('.load-earlier-button').focus();
  await page.keyboard.press('Enter');
  await waitFor(page, (count) => document.querySelectorAll('#chat-thread article.chat-message').length === count, total);
  assert.equal(await page.locator('.load-earlier').count(), 0);
  assert.equal(await page.locator(`#chat-thread article.chat-message`).first().getAttribute('id'), `message-${ids[0]}`);
  assert.equal(await page.evaluate(articleCount), total);
  assertNoPageErrors(page);
});
