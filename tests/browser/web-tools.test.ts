/**
 * The web tools in a real Chromium: "what does this page say" → read_web_page on the local web
 * stand-in → an answer citing the address, as a link that opens in a new tab without a referrer.
 * The cards link the pages found and read the same way, live and after a reload, as 44 px rows
 * on a phone, and pass axe in light and dark.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { searxngEngine } from '../../src/providers/web/search-engines.js';
import { createWebServices } from '../../src/providers/web/web-services.js';
import { assertNoPageErrors, launchBrowser, phone } from '../support/browser.js';
import { openChat, send, waitForReplyEnd } from '../support/chat-page.js';
import { standinHost, startWebStandin } from '../support/web-standin.js';

let browser: Browser;

/** Each link on the card of the named tool: its address, where it opens, and what it says. */
function cardLinks(page: Page, tool: string) {
  return page.locator(`.tool-call-card[data-tool="${tool}"] a.tool-call-link`).evaluateAll((links) =>
    links.map((link) => ({ href: link.getAttribute('href'), target: link.getAttribute('target'), rel: link.getAttribute('rel'), text: (link as HTMLElement).innerText.replace(/\s+/g, ' ').trim() })),
  );
}

const screens = process.env.HEARTH_SCREENS;

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
  // The first page read starts the reader's worker (under the sources, with tsx's loader): seconds on a busy machine.
  await page.locator('.tool-call-card[data-tool="read_web_page"][data-status="done"]').waitFor({ timeout: 30_000 });
  assert.equal(await waitForReplyEnd(page), 'complete');
  assert.equal(await page.locator('.tool-call-card .tool-call-summary').innerText(), 'Read a web page — “Hedgehogs return to city gardens”');

  const citation = page.locator('.chat-message-assistant .chat-message-body a').last();
  assert.equal(await citation.getAttribute('href'), address);
  assert.equal(await citation.getAttribute('target'), '_blank');
  assert.match((await citation.getAttribute('rel')) ?? '', /noopener/);
  assert.match((await citation.getAttribute('rel')) ?? '', /noreferrer/);
  assert.match(await page.locator('.chat-message-assistant').last().innerText(), /first rise in a decade/);

  // The card links the page it read, by its title, the same safe way.
  assert.deepEqual(await cardLinks(page, 'read_web_page'), [{ href: address, target: '_blank', rel: 'noopener noreferrer', text: `Hedgehogs return to city gardens ${new URL(address).host}` }]);

  // The page's words are one tap away, as text.
  await page.locator('.tool-call-card .tool-call-details > summary').click();
  assert.match(await page.locator('.tool-call-card .tool-call-result').innerText(), /^Title: Hedgehogs return to city gardens\nAddress: http:\/\/news\.example:\d+\/article\n/);
  assertNoPageErrors(page);
});

for (const colorScheme of ['light', 'dark'] as const) {
  test(`${colorScheme}, on a phone: search then read — both cards link their pages, 44 px tall, the same after a reload, and axe finds nothing`, async (t) => {
    const pages = await startWebStandin();
    t.after(() => pages.close());
    const web = createWebServices({ enabled: true, addresses: { allowHosts: [standinHost] }, engine: searxngEngine(`http://127.0.0.1:${pages.port}`), resolver: pages.resolver });
    t.after(() => web.close());
    const { page, test: app } = await openChat(t, browser, { app: { dependencies: { toolServices: { web } } }, context: phone({ colorScheme }) });
    const address = `${pages.origin}/article`;
    app.standin.enqueue({ content: '[TOOL:web_search]hedgehogs in gardens[/TOOL]' }, { content: `[TOOL:read_web_page]${address}[/TOOL]` }, { content: `Hedgehog numbers rose this spring (${address}).` });

    await send(page, 'Find something about hedgehogs in gardens and read it');
    await page.locator('.tool-call-card[data-tool="read_web_page"][data-status="done"]').waitFor();
    await page.locator('.chat-message-assistant', { hasText: 'rose this spring' }).waitFor();
    assert.equal(await waitForReplyEnd(page), 'complete');
    const searched = [
      { href: 'https://hedgehogs.example/highways', target: '_blank', rel: 'noopener noreferrer', text: 'Hedgehog highways – a guide hedgehogs.example' },
      { href: 'https://count.example/2026', target: '_blank', rel: 'noopener noreferrer', text: 'Counting hedgehogs count.example' },
    ];
    const read = [{ href: address, target: '_blank', rel: 'noopener noreferrer', text: `Hedgehogs return to city gardens ${new URL(address).host}` }];
    assert.deepEqual(await cardLinks(page, 'web_search'), searched, 'live, over the socket');
    assert.deepEqual(await cardLinks(page, 'read_web_page'), read);
    for (const box of await page.locator('a.tool-call-link').evaluateAll((links) => links.map((link) => link.getBoundingClientRect().toJSON() as DOMRect))) {
      assert.ok(box.height >= 44, `each link is a 44 px tap target (${box.width}×${box.height})`);
    }
    const axe = await new AxeBuilder({ page }).include('.tool-calls').withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
    assert.deepEqual(axe.violations.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`), []);
    if (screens) await page.locator('.tool-calls').first().screenshot({ path: `${screens}/web-cards-${colorScheme}.png` });

    await page.reload();
    await page.locator('.tool-call-card[data-tool="read_web_page"][data-status="done"]').waitFor();
    assert.deepEqual(await cardLinks(page, 'web_search'), searched, 'the same after a reload');
    assert.deepEqual(await cardLinks(page, 'read_web_page'), read);
    if (screens) await page.screenshot({ path: `${screens}/web-cards-${colorScheme}-page.png` });
    assertNoPageErrors(page);
  });
}
