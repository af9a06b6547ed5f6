/**
 * Native tool calls in a real Chromium: a chat whose model reports `tools` (TOOL_CALLS=auto)
 * runs the calculator and an approval-needing tool from the model's own tool_calls, with the
 * same cards as [TOOL:] calls, and the picker says the model gets its tools natively.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { assertNoPageErrors, launchBrowser } from '../support/browser.js';
import { openChat, send, waitFor, waitForReplyEnd } from '../support/chat-page.js';
import { createTestRegistry } from '../support/test-tools.js';

let browser: Browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

test('a native-mode chat runs the calculator and an approval-needing tool', async (t) => {
  const { registry, sendNote } = createTestRegistry();
  const { page, test: app } = await openChat(t, browser, { app: { environment: { TOOL_CALLS: 'auto' }, dependencies: { registry } } });
  assert.match(await page.locator('#model-select option:checked').innerText(), /· native tools$/, 'the picker says tools go natively');

  app.standin.enqueue({ content: 'Let me calculate.', toolCalls: [{ function: { name: 'calculator', arguments: { expression: '6 * 7' } } }] }, { content: 'The answer is **42**.' });
  await send(page, 'What is 6 times 7?');
  await page.locator('.tool-call-card[data-tool="calculator"][data-status="done"]').waitFor();
  await waitFor(page, () => /The answer is 42/.test(document.querySelector('#chat-thread')?.textContent ?? ''));
  assert.equal(await waitForReplyEnd(page), 'complete');
  assert.equal(await page.locator('.tool-call-card .tool-call-summary').innerText(), 'Used the calculator — 6 * 7 = 42');
  assert.ok(app.standin.requests[0]!.body.tools, 'the tools went natively');

  app.standin.enqueue({ content: '', toolCalls: [{ function: { name: 'send_note', arguments: { text: 'buy milk' } } }] }, { content: 'Done, the note is sent.' });
  await send(page, 'Send a note to buy milk');
  const approval = page.locator('.tool-call-card .tool-approval');
  await approval.waitFor();
  assert.deepEqual(sendNote.sent, [], 'nothing is sent before approval');
  await approval.locator('button.tool-approve').click();
  await page.locator('.tool-call-card[data-tool="send_note"][data-status="done"]').waitFor();
  await waitFor(page, () => /the note is sent/.test(document.querySelector('#chat-thread')?.textContent ?? ''));
  assert.deepEqual(sendNote.sent, ['{"text":"buy milk"}']);
  assert.doesNotMatch(await page.locator('#chat-thread').innerText(), /\[TOOL:|tool_calls/);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await page.locator('.tool-call-card[data-tool="send_note"][data-status="done"]').waitFor();
  // After a reload on a phone, both calls are still their cards, with no tags or raw tool_calls shown.
  assert.equal(await page.locator('.tool-call-card[data-status="done"]').count(), 2);
  assert.doesNotMatch(await page.locator('#chat-thread').innerText(), /\[TOOL:|tool_calls/);
  assertNoPageErrors(page);
});
