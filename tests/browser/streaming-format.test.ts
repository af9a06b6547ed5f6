/**
 * A reply is formatted as it arrives: each finished block (paragraph, list, table, code fence) is
 * rendered once on the server and sent as HTML, only the open block streams as text. So the
 * person never reads raw Markdown, and the end of the reply changes nothing they see: the layout
 * shift of a streamed reply, measured by the browser (PerformanceObserver, layout-shift), stays
 * at or below 0.02. Also: the phone's keyboard opening keeps the newest message in view.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { assertNoPageErrors, launchBrowser, phone } from '../support/browser.js';
import { lastAssistant, lastAssistantBody, normalize, openChat, send, waitFor, waitForReplyEnd } from '../support/chat-page.js';

/** A reply with every kind of block the issue names, as a small model writes it. */
export const formattedReply = [
  'Here is **a plan** for the weekend, in three steps.',
  'First, the things to *buy*:\n\n- bread and `butter`\n- apples\n- coffee beans',
  '| Step | What |\n|---|---|\n| 1 | Shop |\n| 2 | Cook |\n| 3 | Eat |',
  '```js\nconst plan = ["shop", "cook", "eat"];\nfor (const step of plan) console.log(step);\n```',
  'Then relax. That is the **whole plan**.',
].join('\n\n');

let browser: Browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

/** Sums the layout shifts the page reports from now on (none come from the person: nothing is touched). */
async function watchLayoutShifts(page: Page): Promise<void> {
  await page.evaluate(() => {
    const state = window as unknown as { __shift: number; __shifts: string[] };
    state.__shift = 0;
    state.__shifts = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean; sources?: { node?: Node }[] })[]) {
        if (entry.hadRecentInput) continue;
        state.__shift += entry.value;
        state.__shifts.push(`${entry.value.toFixed(4)} ${(entry.sources ?? []).map((source) => (source.node instanceof Element ? `${source.node.tagName}.${source.node.className}` : source.node?.nodeName)).join(',')}`);
      }
    }).observe({ type: 'layout-shift' });
  });
}

const layoutShift = (page: Page) =>
  page.evaluate(() => {
    const state = window as unknown as { __shift: number; __shifts: string[] };
    return { total: state.__shift, shifts: state.__shifts };
  });

async function screenshot(page: Page, name: string): Promise<void> {
  const folder = process.env.HEARTH_SCREENS;
  if (!folder) return;
  fs.mkdirSync(folder, { recursive: true });
  await page.screenshot({ path: `${folder}/${name}.png` });
}

for (const scheme of ['light', 'dark'] as const) {
  test(`mid-reply, finished blocks are formatted and only the open one is text (${scheme})`, async (t) => {
    const { test: app, page } = await openChat(t, browser, { context: phone({ colorScheme: scheme }) });
    // The model pauses in the last paragraph (the stand-in stalls), so the page is looked at mid-reply.
    const chunkSize = 4;
    const pauseAt = formattedReply.indexOf('relax') + 'relax'.length;
    app.standin.enqueue({ content: formattedReply, chunkSize, hangAfterChunks: Math.ceil(pauseAt / chunkSize) });
    await send(page, 'Plan my weekend');
    await waitFor(page, () => (document.querySelector('#chat-thread .chat-message-assistant:last-child .chat-stream-tail')?.textContent ?? '').includes('relax'));
    await lastAssistantBody(page).locator('pre code').waitFor();
    await screenshot(page, `stream-after-mid-${scheme}`);
    const middle = await lastAssistantBody(page).evaluate((body) => ({
      status: body.closest('.chat-message')?.getAttribute('data-status'),
      strong: body.querySelector('strong')?.textContent,
      items: body.querySelectorAll('ul > li').length,
      cells: body.querySelectorAll('table td').length,
      code: body.querySelector('pre code')?.textContent ?? '',
      tail: body.querySelector('.chat-stream-tail')?.textContent,
      text: body.textContent ?? '',
    }));
    assert.equal(middle.status, 'streaming');
    assert.equal(middle.strong, 'a plan', 'the first paragraph is formatted while the reply goes on');
    assert.equal(middle.items, 3, 'the list is a list');
    assert.equal(middle.cells, 6, 'the table is a table');
    assert.match(middle.code, /for \(const step of plan\)/, 'the code fence is a code block');
    assert.ok(middle.tail?.startsWith('Then relax'), `only the open paragraph is text: ${middle.tail}`);
    assert.ok(!/\*\*a plan|\|---\||```/.test(middle.text), `no raw Markdown of finished blocks: ${middle.text}`);

    // Stopped there: the kept reply is the same blocks, and the open paragraph formatted.
    await page.locator('#chat-stop').click();
    assert.equal(await waitForReplyEnd(page), 'stopped');
    assert.equal(await lastAssistantBody(page).locator('table td').count(), 6);
    assert.equal(normalize(await lastAssistantBody(page).locator('p').last().textContent()), 'Then relax');
    assertNoPageErrors(page);
  });
}

test('a streamed reply shifts the layout by at most 0.02, from its first words to its end', async (t) => {
  const { test: app, page } = await openChat(t, browser, { context: phone() });
  // An earlier turn, so the reply scrolls the thread as on a phone in use.
  app.standin.enqueue({ content: 'Hello! How can I help?\n\nAsk me anything.' });
  await send(page, 'Hi');
  assert.equal(await waitForReplyEnd(page), 'complete');

  app.standin.enqueue({ content: formattedReply, chunkSize: 4, chunkDelayMs: 30 });
  await send(page, 'Plan my weekend');
  await page.waitForTimeout(600); // past the 500 ms in which the tap on Send excuses shifts
  await watchLayoutShifts(page);
  assert.equal(await waitForReplyEnd(page, 30_000), 'complete');
  await page.waitForTimeout(300);
  const shift = await layoutShift(page);
  t.diagnostic(`layout shift of the streamed reply: ${shift.total.toFixed(4)} (${shift.shifts.length} shifts${shift.shifts.length ? `: ${shift.shifts.slice(0, 8).join('; ')}` : ''})`);
  assert.ok(shift.total <= 0.02, `layout shift ${shift.total.toFixed(4)} ≤ 0.02: ${shift.shifts.join('; ')}`);

  const final = await lastAssistant(page).evaluate((message) => ({
    code: message.querySelector('pre code')?.textContent ?? '',
    cells: message.querySelectorAll('table td').length,
    strong: [...message.querySelectorAll('strong')].map((element) => element.textContent),
  }));
  assert.ok(final.code.includes('for (const step of plan)'));
  assert.equal(final.cells, 6);
  assert.deepEqual(final.strong, ['a plan', 'whole plan']);
  assertNoPageErrors(page);
});

test('the keyboard opening keeps the newest message in view, and Send keeps the focus in the box (390x844)', async (t) => {
  const { test: app, page } = await openChat(t, browser, { context: phone() });
  // A new chat's tab title comes as HTML over the socket.
  app.standin.enqueue({ content: Array.from({ length: 40 }, (_, index) => `Line ${index + 1} of a long chat.`).join('\n\n') });
  await send(page, 'A long answer please');
  assert.equal(await waitForReplyEnd(page, 30_000), 'complete');
  await waitFor(page, () => document.title === 'A long answer please · Hearth');
  await waitFor(page, () => {
    const thread = document.getElementById('chat-thread')!;
    return thread.scrollHeight - thread.scrollTop - thread.clientHeight < 2;
  });

  // Android makes the page shorter when the keyboard opens: the last message stays in sight.
  await page.locator('#chat-input').focus();
  await page.setViewportSize({ width: 390, height: 508 });
  await waitFor(page, () => {
    const thread = document.getElementById('chat-thread')!;
    const last = [...thread.querySelectorAll('.chat-message')].at(-1)!.getBoundingClientRect();
    return last.bottom <= thread.getBoundingClientRect().bottom + 1 && window.innerHeight === 508;
  });

  // Send with a tap: the box keeps the focus (the keyboard would close with it).
  app.standin.enqueue({ content: 'Short.' });
  await page.locator('#chat-input').fill('And one more');
  await page.locator('#chat-send').tap();
  await waitFor(page, () => document.querySelectorAll('#chat-thread .chat-message-assistant').length === 2);
  assert.equal(await waitForReplyEnd(page, 30_000), 'complete');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'chat-input', 'the focus stayed in the message box');
  const inView = await page.evaluate(() => {
    const thread = document.getElementById('chat-thread')!;
    const last = [...thread.querySelectorAll('.chat-message')].at(-1)!.getBoundingClientRect();
    return last.bottom <= thread.getBoundingClientRect().bottom + 1;
  });
  assert.ok(inView, 'the newest message is in view above the keyboard');
  assertNoPageErrors(page);
});
