/**
 * The XSS corpus through every path untrusted text takes, in real Chromium with the page's CSP
 * switched off (bypassCSP), so the test proves the sanitizing itself, not only the policy.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createConversationStore } from '../../src/storage/conversation-store.js';
import { Tool } from '../../src/engine/tools/tool.js';
import { testToolServices } from '../support/test-tools.js';
import { ToolRegistry } from '../../src/engine/tools/tool-registry.js';
import { launchBrowser } from '../support/browser.js';
import { openChat, send, waitFor, waitForReplyEnd } from '../support/chat-page.js';
import { xssPayloads } from '../support/xss-payloads.js';
import { account, fixedNow, startGoogleHarness } from '../support/google-setup.js';
import { multipart, textPart } from '../support/google-standin.js';

let browser: Browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

const corpus = xssPayloads.map((payload, index) => `zqx${index} ${payload}`).join('\n\n');

/** A tool whose result is the whole corpus, like a hostile email or web page. */
class CorpusTool extends Tool {
  readonly name = 'read_email';
  readonly description = 'Returns a hostile email.';
  readonly examples = ['[TOOL:read_email]1[/TOOL]'];
  override readonly maxResultCharacters = 100_000;
  async run(): Promise<string> {
    return `Subject: ${xssPayloads[1]} ${xssPayloads[12]}\nFrom: "${xssPayloads[0]}" <a@b.c>\n\n${corpus}`;
  }
}

/** Records any payload that runs, and clicks and hovers everything so handlers get their chance. */
async function armPage(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const fired: number[] = [];
    (window as unknown as { __fired: number[]; __xss: (n: number) => void }).__fired = fired;
    (window as unknown as { __xss: (n: number) => void }).__xss = (number) => fired.push(number);
  });
}

async function poke(page: Page): Promise<void> {
  await page.evaluate(() => {
    for (const element of document.querySelectorAll('#chat-thread *, .history-list *, main *')) {
      element.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
      if (element instanceof HTMLDetailsElement) element.open = !element.open;
    }
  });
  // Click every link the model made (they open in new tabs; javascript: ones must not exist).
  const links = await page.locator('#chat-thread a[href]').all();
  for (const link of links.slice(0, 50)) {
    const href = (await link.getAttribute('href')) ?? '';
    assert.match(href, /^(https?:|mailto:)/, `only safe links are rendered, got ${href}`);
  }
  await page.waitForTimeout(300);
}

const fired = (page: Page) => page.evaluate(() => (window as unknown as { __fired: number[] }).__fired);

async function stillLoggedIn(page: Page, baseUrl: string): Promise<boolean> {
  const status = await page.evaluate(async (url) => (await fetch(`${url}/history`, { redirect: 'manual' })).status, baseUrl);
  return status === 200;
}

test(`${xssPayloads.length} payloads through replies, thinking, tool results, titles, search and memory: none runs`, async (t) => {
  const services = testToolServices();
  const registry = new ToolRegistry([new CorpusTool(services)]);
  const { page, baseUrl, test: app } = await openChat(t, browser, { app: { dependencies: { registry } }, context: { bypassCSP: true } });
  assert.ok(xssPayloads.length >= 30);
  await armPage(page);
  await page.reload();
  await page.locator('#chat-input').waitFor();
  await waitFor(page, () => document.body.matches('.chat-page'));

  // Model reply and thinking, streamed then rendered; then a tool result with the same corpus.
  app.standin.enqueue(
    { content: corpus, thinking: corpus, chunkSize: 7, chunkDelayMs: 0 },
  );
  await send(page, `${xssPayloads[0]} first message as a title ${xssPayloads[1]}`);
  assert.equal(await waitForReplyEnd(page, 20_000), 'complete');
  await poke(page);
  app.standin.enqueue({ content: '[TOOL:read_email]1[/TOOL]' }, { content: 'done' });
  await send(page, 'read it');
  await page.locator('.tool-call-card[data-status="done"]').waitFor();
  // (The corpus holds a [TOOL:...] line, so the first reply also made a call: count nothing, wait for the end.)
  await waitFor(page, () => [...document.querySelectorAll('.chat-message-assistant')].at(-1)?.textContent?.includes('done') === true);
  await waitForReplyEnd(page);
  await poke(page);
  assert.deepEqual(await fired(page), [], 'nothing ran in the live page');

  // Reloaded: the saved conversation, its title in the list and <title>.
  await page.reload();
  await page.locator('.tool-call-card').first().waitFor();
  await poke(page);
  assert.deepEqual(await fired(page), [], 'nothing ran in the reloaded page');
  assert.match(await page.locator('#chat-thread').innerText(), /<script>window\.__xss\(1\)<\/script>/, 'payloads show as text');

  // Conversation titles made of payloads, and search snippets.
  const store = createConversationStore(app.database);
  for (const payload of xssPayloads) store.createConversation(payload.slice(0, 60), 'llama3.2:latest');
  await page.reload();
  await page.locator('.history-item').nth(xssPayloads.length).waitFor();
  await page.locator('input#history-search').fill('zqx1');
  await waitFor(page, () => document.querySelectorAll('.history-item .history-snippet').length > 0);
  await poke(page);
  assert.deepEqual(await fired(page), [], 'nothing ran from titles or snippets');

  // Memory content on the /memory page (editor and version previews).
  fs.writeFileSync(app.app.memory.file, corpus);
  await page.goto(`${baseUrl}/memory`);
  await poke(page);
  fs.writeFileSync(app.app.memory.file, xssPayloads.join(' '));
  await page.reload();
  await poke(page);
  assert.deepEqual(await fired(page), [], 'nothing ran on the memory page');

  assert.ok(await stillLoggedIn(page, baseUrl), 'hx-get/hx-post="/logout" payloads did not fire');

  // Control: the detector does see a payload that reaches the DOM unsanitized.
  await page.evaluate(() => document.body.insertAdjacentHTML('beforeend', '<img src=x onerror="window.__xss(999)">'));
  await waitFor(page, () => (window as unknown as { __fired: number[] }).__fired.includes(999));
});

test('the corpus in real emails (subjects, senders, text and HTML bodies) read through the Gmail tools: none runs', async (t) => {
  const google = await startGoogleHarness(t);
  const inbox = google.standin.accounts.get(account)!;
  xssPayloads.forEach((payload, index) => {
    inbox.messages.push({
      id: `19a0000000000${String(index).padStart(3, '0')}`,
      from: `"${payload.slice(0, 40)}" <evil${index}@attacker.example>`,
      to: account,
      subject: `zqx ${payload}`,
      date: '2026-11-21T10:00:00Z',
      payload: multipart('alternative', textPart(`zqx${index} ${payload}`), textPart(`<p>zqx${index}</p>${payload}`, 'text/html')),
    });
  });
  const { page, test: app } = await openChat(t, browser, {
    app: { dependencies: { toolServices: { google: google.google, now: () => fixedNow } } },
    context: { bypassCSP: true },
  });
  await armPage(page);
  await page.reload();
  await page.locator('#chat-input').waitFor();
  const reads = xssPayloads.map((_, index) => `[TOOL:read_email]19a0000000000${String(index).padStart(3, '0')}[/TOOL]`).join('\n');
  app.standin.enqueue({ content: '[TOOL:search_emails]query: zqx\nmax: 25[/TOOL]' }, { content: reads }, { content: 'All read.' });
  await send(page, 'Read every email about zqx');
  await waitFor(page, () => [...document.querySelectorAll('.chat-message-assistant')].at(-1)?.textContent?.includes('All read.') === true);
  await waitForReplyEnd(page, 30_000);
  assert.equal(await page.locator('.tool-call-card[data-tool="read_email"][data-status="done"]').count(), xssPayloads.length);
  await poke(page);
  await page.reload();
  await page.locator('.tool-call-card').first().waitFor();
  await poke(page);
  assert.deepEqual(await fired(page), [], 'nothing from an email ran');
  assert.match(await page.locator('.tool-call-card[data-tool="search_emails"]').innerText(), /zqx <script>window\.__xss\(1\)<\/script>/);
});
