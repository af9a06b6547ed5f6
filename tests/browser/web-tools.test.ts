/**
 * The web tools in a real Chromium: "what does this page say" → read_web_page on the local web
 * stand-in → an answer citing the address, as a link that opens in a new tab without a referrer.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { searxngEngine } from '../../src/providers/web/search-engines.js';
import { createWebServices } from '../../src/providers/web/web-services.js';
import { assertNoPageErrors, launchBrowser } from '../support/browser.js';
import { openChat, send, waitForReplyEnd } from '../support/chat-page.js';
import { standinHost, startWebStandin } from '../support/web-standin.js';

let browser: Browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

test('what does this page say: the page is read, its card names it, the answer cites its address as a safe link', async (t) => {
  const pages = await startWebStandin();
  t.after(() => pages.close());
  const web = createWebServices({ enabled: true, addresses: { allowHosts: [standinHost] }, engine: searxngEngine(`http://127.0.0.1:${pages.port}`), resolver: pages.resolver });
  t.after(() => web.close());
  const { page, test: app } = await openChat(t, browser, { app: { dependencies: { toolServices: { web } } } });
  const address = `${pages.origin}/article`;
  app.standin.enqueue({ content: `[TOOL:read_web_page]${address}[/TOOL]` }, { content: `Volunteers counted more hedgehogs this spring, the first rise in a decade. Source: [${address}](${address})` });

  await send(page, `What does this page say? ${address}`);
  await page.locator('.tool-call-card[data-tool="read_web_page"][data-status="done"]').waitFor();
  assert.equal(await waitForReplyEnd(page), 'complete');
  assert.equal(await page.locator('.tool-call-card .tool-call-summary').innerText(), 'Read a web page — “Hedgehogs return to city gardens”');

  const citation = page.locator('.chat-message-assistant .chat-message-body a').last();
  assert.equal(await citation.getAttribute('href'), address);
  assert.equal(await citation.getAttribute('target'), '_blank');
  assert.match((await citation.getAttribute('rel')) ?? '', /noopener/);
  assert.match((await citation.getAttribute('rel')) ?? '', /noreferrer/);
  assert.match(await page.locator('.chat-message-assistant').last().innerText(), /first rise in a decade/);

  // The page's words are one tap away, as text.
  await page.locator('.tool-call-card .tool-call-details > summary').click();
  assert.match(await page.locator('.tool-call-card .tool-call-result').innerText(), /^Title: Hedgehogs return to city gardens\nAddress: http:\/\/news\.example:\d+\/article\n/);
  assertNoPageErrors(page);
});
