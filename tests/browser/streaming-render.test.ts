/**
 * The streaming path in a phone browser: a reply's finished blocks come formatted from the server
 * (sanitized HTML), its open block as data that chat.js adds as text (not as HTML that htmx
 * parses), so model output never runs, lands in the right message, keeps its order with the swaps
 * around it, and the view follows the reply unless the person scrolled up.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { assertNoPageErrors, launchBrowser, phone } from '../support/browser.js';
import { lastAssistant, lastAssistantBody, normalize, openChat, send, waitFor, waitForReplyEnd } from '../support/chat-page.js';
import { createTestRegistry } from '../support/test-tools.js';

let browser: Browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

test('streamed text stays text: markup in it is shown, never parsed or run', async (t) => {
  const { test: app, page } = await openChat(t, browser, { context: phone() });
  await page.evaluate(() => {
    (window as unknown as { __ran: number[] }).__ran = [];
  });
  const hostile = 'Look: <img src=x onerror="window.__ran.push(1)"> &amp; <b hx-get="/logout" hx-trigger="load">bold</b> ';
  // A finished paragraph (formatted on the server), then an open one (text) with the same markup.
  // The model pauses after the second one (the stand-in stalls), so the page is looked at mid-reply.
  const chunkSize = 8;
  app.standin.enqueue({ content: `${hostile}\n\n${hostile}${'slow '.repeat(30)}end`, chunkSize, hangAfterChunks: Math.ceil((hostile.length * 2 + 2) / chunkSize) + 1 });
  await send(page, 'Show me markup');

  // While it streams: the characters are on the page as typed, and no element was made from them.
  await waitFor(page, () => (document.querySelector('#chat-thread .chat-message-assistant:last-child .chat-stream-tail')?.textContent ?? '').includes('</b>') && document.querySelector('#chat-thread .chat-message-assistant:last-child .chat-message-body > p') !== null);
  const streaming = await lastAssistant(page).evaluate((message) => ({
    status: message.getAttribute('data-status'),
    formatted: message.querySelector('.chat-message-body > p')?.textContent ?? '',
    open: message.querySelector('.chat-stream-tail')?.textContent ?? '',
    // The server's paragraph, the open block and the plain pieces chat.js keeps long text in: no
    // element made from the reply's markup.
    strayElements: [...(message.querySelector('.chat-message-body')?.querySelectorAll('*') ?? [])].filter(
      (element) => !element.matches('.chat-message-body > p, div.chat-stream-tail, div.chat-stream-piece') || element.attributes.length > (element.matches('p') ? 0 : 2),
    ).map((element) => element.outerHTML.slice(0, 80)),
  }));
  assert.equal(streaming.status, 'streaming');
  const markup = 'Look: <img src=x onerror="window.__ran.push(1)"> &amp; <b hx-get="/logout" hx-trigger="load">bold</b>';
  // (As Markdown, `&amp;` is an entity: the paragraph shows "&".)
  assert.equal(streaming.formatted.trim(), markup.replace('&amp;', '&'), 'the finished paragraph shows the markup as text');
  assert.ok(streaming.open.startsWith(markup), streaming.open);
  assert.deepEqual(streaming.strayElements, [], 'the streamed body holds the paragraph and text only');

  await page.locator('#chat-stop').click();
  assert.equal(await waitForReplyEnd(page), 'stopped');
  assert.equal(await lastAssistantBody(page).locator('img, b').count(), 0, 'the kept reply shows the markup as text too');
  assert.deepEqual(await page.evaluate(() => (window as unknown as { __ran: number[] }).__ran), [], 'nothing in the reply ran');
  const landedOn = await page.evaluate(() => fetch('/').then((response) => new URL(response.url).pathname));
  assert.equal(landedOn, '/', 'still logged in: the injected hx-get="/logout" never fired');
  assertNoPageErrors(page);
});

test('streamed text lands in its own message and in order with the swaps around it', async (t) => {
  const { registry } = createTestRegistry();
  const { test: app, page } = await openChat(t, browser, { app: { dependencies: { registry } }, context: phone() });
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
  const { test: app, page } = await openChat(t, browser, { context: phone() });
  // One long block (a code fence still open), so it streams as text all along.
  const lines = `\`\`\`\n${Array.from({ length: 120 }, (_, index) => `Line ${index + 1} of a long answer.\n\n`).join('')}`;
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
