/**
 * The chat on a phone (390x844, touch): the header's title and new-chat button, renaming, message
 * times, "jump to latest", opening a search result at its message, example prompts and tool cards.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Download, Page } from 'playwright-core';
import { createConversationStore } from '../../src/storage/conversation-store.js';
import { assertNoPageErrors, launchBrowser, phone } from '../support/browser.js';
import { lastAssistant, normalize, openChat, send, waitFor, waitForReplyEnd, waitForSocket } from '../support/chat-page.js';
import { openChatSocket } from '../support/test-app.js';
import { createTestRegistry } from '../support/test-tools.js';

let browser: Browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

const shots = process.env.HEARTH_SCREENSHOTS;
// Not the server's zone: times must come out in the browser's (install.js tells the server in a cookie).
const phoneInTokyo = phone({ locale: 'en-GB', timezoneId: 'Asia/Tokyo' });
const tokyoOffsetMs = 9 * 3_600_000;

const distanceFromBottom = () => {
  const thread = document.getElementById('chat-thread')!;
  return thread.scrollHeight - thread.scrollTop - thread.clientHeight;
};

async function violationsOf(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  return results.violations.map((violation) => `${violation.id}: ${violation.help} — ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

/** Scrolls the thread to its top and waits until the page has handled the scroll event (chat.js stops following the end). */
function scrollThreadToTop(page: Page): Promise<void> {
  return page.evaluate(() => new Promise<void>((resolve) => {
    const thread = document.getElementById('chat-thread')!;
    if (thread.scrollTop === 0) return resolve();
    thread.addEventListener('scroll', () => setTimeout(resolve, 0), { once: true });
    thread.scrollTop = 0;
  }));
}

async function isInViewport(page: Page, selector: string): Promise<boolean> {
  const box = await page.locator(selector).boundingBox();
  return Boolean(box && box.y >= 0 && box.y + Math.min(box.height, 40) <= 844 && box.x >= 0 && box.x + box.width <= 390);
}

test('phone header: the title, one-tap new chat, renaming; example prompts fill the input', async (t) => {
  const { page, test: app } = await openChat(t, browser, { context: phoneInTokyo });

  // An empty chat offers examples (no mail or calendar: no Google account is connected); a tap fills the input and sends nothing.
  const examples = page.locator('#chat-empty .chat-example');
  assert.ok((await examples.count()) >= 4);
  assert.deepEqual(
    (await examples.allInnerTexts()).slice(0, 4),
    ['Remember that I…', 'What is 17% of 2,340?', 'What time is it in Tokyo?', 'Explain simply:…'],
  );
  if (shots) await page.screenshot({ path: `${shots}/header-empty-chat.png` });
  await page.locator('.chat-example', { hasText: 'Remember that I' }).tap();
  assert.equal(await page.locator('#chat-input').inputValue(), 'Remember that I ');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'chat-input');
  await page.locator('.chat-example', { hasText: '17%' }).tap();
  assert.equal(await page.locator('#chat-input').inputValue(), 'What is 17% of 2,340?');
  assert.equal(await page.locator('#chat-thread .chat-message').count(), 0, 'nothing was sent');
  assert.equal(app.standin.requests.length, 0);

  // The header: the menu, the chat's title (the page's one h1) and a new-chat button, all on screen.
  assert.equal(await page.locator('h1').count(), 1);
  assert.equal(normalize(await page.locator('h1#chat-title').innerText()), 'New chat');
  for (const selector of ['#sidebar-open', '#chat-title', '#header-new-chat']) assert.ok(await isInViewport(page, selector), `${selector} is on screen`);
  assert.equal(await page.locator('#header-new-chat').getAttribute('aria-label'), 'New chat');

  app.standin.enqueue({ content: 'It is 397.8.' });
  await send(page, 'What is 17% of 2,340? Please show the working in a long sentence that will not fit');
  await waitForReplyEnd(page);
  // The first message names the chat; a long title stays on one line, cut with an ellipsis.
  await waitFor(page, () => !(document.getElementById('chat-title-button') as HTMLButtonElement).disabled);
  const title = page.locator('#chat-title-text');
  assert.match(await title.innerText(), /^What is 17% of 2,340\?/);
  const fits = await title.evaluate((element) => ({ overflow: getComputedStyle(element).textOverflow, cut: element.scrollWidth > element.clientWidth, height: element.getBoundingClientRect().height }));
  assert.equal(fits.overflow, 'ellipsis');
  assert.ok(fits.cut, 'the long title is cut');
  assert.ok(fits.height < 30, 'on one line');

  // Rename: tap the title, type, Enter.
  const conversationId = await page.locator('#conversation-id').inputValue();
  await page.locator('#chat-title-button').tap();
  const input = page.locator('#chat-title-input');
  await input.waitFor({ state: 'visible' });
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'chat-title-input');
  await input.fill('  Budget   maths ');
  await input.press('Enter');
  await page.locator('#chat-title-form').waitFor({ state: 'hidden' });
  assert.equal(await title.innerText(), 'Budget maths');
  assert.equal(await page.title(), 'Budget maths · Hearth');
  assert.equal(await page.locator(`#history-item-${conversationId} .history-title`).innerText(), 'Budget maths');

  // Escape cancels; an empty title is refused with a message and nothing changes.
  await page.locator('#chat-title-button').tap();
  await input.fill('Something else');
  await input.press('Escape');
  assert.ok(await page.locator('#chat-title-form').isHidden());
  assert.equal(await title.innerText(), 'Budget maths');
  await page.locator('#chat-title-button').tap();
  await input.evaluate((element: HTMLInputElement) => {
    element.required = false; // what an old browser would send
    element.value = '   ';
  });
  await page.locator('#chat-title-save').tap();
  await page.locator('#chat-title-error').waitFor({ state: 'visible' });
  assert.equal(await page.locator('#chat-title-error').innerText(), 'The title cannot be empty.');
  await page.locator('#chat-title-cancel').tap();

  // The name is kept: after a reload, and in the list.
  await page.reload();
  await waitForSocket(page);
  assert.equal(await page.locator('#chat-title-text').innerText(), 'Budget maths');
  if (shots) await page.screenshot({ path: `${shots}/header-renamed.png` });

  // The header's new chat opens an empty chat in one tap.
  await Promise.all([page.waitForURL((url) => url.pathname === '/'), page.locator('#header-new-chat').tap()]);
  assert.equal(await page.locator('#chat-thread .chat-message').count(), 0);
  // The one error is the refused empty title, answered 400 on purpose.
  assertNoPageErrors(page, [/400 \(Bad Request\).*\/title/]);
});

test('message times come written in the browser time zone, also for new messages over the socket, and show the seconds on tap', async (t) => {
  const { page, test: app, baseUrl } = await openChat(t, browser, { context: phoneInTokyo });
  const tokyoToday = new Date(Date.now() + tokyoOffsetMs);
  // Yesterday at 14:05 in Tokyo.
  const yesterday = Date.UTC(tokyoToday.getUTCFullYear(), tokyoToday.getUTCMonth(), tokyoToday.getUTCDate() - 1, 14, 5) - tokyoOffsetMs;
  const store = createConversationStore(app.database, () => yesterday);
  const conversation = store.createConversation('Times', 'llama3.2:latest');
  const old = store.addMessage(conversation.id, 'user', 'Sent yesterday');
  const tokyoClock = new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Tokyo', hour: '2-digit', minute: '2-digit' });
  const tokyoDay = new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Tokyo', dateStyle: 'short' });
  /** How a message written at `moment` reads in Tokyo now: its clock, "yesterday" before it when Tokyo's midnight passed since. */
  const shownAt = (moment: number) => `${tokyoDay.format(moment) === tokyoDay.format(Date.now()) ? '' : 'yesterday '}${tokyoClock.format(moment)}`;

  // Scripts off: the server wrote the time (the page said its zone in a cookie when openChat loaded it).
  const plain = await page.context().browser()!.newContext({ ...phoneInTokyo, javaScriptEnabled: false, storageState: await page.context().storageState() });
  t.after(() => plain.close());
  const plainPage = await plain.newPage();
  await plainPage.goto(`${baseUrl}/c/${conversation.id}`);
  assert.equal(normalize(await plainPage.locator(`#message-${old.id} .chat-message-time`).innerText()), 'yesterday 14:05');

  await page.goto(`${baseUrl}/c/${conversation.id}`);
  await waitForSocket(page);
  const oldTime = page.locator(`#message-${old.id} .chat-message-time`);
  assert.equal(normalize(await oldTime.innerText()), 'yesterday 14:05');
  assert.equal(await oldTime.locator('time').getAttribute('datetime'), new Date(yesterday).toISOString());

  // Tap: the whole date, to the second (also in the tooltip); tap again: as before.
  if (shots) await page.screenshot({ path: `${shots}/message-times.png` });
  await oldTime.locator('summary').tap();
  if (shots) for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await page.screenshot({ path: `${shots}/message-time-exact-${colorScheme}.png` });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  const exact = normalize(await oldTime.innerText());
  assert.match(exact, /14:05:00/);
  assert.match(exact, new RegExp(String(new Date(yesterday + tokyoOffsetMs).getUTCFullYear())));
  assert.equal(await oldTime.getAttribute('open'), '');
  assert.equal(normalize(await oldTime.locator('time').getAttribute('title')), exact);
  await oldTime.locator('summary').tap();
  assert.equal(normalize(await oldTime.innerText()), 'yesterday 14:05');

  // Sent now: the question and the reply come over the socket with Tokyo's clock on them.
  const sentFrom = Date.now();
  app.standin.enqueue({ content: 'Here now.' });
  await send(page, 'What time is it?');
  await waitForReplyEnd(page);
  const sentTo = Date.now();
  const possible = new Set([shownAt(sentFrom), shownAt(sentTo)]);
  for (const time of [page.locator('#chat-thread .chat-message-user .chat-message-time').last(), lastAssistant(page).locator('.chat-message-time')]) {
    const shown = normalize(await time.innerText());
    assert.ok(possible.has(shown), `${shown} is one of ${[...possible].join(', ')}`);
  }
  assertNoPageErrors(page);
});

test('jump to latest shows only when scrolled up while a reply streams, and takes you down', async (t) => {
  const { page, test: app, baseUrl } = await openChat(t, browser, { context: phoneInTokyo });
  const store = createConversationStore(app.database);
  const conversation = store.createConversation('A long chat', 'llama3.2:latest');
  for (let index = 1; index <= 30; index++) {
    const message = store.addMessage(conversation.id, index % 2 ? 'user' : 'assistant', `Message ${index}: ${'a few words to fill the screen '.repeat(6)}`);
    if (index % 2 === 0) store.updateMessage(message.id, { html: `<p>Message ${index}: ${'a few words to fill the screen '.repeat(6)}</p>` });
  }
  await page.goto(`${baseUrl}/c/${conversation.id}`);
  await waitForSocket(page);
  const jump = page.locator('#jump-to-latest');

  // Not streaming: scrolled up or not, no button.
  await scrollThreadToTop(page);
  assert.ok(await jump.isHidden());

  // A reply that keeps streaming (the stand-in stalls after a few words).
  app.standin.enqueue({ content: 'The beginning of a long answer that goes on and on', hangAfterChunks: 4 });
  await send(page, 'Tell me a long story');
  await waitFor(page, () => document.body.classList.contains('is-streaming'));
  await waitFor(page, () => /beginning/.test(document.querySelector('.chat-message-streaming .chat-message-body')?.textContent ?? ''));
  assert.ok((await page.evaluate(distanceFromBottom)) < 2, 'sending took the thread to its end');
  assert.ok(await jump.isHidden(), 'at the bottom: no button');

  // Scrolled up while it streams: the button appears above the input, on screen.
  await scrollThreadToTop(page);
  await jump.waitFor({ state: 'visible' });
  assert.ok(await isInViewport(page, '#jump-to-latest'));
  const jumpBox = (await jump.boundingBox())!;
  const formBox = (await page.locator('#chat-form').boundingBox())!;
  assert.ok(jumpBox.y + jumpBox.height <= formBox.y, 'it floats above the input');
  if (shots) await page.screenshot({ path: `${shots}/header-jump-to-latest.png` });

  await jump.tap();
  await jump.waitFor({ state: 'hidden' });
  assert.ok((await page.evaluate(distanceFromBottom)) < 2, 'the tap took the thread to its end');
  await page.locator('#chat-stop').tap();
  assert.equal(await waitForReplyEnd(page), 'stopped');
  // Done streaming: scrolling up shows no button.
  await scrollThreadToTop(page);
  assert.ok(await jump.isHidden());

  // A message sent from another device while this one reads further up: the button offers it.
  const cookies = (await page.context().cookies()).map((cookie) => `${cookie.name}=${cookie.value}`).join('; ');
  const otherDevice = await openChatSocket(baseUrl, cookies, String(conversation.id));
  t.after(() => otherDevice.close());
  app.standin.enqueue({ status: 500, error: 'the model fell over' });
  otherDevice.send({ type: 'send', message: 'Sent from my laptop', conversationId: String(conversation.id), model: '' });
  await waitFor(page, () => /Sent from my laptop/.test(document.getElementById('chat-thread')?.textContent ?? ''));
  await waitFor(page, () => !document.body.classList.contains('is-streaming'));
  await jump.waitFor({ state: 'visible' });
  assert.ok((await page.evaluate(distanceFromBottom)) > 80, 'the view did not move');
  await jump.tap();
  await jump.waitFor({ state: 'hidden' });
  assert.ok((await page.evaluate(distanceFromBottom)) < 2);
  assertNoPageErrors(page);
});

test('search opens a 300-message chat at the match, highlighted, with the words marked', async (t) => {
  const { page, test: app, baseUrl } = await openChat(t, browser, { context: phoneInTokyo });
  const store = createConversationStore(app.database);
  const conversation = store.createConversation('Three hundred messages', 'llama3.2:latest');
  const ids: number[] = [];
  app.database.transaction(() => {
    for (let index = 1; index <= 300; index++) {
      const text = index === 60 ? 'We planned the trip: pack the Snorkelling gear and the snorkels, then <b>leave</b>.' : `Message ${index} about ordinary things.`;
      const message = store.addMessage(conversation.id, index % 2 ? 'user' : 'assistant', text);
      if (index % 2 === 0) store.updateMessage(message.id, { html: `<p>${text.replace(/</g, '&lt;')}</p>` });
      ids.push(message.id);
    }
  })();
  const target = ids[59]!;

  // Another chat whose only match sits at the end of a long message of long words.
  const other = store.createConversation('Geology notes', 'llama3.2:latest');
  store.addMessage(other.id, 'user', `${'extraordinarily-hyphenated internationalization considerations '.repeat(40)}and zanzibarite at the very end`);

  await page.locator('#sidebar-open').tap();
  await page.locator('#history-search').fill('zanzibarite');
  const lateMark = page.locator('.history-item .history-snippet mark');
  await lateMark.waitFor();
  // The sidebar shows the match, not only the words before it.
  const markBox = (await lateMark.boundingBox())!;
  const snippetBox = (await page.locator('.history-item .history-snippet').boundingBox())!;
  const sidebarBox = (await page.locator('#sidebar').boundingBox())!;
  assert.ok(markBox.x + markBox.width <= Math.min(snippetBox.x + snippetBox.width, sidebarBox.x + sidebarBox.width) + 1, 'the match is not cut off on the right');
  assert.ok(markBox.y + markBox.height <= snippetBox.y + snippetBox.height + 1, 'the match is within the shown lines');
  if (shots) await page.screenshot({ path: `${shots}/header-search-snippet.png` });

  await page.locator('#history-search').fill('snorkel');
  await page.locator('.history-item .history-snippet mark', { hasText: /snorkel/i }).first().waitFor();
  const result = page.locator('#history-list .history-item .history-link').first();
  assert.match(await result.getAttribute('href') ?? '', new RegExp(`^/c/${conversation.id}\\?at=${target}&q=snorkel#message-${target}$`));
  await Promise.all([page.waitForURL((url) => url.searchParams.get('at') === String(target)), result.tap()]);
  await waitForSocket(page);

  const message = page.locator(`#message-${target}`);
  await message.waitFor({ state: 'visible' });
  assert.ok(await message.evaluate((element) => element.classList.contains('chat-message-highlight')));
  assert.equal(await message.evaluate((element) => getComputedStyle(element).animationName), 'message-highlight');
  assert.deepEqual(await message.locator('mark.search-mark').allInnerTexts(), ['Snorkelling', 'snorkels']);
  // Only text was wrapped: the message's own text (with its escaped tag) is unchanged.
  assert.equal(normalize(await message.locator('.chat-message-body').innerText()), 'We planned the trip: pack the Snorkelling gear and the snorkels, then <b>leave</b>.');
  assert.equal(await message.locator('.chat-message-body b').count(), 0);
  const box = (await message.boundingBox())!;
  assert.ok(box.y > 0 && box.y < 844, `the match is on screen (y ${box.y})`);

  // A window, not the whole chat: nothing newer was poured in by the socket's catch-up.
  const shownIds = () => [...document.querySelectorAll('#chat-thread article.chat-message')].map((element) => Number(element.id.slice(8)));
  const shown = await page.evaluate(shownIds);
  assert.equal(shown.length, 40);
  assert.ok(!shown.includes(ids[299]!));
  assert.equal(await page.locator('.load-earlier').count(), 1);
  assert.equal(await page.locator('.load-later').count(), 1);
  assert.ok(await page.locator('#jump-to-latest').isHidden());
  if (shots) await page.screenshot({ path: `${shots}/header-search-match.png` });

  // Scrolling to the end of the window loads the next page below, in order.
  await page.evaluate(() => { const thread = document.getElementById('chat-thread')!; thread.scrollTop = thread.scrollHeight; });
  await waitFor(page, () => document.querySelectorAll('#chat-thread article.chat-message').length === 80);
  const more = await page.evaluate(shownIds);
  assert.deepEqual(more, ids.slice(ids.indexOf(shown[0]!), ids.indexOf(shown[0]!) + 80));

  // Sending from a window posts the form and opens the chat at its newest end, with the new message.
  app.standin.enqueue({ content: 'Noted.' });
  await page.locator('#chat-input').fill('One more thing');
  await Promise.all([page.waitForURL((url) => url.pathname === `/c/${conversation.id}` && !url.search), page.locator('#chat-send').tap()]);
  await waitForSocket(page);
  await waitFor(page, () => /One more thing/.test(document.querySelector('#chat-thread')?.textContent ?? ''));
  assert.equal(await page.locator('.load-later').count(), 0);
  assert.equal(await waitForReplyEnd(page), 'complete');
  assert.match(await lastAssistant(page).innerText(), /Noted\./);

  // Back at the match: a message from another device is not added after the gap; the button offers it.
  await page.goto(`${baseUrl}/c/${conversation.id}?at=${target}&q=snorkel#message-${target}`);
  await waitForSocket(page);
  const before = await page.evaluate(shownIds);
  const scrollBefore = await page.evaluate(() => {
    // The page's own socket, not the other device's, tells when this page has seen the reply end.
    document.addEventListener('htmx:ws:before:message:incoming', (event) => {
      const data = (event as CustomEvent<{ message: { data: unknown } }>).detail.message.data;
      if (typeof data === 'string' && data.startsWith('{"event":"reply-finished"')) document.body.dataset.testReplyFinished = 'yes';
    });
    return document.getElementById('chat-thread')!.scrollTop;
  });
  const cookies = (await page.context().cookies()).map((cookie) => `${cookie.name}=${cookie.value}`).join('; ');
  const otherDevice = await openChatSocket(baseUrl, cookies, String(conversation.id));
  t.after(() => otherDevice.close());
  app.standin.enqueue({ content: 'Answered on the laptop.' });
  otherDevice.send({ type: 'send', message: 'Sent from my laptop', conversationId: String(conversation.id), model: '' });
  const jump = page.locator('#jump-to-latest');
  await jump.waitFor({ state: 'visible' });
  await otherDevice.waitFor((message) => message.event === 'reply-finished');
  await waitFor(page, () => document.body.dataset.testReplyFinished === 'yes');
  // Whatever the page does with those messages happens in the next frames: let two pass.
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  assert.equal(await page.evaluate(() => document.getElementById('chat-thread')!.scrollTop), scrollBefore, 'the view stayed at the match');
  assert.equal(await page.locator('.load-later').count(), 1);
  assert.deepEqual(await page.evaluate(shownIds), before, 'nothing was added below the window');
  await Promise.all([page.waitForURL((url) => url.pathname === `/c/${conversation.id}` && !url.search), jump.tap()]);
  await waitForSocket(page);
  assert.match(await lastAssistant(page).innerText(), /Answered on the laptop\./);
  assert.match(await page.locator('#chat-thread .chat-message-user').last().innerText(), /Sent from my laptop/);
  assertNoPageErrors(page);
});

test('tool cards say what happened in words, with the details one tap away', async (t) => {
  const { registry } = createTestRegistry();
  const { page, test: app } = await openChat(t, browser, { context: phoneInTokyo, app: { dependencies: { registry } } });
  app.standin.enqueue(
    { content: 'Let me work it out. [TOOL:calculator]0.17 * 2340[/TOOL]' },
    { content: 'Now the note. [TOOL:send_note]buy <b>milk</b>[/TOOL]' },
    { content: 'Done.' },
  );
  await send(page, 'What is 17% of 2,340? Then send a note.');
  const calculator = page.locator('.tool-call-card[data-tool="calculator"][data-status="done"]');
  await calculator.waitFor();
  assert.equal(await calculator.locator('.tool-call-summary').innerText(), 'Used the calculator — 0.17 * 2340 = 397.8');
  const approval = page.locator('.tool-call-card[data-tool="send_note"][data-status="awaiting-approval"]');
  await approval.waitFor();
  assert.equal(await approval.locator('.tool-call-summary').innerText(), 'Wants to use send_note — allow?');
  assert.equal(await approval.locator('.tool-call-params').innerText(), 'buy <b>milk</b>', 'what it would do is shown before asking, as text');
  if (shots) await page.screenshot({ path: `${shots}/header-tool-cards.png` });
  await approval.locator('button.tool-deny').tap();
  const denied = page.locator('.tool-call-card[data-tool="send_note"][data-status="denied"]');
  await denied.waitFor();
  assert.equal(await denied.locator('.tool-call-summary').innerText(), 'Not run — you said no');
  await waitForReplyEnd(page);

  // The tool's name, input and result are behind Details, escaped.
  const result = calculator.locator('.tool-call-result');
  assert.ok(await result.isHidden());
  await calculator.locator('.tool-call-details > summary').tap();
  await result.waitFor({ state: 'visible' });
  assert.match(await result.innerText(), /0\.17 \* 2340 = 397\.8/);
  assert.equal(await calculator.locator('.tool-call-name code').innerText(), 'calculator');
  await denied.locator('.tool-call-details > summary').tap();
  assert.equal(await denied.locator('.tool-call-params').innerText(), 'buy <b>milk</b>');
  assert.equal(await denied.locator('.tool-call-params b').count(), 0);
  assertNoPageErrors(page);
});

test('axe finds nothing on the empty chat with examples, the rename field, and a chat opened at a search match', async (t) => {
  const { page, test: app, baseUrl } = await openChat(t, browser, { context: phoneInTokyo });
  assert.deepEqual(await violationsOf(page), [], 'empty chat with example prompts');
  const store = createConversationStore(app.database);
  const conversation = store.createConversation('A chat with a title long enough to be cut on a phone screen', 'llama3.2:latest');
  const ids = Array.from({ length: 120 }, (_, index) => store.addMessage(conversation.id, 'user', index === 30 ? 'The kettle is descaled.' : `Message ${index}`).id);
  await page.goto(`${baseUrl}/c/${conversation.id}?at=${ids[30]}&q=kettle#message-${ids[30]}`);
  await waitForSocket(page);
  await page.locator('mark.search-mark').waitFor();
  assert.equal(await page.locator('.load-later').count(), 1);
  assert.deepEqual(await violationsOf(page), [], 'a chat opened at a match');
  await page.locator('#chat-title-button').tap();
  await page.locator('#chat-title-input').waitFor({ state: 'visible' });
  assert.deepEqual(await violationsOf(page), [], 'the rename field');
  if (shots) await page.screenshot({ path: `${shots}/header-rename-field.png` });
  assertNoPageErrors(page);
});

async function textOf(download: Download): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of await download.createReadStream()) chunks.push(chunk as Buffer);
  await download.delete();
  return Buffer.concat(chunks).toString('utf8');
}

for (const colorScheme of ['light', 'dark'] as const) {
  test(`the header is one row at 390x844 (${colorScheme}); its ⋯ menu opens by tap and keyboard, exports, renames and deletes`, async (t) => {
    const { page, test: app, baseUrl } = await openChat(t, browser, { context: { ...phoneInTokyo, colorScheme } });
    const store = createConversationStore(app.database);
    const conversation = store.createConversation('Planning the summer trip to the Lake District', 'llama3.2:latest');
    store.addMessage(conversation.id, 'user', 'Where should we stay near Keswick?');
    await page.goto(`${baseUrl}/c/${conversation.id}`);
    await waitForSocket(page);

    // One row, at most 60 px; every control a 44 px target, side by side, on screen.
    const header = (await page.locator('.chat-header').boundingBox())!;
    assert.ok(header.height <= 60, `the header is ${header.height} px tall`);
    const controls = ['#sidebar-open', '#chat-title-button', 'select#model-select', '#header-new-chat', '#chat-menu-button'];
    const boxes = await Promise.all(controls.map(async (selector) => (await page.locator(selector).boundingBox())!));
    boxes.forEach((box, index) => {
      assert.ok(box.height >= 44 && box.width >= 44, `${controls[index]} is ${box.width}x${box.height}`);
      assert.ok(box.x >= 0 && box.x + box.width <= 390 && box.y >= header.y && box.y + box.height <= header.y + header.height, `${controls[index]} is in the header row`);
      if (index > 0) assert.ok(box.x >= boxes[index - 1]!.x + boxes[index - 1]!.width, `${controls[index]} is right of ${controls[index - 1]}`);
    });
    assert.equal(await page.locator('.chat-header .button:not(.visually-hidden)').filter({ hasText: /Export|JSON/ }).count(), 0, 'the downloads are in the menu');
    if (shots) await page.screenshot({ path: `${shots}/header-${colorScheme}-menu-closed.png`, caret: 'initial' });

    // Tap opens the menu under the header; its entries are 44 px targets; a tap outside closes it.
    const menu = page.locator('#chat-menu');
    const menuButton = page.locator('#chat-menu-button');
    const isOpen = () => menu.evaluate((element) => element.matches(':popover-open'));
    await menuButton.tap();
    await menu.waitFor({ state: 'visible' });
    assert.deepEqual(await menu.locator('.chat-menu-item').allInnerTexts(), ['Rename', 'Export Markdown', 'Export JSON', 'Delete this chat']);
    for (const box of await menu.locator('.chat-menu-item').evaluateAll((items) => items.map((item) => item.getBoundingClientRect().toJSON() as DOMRect))) {
      assert.ok(box.height >= 44 && box.y >= header.y + header.height - 1 && box.x + box.width <= 390, `a menu entry at ${JSON.stringify(box)}`);
    }
    assert.deepEqual(await violationsOf(page), [], `the chat with its menu open (${colorScheme})`);
    if (shots) await page.screenshot({ path: `${shots}/header-${colorScheme}-menu-open.png`, caret: 'initial' });
    await page.touchscreen.tap(200, 600);
    await menu.waitFor({ state: 'hidden' });

    // Keyboard: Enter opens it, Tab walks into it, Escape closes it and gives the focus back.
    await menuButton.focus();
    await page.keyboard.press('Enter');
    await menu.waitFor({ state: 'visible' });
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'chat-menu-rename');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'export-markdown');
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'hidden' });
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'chat-menu-button');

    // Both exports download this conversation.
    await menuButton.tap();
    const [markdown] = await Promise.all([page.waitForEvent('download'), page.locator('#export-markdown').tap()]);
    assert.match(markdown.suggestedFilename(), /\.md$/);
    assert.match(await textOf(markdown), /Where should we stay near Keswick\?/);
    if (!(await isOpen())) await menuButton.tap();
    const [json] = await Promise.all([page.waitForEvent('download'), page.locator('#export-json').tap()]);
    assert.match(json.suggestedFilename(), /\.json$/);
    assert.equal(JSON.parse(await textOf(json)).conversation.title, 'Planning the summer trip to the Lake District');
    if (await isOpen()) await page.keyboard.press('Escape');

    // Rename from the menu: the menu closes, the field opens with the name selected.
    await menuButton.tap();
    await page.locator('#chat-menu-rename').tap();
    await menu.waitFor({ state: 'hidden' });
    const input = page.locator('#chat-title-input');
    await input.waitFor({ state: 'visible' });
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'chat-title-input');
    assert.equal(await input.evaluate((element: HTMLInputElement) => element.value.slice(element.selectionStart!, element.selectionEnd!)), 'Planning the summer trip to the Lake District');
    if (shots) await page.screenshot({ path: `${shots}/header-${colorScheme}-rename.png`, caret: 'initial' });
    await input.fill('Lake trip');
    await input.press('Enter');
    await page.locator('#chat-title-form').waitFor({ state: 'hidden' });
    assert.equal(await page.locator('#chat-title-text').innerText(), 'Lake trip');
    assert.equal(store.getConversation(conversation.id)!.title, 'Lake trip');

    // Delete (no confirm: it can be undone): the chat is gone from the list and the page is a new chat
    // offering Undo.
    await menuButton.tap();
    await Promise.all([page.waitForURL((url) => url.pathname === '/'), page.locator('#chat-delete').tap()]);
    await page.getByRole('button', { name: 'Undo' }).waitFor();
    assert.equal(await page.locator(`#history-item-${conversation.id}`).count(), 0);
    assert.equal(normalize(await page.locator('h1#chat-title').innerText()), 'New chat');
    assert.equal(await page.locator('#chat-menu-button').count(), 0, 'a new chat has no menu yet');
    assertNoPageErrors(page);
  });
}

test('a new chat gets its ⋯ menu with its first message, and deleting from it opens a new chat', async (t) => {
  const { page, test: app } = await openChat(t, browser, { context: phoneInTokyo });
  assert.equal(await page.locator('#chat-menu-button').count(), 0);
  app.standin.enqueue({ content: 'Hello there.' });
  await send(page, 'Say hello');
  await waitForReplyEnd(page);
  await page.locator('#chat-menu-button').waitFor({ state: 'visible' });
  const conversationId = Number(await page.locator('#conversation-id').inputValue());
  assert.match(await page.locator('#export-json').getAttribute('href') ?? '', new RegExp(`^/c/${conversationId}/export\\.json$`));
  await page.locator('#chat-menu-button').tap();
  await Promise.all([page.waitForURL((url) => url.pathname === '/'), page.locator('#chat-delete').tap()]);
  await waitForSocket(page);
  await page.getByRole('button', { name: 'Undo' }).waitFor();
  assert.equal(await page.locator(`#history-item-${conversationId}`).count(), 0);
  assert.equal(await page.locator('#chat-thread .chat-message').count(), 0);
  assertNoPageErrors(page);
});
