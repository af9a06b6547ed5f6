/**
 * The streaming path in a phone browser: streamed text arrives as data that chat.js adds as text
 * (not as HTML that htmx parses), so it must stay text, land in the right message, keep its order
 * with the swaps around it, and the view must follow the reply unless the person scrolled up.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { assertNoPageErrors, launchBrowser } from '../support/browser.js';
import { lastAssistant, lastAssistantBody, normalize, openChat, send, waitFor, waitForReplyEnd } from '../support/chat-page.js';
import { createTestRegistry } from '../support/test-tools.js';

const phone = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true };

let browser: Browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

test('streamed text stays text: markup in it is shown, never parsed or run', async (t) => {
  const { test: app, page } = await openChat(t, browser, { context: phone });
  await page.evaluate(() => {
    (window as unknown as { __ran: number[] }).__ran = [];
  });
  const hostile = 'Look: <img src=x onerror="window.__ran.push(1)"> &amp; <b hx-get="/logout" hx-trigger="load">bold</b> ';
  app.standin.enqueue({ content: `${hostile}${'slow '.repeat(30)}end`, chunkDelayMs: 30 });
  await send(page, 'Show me markup');

  // While it streams: the characters are on the page as typed, and no element was made from them.
  await waitFor(page, () => (document.querySelector('#chat-thread .chat-message-assistant:last-child .chat-message-body')?.textContent ?? '').includes('</b>'));
  const streaming = await lastAssistant(page).evaluate((message) => ({
    status: message.getAttribute('data-status'),
    text: message.querySelector('.chat-message-body')?.textContent ?? '',
    // Only text, and the plain blocks chat.js keeps a long reply in: no element made from the reply.
    strayElements: [...(message.querySelector('.chat-message-body')?.querySelectorAll('*') ?? [])].filter(
      (element) => !(element.matches('div.chat-stream-piece') && element.childElementCount === 0 && element.attributes.length === 1),
    ).length,
  }));
  assert.equal(streaming.status, 'streaming');
  assert.ok(streaming.text.startsWith('Look: <img src=x onerror="window.__ran.push(1)"> &amp; <b hx-get="/logout" hx-trigger="load">bold</b>'), streaming.text);
  assert.equal(streaming.strayElements, 0, 'the streamed body holds text only');

  assert.equal(await waitForReplyEnd(page), 'complete');
  assert.deepEqual(await page.evaluate(() => (window as unknown as { __ran: number[] }).__ran), [], 'nothing in the reply ran');
  const landedOn = await page.evaluate(() => fetch('/').then((response) => new URL(response.url).pathname));
  assert.equal(landedOn, '/', 'still logged in: the injected hx-get="/logout" never fired');
  assertNoPageErrors(page);
});

test('streamed text lands in its own message and in order with the swaps around it', async (t) => {
  const { registry } = createTestRegistry();
  const { test: app, page } = await openChat(t, browser, { app: { dependencies: { registry } }, context: phone });
  // Full speed: the last text of each round is sent just before the swap that finishes it, so text
  // added after that swap (or into the wrong message) would show twice or in the wrong place.
  app.standin.enqueue(
    { content: `${'first round words '.repeat(40)}then a call. [TOOL:calculator]6 * 7[/TOOL]` },
    { content: `${'second round words '.repeat(40)}and **the end**.` },
  );
  await send(page, 'What is 6 times 7?');
  await waitFor(page, () => document.querySelectorAll('#chat-thread .chat-message-assistant').length === 2);
  assert.equal(await waitForReplyEnd(page), 'complete');

  const bodies = (await page.locator('#chat-thread .chat-message-assistant .chat-message-body').allTextContents()).map(normalize);
  assert.equal(bodies.length, 2);
  assert.equal(bodies[0], normalize(`${'first round words '.repeat(40)}then a call.`));
  assert.equal(bodies[1], normalize(`${'second round words '.repeat(40)}and the end.`));
  assert.equal(await lastAssistantBody(page).locator('strong').textContent(), 'the end', 'the finished reply is rendered Markdown');
  assert.equal(await page.locator('.tool-call-card[data-status="done"]').count(), 1);
  assertNoPageErrors(page);
});

test('the view follows a long reply, and stops following once the person scrolls up', async (t) => {
  const { test: app, page } = await openChat(t, browser, { context: phone });
  const lines = Array.from({ length: 120 }, (_, index) => `Line ${index + 1} of a long answer.\n\n`).join('');
  const distanceFromBottom = () =>
    page.evaluate(() => {
      const thread = document.getElementById('chat-thread')!;
      return thread.scrollHeight - thread.scrollTop - thread.clientHeight;
    });

  app.standin.enqueue({ content: lines, chunkDelayMs: 5 });
  await send(page, 'A long one');
  await waitFor(page, () => (document.querySelector('#chat-thread .chat-message-assistant:last-child .chat-message-body')?.textContent ?? '').includes('Line 100 '));
  assert.ok((await distanceFromBottom()) < 120, 'mid-reply, the newest text is in view');
  // A long reply is kept in pieces that end at a line break; together they hold the text exactly.
  const streamed = await lastAssistantBody(page).evaluate((body) => ({ text: body.textContent ?? '', pieces: body.querySelectorAll('.chat-stream-piece').length }));
  assert.ok(lines.startsWith(streamed.text), 'the pieces hold the streamed text, in order, nothing lost or doubled');
  assert.ok(streamed.pieces >= 2, `more than one piece (${streamed.pieces})`);
  assert.ok(
    await lastAssistantBody(page).evaluate((body) => [...body.querySelectorAll('.chat-stream-piece')].slice(0, -1).every((piece) => (piece.textContent ?? '').endsWith('\n'))),
    'every piece but the last ends at a line break, so the pieces look like one text',
  );
  assert.equal(await waitForReplyEnd(page), 'complete');
  await waitFor(page, () => {
    const thread = document.getElementById('chat-thread')!;
    return thread.scrollHeight - thread.scrollTop - thread.clientHeight < 80;
  });

  app.standin.enqueue({ content: lines, chunkDelayMs: 8 });
  await send(page, 'Another long one');
  await waitFor(page, () => (document.querySelector('#chat-thread .chat-message-assistant:last-child .chat-message-body')?.textContent ?? '').includes('Line 10 '));
  // The person scrolls up to read something earlier, the way a finger does: upwards, in steps.
  for (let step = 0; step < 5; step++) {
    await page.evaluate(() => document.getElementById('chat-thread')!.scrollBy(0, -400));
    await page.waitForTimeout(30);
  }
  const readingAt = await page.evaluate(() => document.getElementById('chat-thread')!.scrollTop);
  await waitFor(page, () => (document.querySelector('#chat-thread .chat-message-assistant:last-child .chat-message-body')?.textContent ?? '').includes('Line 100 '));
  const stillAt = await page.evaluate(() => document.getElementById('chat-thread')!.scrollTop);
  assert.ok(Math.abs(stillAt - readingAt) < 5, `the view stayed where the person scrolled (${readingAt} then ${stillAt})`);
  assert.ok((await distanceFromBottom()) > 400, 'and the new text went on below it');
  assert.equal(await waitForReplyEnd(page), 'complete');
  assertNoPageErrors(page);
});
