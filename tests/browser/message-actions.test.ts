/**
 * Message actions on a phone (390x844, touch): copy a reply and a code block (with and without
 * navigator.clipboard, as over plain HTTP on the LAN), edit a message and move between versions,
 * regenerate the last reply, and Retry a failed one.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { assertNoPageErrors, launchBrowser, loginInBrowser, newPage, phone } from '../support/browser.js';
import { lastAssistant, lastAssistantBody, normalize, openChat, send, trackSocket, waitFor, waitForReplyEnd, waitForSocket } from '../support/chat-page.js';
import { markdownRendererVersion } from '../../src/engine/markdown/markdown-renderer.js';
import { renderMarkdown } from '../../src/engine/markdown/render-markdown.js';
import { createConversationStore } from '../../src/storage/conversation-store.js';
import { buildTestApp, type TestApp } from '../support/test-app.js';
import { addNumberedLines } from '../support/numbered-lines.js';

let browser: Browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

const code = 'const ok = 1 < 2 && "quoted";\nconsole.log(ok);';
const reply = `Here is **some code**:\n\n\`\`\`js\n${code}\n\`\`\`\n\nThat is all.`;

/** Saves a screenshot for people to look at when HEARTH_SCREENSHOTS names a folder. */
async function screenshot(page: Page, name: string): Promise<void> {
  const folder = process.env.HEARTH_SCREENSHOTS;
  if (!folder) return;
  fs.mkdirSync(folder, { recursive: true });
  await page.screenshot({ path: `${folder}/${name}.png` });
}

async function assertTapTarget(locator: Locator, name: string): Promise<void> {
  assert.equal(await locator.isVisible(), true, `${name} is visible without hovering`);
  const box = (await locator.boundingBox())!;
  assert.ok(box.height >= 44 && box.width >= 44, `${name} is ${box.width}x${box.height}px`);
  assert.ok(box.x >= 0 && box.x + box.width <= 390, `${name} is on screen`);
  const label = (await locator.getAttribute('aria-label')) ?? normalize(await locator.textContent());
  assert.ok(label, `${name} has a name for screen readers`);
}

/**
 * A chat whose reply (with a code block) is already finished, opened in the page. Rendered here
 * rather than by the server's Markdown worker, whose time limit may turn it into plain text on a
 * loaded machine: what these tests look at is the page, not the worker.
 */
async function openSeededChat(testApp: TestApp, page: Page, baseUrl: string): Promise<void> {
  const store = createConversationStore(testApp.database);
  const conversation = store.createConversation('Show me code', 'llama3.2:latest');
  store.addMessage(conversation.id, 'user', 'Show me code');
  const answer = store.addMessage(conversation.id, 'assistant', reply, { model: 'llama3.2:latest' });
  store.updateMessage(answer.id, { html: renderMarkdown(reply), html_version: markdownRendererVersion });
  await page.goto(`${baseUrl}/c/${conversation.id}`);
  await waitForSocket(page);
}

const threadText = (page: Page) => page.locator('#chat-thread').innerText().then(normalize);
const userMessages = (page: Page) => page.locator('#chat-thread .chat-message-user');

test('phone: copy a reply and a code block with navigator.clipboard', async (t) => {
  const { test: testApp, page, baseUrl } = await openChat(t, browser, { context: phone() });
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
  await openSeededChat(testApp, page, baseUrl);

  const codeCopy = lastAssistantBody(page).locator('.code-block .code-copy');
  await codeCopy.waitFor();
  await assertTapTarget(codeCopy, 'the code copy button');
  assert.equal(await codeCopy.getAttribute('aria-label'), 'Copy js code');
  assert.equal(normalize(await lastAssistantBody(page).textContent()), normalize(`Here is some code:\n${code}\nThat is all.`), 'the button adds no text to the reply');
  await codeCopy.tap();
  await waitFor(page, () => document.querySelector('.code-copy')?.getAttribute('data-feedback') === 'Copied');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), code);

  const copyReply = lastAssistant(page).locator('.message-copy');
  await assertTapTarget(copyReply, 'Copy reply');
  await copyReply.tap();
  await waitFor(page, () => document.querySelector('.message-copy')?.getAttribute('data-feedback') === 'Copied');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), reply, 'the reply is copied as its Markdown');
  // Announced in the next frame (the live region is cleared first, so a second "Copied" is heard too).
  await waitFor(page, () => document.getElementById('chat-status')?.textContent === 'Copied');
  await screenshot(page, 'message-actions-copied');
  assertNoPageErrors(page);
});

test('phone: copy works over plain HTTP on the LAN, where navigator.clipboard does not exist', async (t) => {
  // A LAN name, not localhost: Chromium treats the page as not secure, as at http://<home-server>:8888.
  const lanBrowser = await launchBrowser({ extraArgs: ['--host-resolver-rules=MAP hearth-home.lan 127.0.0.1'] });
  t.after(() => lanBrowser.close());
  const testApp = await buildTestApp(t);
  const lanUrl = (await testApp.listen()).replace('127.0.0.1', 'hearth-home.lan');
  const { page } = await newPage(t, lanBrowser, phone());
  await trackSocket(page);
  // Records what each copy puts on the clipboard (the selected text of the helper textarea).
  await page.addInitScript(() => {
    const copied: string[] = [];
    (window as unknown as { __copied: string[] }).__copied = copied;
    document.addEventListener('copy', (event) => {
      const field = event.target as HTMLTextAreaElement;
      copied.push(field.value.slice(field.selectionStart, field.selectionEnd));
    });
  });
  await loginInBrowser(page, lanUrl);
  await waitForSocket(page);
  assert.deepEqual(await page.evaluate(() => [window.isSecureContext, typeof navigator.clipboard]), [false, 'undefined']);

  await openSeededChat(testApp, page, lanUrl);
  await lastAssistantBody(page).locator('.code-copy').tap();
  await waitFor(page, () => (window as unknown as { __copied: string[] }).__copied.length === 1);
  await lastAssistant(page).locator('.message-copy').tap();
  await waitFor(page, () => (window as unknown as { __copied: string[] }).__copied.length === 2);
  assert.deepEqual(await page.evaluate(() => (window as unknown as { __copied: string[] }).__copied), [code, reply]);
  await waitFor(page, () => document.querySelector('.message-copy')?.getAttribute('data-feedback') === 'Copied');
  assert.equal(await page.locator('.copy-buffer').count(), 0, 'the helper textarea is gone');
  // Chromium notes that it ignores Cross-Origin-Opener-Policy on a plain-HTTP origin: not an app error.
  assertNoPageErrors(page, [/Cross-Origin-Opener-Policy header has been ignored/]);
});

test('phone: edit a message, switch between versions, regenerate, and Retry a failed reply', async (t) => {
  const { test: testApp, page, baseUrl } = await openChat(t, browser, { context: phone() });
  await openSeededChat(testApp, page, baseUrl);

  // Edit: the text goes into an inline editor; Save & send answers the new text.
  const edit = userMessages(page).last().locator('.message-edit');
  await assertTapTarget(edit, 'Edit');
  await edit.tap();
  const editor = page.locator('#chat-thread .message-editor');
  assert.equal(await editor.inputValue(), 'Show me code');
  await page.locator('.message-edit-cancel').tap();
  assert.equal(await editor.count(), 0, 'Cancel closes the editor');
  assert.equal(normalize(await userMessages(page).last().locator('.chat-message-body').textContent()), 'Show me code');

  await edit.tap();
  await editor.fill('Say <b>hello</b> instead');
  await assertTapTarget(page.locator('.message-edit-save'), 'Save & send');
  await screenshot(page, 'message-actions-editing');
  // Slow enough (three chunks, 0.4 s apart) that the page is surely seen streaming.
  testApp.standin.enqueue({ content: 'Hello there, friend!', chunkDelayMs: 400 });
  await page.locator('.message-edit-save').tap();
  await waitFor(page, () => document.querySelector('#chat-thread .chat-message-user .message-version-position')?.textContent === '2/2');
  // While the new reply streams, nothing that reshapes the thread can be tapped.
  await waitFor(page, () => document.body.classList.contains('is-streaming'));
  assert.ok(await page.evaluate(() => {
    const earlier = document.querySelector('#chat-thread .message-version-earlier');
    return document.body.classList.contains('is-streaming') && earlier instanceof HTMLElement && earlier.offsetParent === null;
  }), 'versions wait while a reply streams');
  assert.equal(await waitForReplyEnd(page), 'complete');
  assert.equal(normalize(await lastAssistantBody(page).textContent()), 'Hello there, friend!');
  assert.equal(normalize(await userMessages(page).last().locator('.chat-message-body').textContent()), 'Say <b>hello</b> instead', 'shown as text');
  assert.equal(await page.locator('#chat-thread .chat-message-user b').count(), 0);
  assert.ok(!(await threadText(page)).includes('That is all'), 'the old reply is not in the thread');
  await screenshot(page, 'message-actions-edited');

  // ‹ shows the first version with its reply (and its code block's button) again; › goes back.
  const earlier = userMessages(page).last().locator('.message-version-earlier');
  await assertTapTarget(earlier, 'Earlier version');
  await earlier.tap();
  await waitFor(page, () => document.querySelector('#chat-thread .chat-message-user .message-version-position')?.textContent === '1/2');
  assert.equal(normalize(await userMessages(page).last().locator('.chat-message-body').textContent()), 'Show me code');
  // Focus stays on the version controls (on the first version ‹ is disabled, so ›), and the change is announced.
  await waitFor(page, () => document.activeElement?.classList.contains('message-version-later') === true);
  await waitFor(page, () => document.getElementById('chat-status')?.textContent === 'Version 1 of 2');
  assert.match(await threadText(page), /Here is some code:.*That is all\./);
  await lastAssistantBody(page).locator('.code-copy').waitFor();
  await userMessages(page).last().locator('.message-version-later').tap();
  await waitFor(page, () => document.querySelector('#chat-thread .chat-message-user .message-version-position')?.textContent === '2/2');
  assert.equal(normalize(await lastAssistantBody(page).textContent()), 'Hello there, friend!');

  // Regenerate: a new reply, the old one a version of it.
  testApp.standin.enqueue({ content: 'Hello again!' });
  const regenerate = lastAssistant(page).locator('.message-regenerate');
  await assertTapTarget(regenerate, 'Regenerate');
  await regenerate.tap();
  await waitFor(page, () => document.querySelector('#chat-thread .chat-message-assistant .message-version-position')?.textContent === '2/2');
  assert.equal(await waitForReplyEnd(page), 'complete');
  assert.equal(normalize(await lastAssistantBody(page).textContent()), 'Hello again!');
  await lastAssistant(page).locator('.message-version-earlier').tap();
  await waitFor(page, () => document.querySelector('#chat-thread .chat-message-assistant .message-version-position')?.textContent === '1/2');
  assert.equal(normalize(await lastAssistantBody(page).textContent()), 'Hello there, friend!');

  // A failed reply (the model server errs) offers Retry, which answers without retyping.
  testApp.standin.enqueue({ status: 500, error: 'model runner crashed' });
  await send(page, 'And now?');
  assert.equal(await waitForReplyEnd(page), 'failed');
  const retry = lastAssistant(page).locator('.message-retry');
  // The page drops its streaming state (which hides Retry) in the frame after the reply ends.
  await retry.waitFor({ state: 'visible' });
  await assertTapTarget(retry, 'Retry');
  assert.equal(await lastAssistant(page).locator('.message-regenerate').count(), 0, 'a failed reply says Retry, not Regenerate');
  assert.equal(await page.locator('#chat-thread .chat-message-assistant').first().locator('.message-regenerate').isVisible(), true, 'an earlier reply can be written again too');
  await screenshot(page, 'message-actions-failed');
  testApp.standin.enqueue({ content: 'Recovered.' });
  await retry.tap();
  try {
    await waitFor(page, () => document.querySelector('#chat-thread .chat-message-assistant:last-of-type')?.getAttribute('data-status') === 'complete'
      && document.querySelector('#chat-thread .chat-message-assistant:last-of-type .chat-message-body')?.textContent?.trim() === 'Recovered.');
  } catch (error) {
    throw new Error(`Retry did not answer; the thread shows: ${(await threadText(page)).slice(-600)}`, { cause: error });
  }
  assert.equal(await userMessages(page).count(), 2);
  assert.equal(normalize(await userMessages(page).last().locator('.chat-message-body').textContent()), 'And now?');
  assert.equal(testApp.standin.requests.at(-1)!.messages.at(-1)!.content, 'And now?', 'the retry asked the same question');

  // The reloaded page shows the same thread and versions.
  await page.reload();
  await page.locator('#chat-thread .chat-message').first().waitFor();
  assert.match(await threadText(page), /Say <b>hello<\/b> instead.*2\/2.*Hello there, friend!.*1\/2.*And now\?.*Recovered\./);
  await screenshot(page, 'message-actions-versions');
  assertNoPageErrors(page, [/status of 500/]);
});

test('phone: Retry a failed reply and Regenerate a reply further up; the turns after it become an earlier version', async (t) => {
  const { test: testApp, page, baseUrl } = await openChat(t, browser, { context: phone() });
  const store = createConversationStore(testApp.database);
  const { id } = store.createConversation('Capitals', 'llama3.2:latest');
  store.addMessage(id, 'user', 'Capital of France?');
  const failed = store.addMessage(id, 'assistant', '', { status: 'failed', model: 'llama3.2:latest' });
  store.updateMessage(failed.id, { error: 'Ollama refused the request: model runner crashed' });
  store.addMessage(id, 'user', 'And Italy?');
  // A reply in two rounds (a tool round, then the answer): only its last round offers Regenerate.
  const toolRound = store.addMessage(id, 'assistant', 'Let me look that up.', { model: 'llama3.2:latest' });
  const answer = store.addMessage(id, 'assistant', 'Rome.', { model: 'llama3.2:latest' });
  store.addMessage(id, 'user', 'And Spain?');
  store.addMessage(id, 'assistant', 'Madrid.', { model: 'llama3.2:latest' });
  await page.goto(`${baseUrl}/c/${id}`);
  await waitForSocket(page);
  const assistant = (messageId: number) => page.locator(`#message-${messageId}`);

  assert.equal(await assistant(toolRound.id).locator('.message-regenerate').isVisible(), false, 'a tool round the reply went on from offers nothing');
  const retry = assistant(failed.id).locator('.message-retry');
  await assertTapTarget(retry, 'Retry on a failed reply further up');
  await screenshot(page, 'message-actions-retry-further-up');

  // Retry two turns up: the same question is answered again, and the thread shown is the new path.
  testApp.standin.enqueue({ content: 'Paris.', chunkDelayMs: 40 });
  await retry.tap();
  await waitFor(page, () => document.querySelectorAll('#chat-thread .chat-message').length === 2
    && document.querySelector('#chat-thread .chat-message-assistant .message-version-position')?.textContent === '2/2');
  assert.equal(await waitForReplyEnd(page), 'complete');
  assert.equal(normalize(await lastAssistantBody(page).textContent()), 'Paris.');
  assert.equal(testApp.standin.requests.at(-1)!.messages.at(-1)!.content, 'Capital of France?');
  assert.ok(!(await threadText(page)).includes('Italy'), 'the later turns are not in the thread');

  // ‹ brings the failed reply back with every turn after it.
  await lastAssistant(page).locator('.message-version-earlier').tap();
  await waitFor(page, () => document.querySelectorAll('#chat-thread .chat-message').length === 7);
  assert.match(await threadText(page), /Capital of France\?.*1\/2.*And Italy\?.*Rome\..*And Spain\?.*Madrid\./);

  // Regenerate the middle reply (from its last round): both rounds and Spain's turn become version 1.
  const regenerate = assistant(answer.id).locator('.message-regenerate');
  await assertTapTarget(regenerate, 'Regenerate on a reply further up');
  testApp.standin.enqueue({ content: 'Rome, the eternal city.' });
  await regenerate.tap();
  await waitFor(page, () => document.querySelectorAll('#chat-thread .chat-message').length === 4
    && document.querySelectorAll('#chat-thread .chat-message-assistant .message-version-position').length === 2);
  assert.equal(await waitForReplyEnd(page), 'complete');
  assert.equal(normalize(await lastAssistantBody(page).textContent()), 'Rome, the eternal city.');
  assert.equal(normalize(await lastAssistant(page).locator('.message-version-position').textContent()), '2/2');
  assert.ok(!(await threadText(page)).includes('Let me look that up'), 'the whole earlier reply is replaced');
  // The failed reply had no text, so the model gets the two questions as one turn.
  assert.match(testApp.standin.requests.at(-1)!.messages.at(-1)!.content, /And Italy\?$/);
  await screenshot(page, 'message-actions-regenerated-further-up');
  assertNoPageErrors(page);
});

test('phone: a version switch far up a long chat keeps the person at the switched message', async (t) => {
  const { test: testApp, page, baseUrl } = await openChat(t, browser, { context: phone() });
  const store = createConversationStore(testApp.database);
  const { id } = store.createConversation('Long', 'llama3.2:latest');
  const ids = addNumberedLines(store, id, 500);
  // Message 21, 480 messages above the newest, has a second version; the first is shown.
  const edited = store.branchFrom(id, ids[20]!, 'user', 'line 21 edited');
  store.addMessage(id, 'assistant', 'answer to the edit');
  store.showVersion(edited.id, ids[20]!);
  await page.goto(`${baseUrl}/c/${id}?at=${ids[20]}#message-${ids[20]}`);
  await waitForSocket(page);
  const topOf = (messageId: number) => page.locator(`#message-${messageId}`).evaluate((element) => element.getBoundingClientRect().top);

  const onScreen = async (messageId: number) => {
    const box = await page.locator(`#message-${messageId}`).boundingBox();
    return Boolean(box && box.y >= 0 && box.y + 40 < 844);
  };

  const firstShown = () => page.locator('#chat-thread .chat-message').first().getAttribute('id');
  const first = await firstShown();

  // › to the edit: the thread is 22 messages now; the page shows them from the same first message
  // to the end (it was a window opened at a match: nothing is held back below any more).
  await page.locator(`#message-${ids[20]} .message-version-later`).tap();
  await waitFor(page, (editedId) => document.querySelector(`#message-${editedId} .message-version-position`)?.textContent === '2/2', edited.id);
  assert.equal(await firstShown(), first);
  assert.equal(await page.locator('#chat-thread .chat-message').last().getAttribute('id'), `message-${edited.id + 1}`);
  assert.equal(await page.locator('#chat-thread .load-later').count(), 0);
  assert.ok(await onScreen(edited.id), 'the switched message is on screen');

  // ‹ back: 500 messages again. The messages this page shows stay (from the first), the switched
  // one stays in place, and a page below it: not the newest page, nor all 480 messages to the end.
  const above = await topOf(ids[19]!);
  await page.locator(`#message-${edited.id} .message-version-earlier`).tap();
  await waitFor(page, (firstId) => document.querySelector(`#message-${firstId} .message-version-position`)?.textContent === '1/2', ids[20]!);
  assert.ok(Math.abs((await topOf(ids[19]!)) - above) < 2, 'the message above the switched one did not move');
  assert.ok(await onScreen(ids[20]!), 'the switched message is on screen');
  assert.equal(await page.locator('#chat-thread .load-later').count(), 1, 'newer messages load below as the person scrolls down');
  assert.ok(!(await threadText(page)).includes('line 500'), 'not the newest page');
  assert.equal(await firstShown(), first, 'the messages above are kept');
  assert.ok((await page.locator('#chat-thread .chat-message').count()) < 60);
  await screenshot(page, 'message-actions-version-far-up');

  // Scrolling down brings the next page.
  const shown = await page.locator('#chat-thread .chat-message').count();
  await page.locator('#chat-thread .load-later').scrollIntoViewIfNeeded();
  await waitFor(page, (count) => document.querySelectorAll('#chat-thread .chat-message').length > count, shown);
  assertNoPageErrors(page);
});

test('phone: a version switch keeps the earlier pages the person had loaded', async (t) => {
  const { test: testApp, page, baseUrl } = await openChat(t, browser, { context: phone() });
  const store = createConversationStore(testApp.database);
  const { id } = store.createConversation('Scrolled up', 'llama3.2:latest');
  const ids = addNumberedLines(store, id, 120);
  // Message 41 has a second version, shown, with 30 messages after it: 71 in the thread.
  const edited = store.branchFrom(id, ids[40]!, 'user', 'line 41 edited');
  for (let index = 1; index <= 30; index++) store.addMessage(id, index % 2 ? 'assistant' : 'user', `after the edit ${index}`);
  await page.goto(`${baseUrl}/c/${id}`);
  await waitForSocket(page);
  const messages = page.locator('#chat-thread .chat-message');
  assert.equal(await messages.count(), 40);

  // The person scrolls up until the first message: an earlier page loads.
  while ((await page.locator(`#message-${ids[0]}`).count()) === 0) {
    const count = await messages.count();
    await page.locator('#chat-thread .load-earlier').scrollIntoViewIfNeeded();
    await waitFor(page, (shown) => document.querySelectorAll('#chat-thread .chat-message').length > shown, count);
  }
  await page.locator(`#message-${edited.id}`).scrollIntoViewIfNeeded();
  const above = await page.locator(`#message-${ids[39]}`).evaluate((element) => element.getBoundingClientRect().top);

  // ‹ to the first version: 120 messages, 40 of them above the switch, all still on the page.
  await page.locator(`#message-${edited.id} .message-version-earlier`).tap();
  await waitFor(page, (firstId) => document.querySelector(`#message-${firstId} .message-version-position`)?.textContent === '1/2', ids[40]!);
  assert.equal(await messages.first().getAttribute('id'), `message-${ids[0]}`, 'the pages loaded above are still there');
  assert.equal(await messages.count(), 120);
  assert.equal(await page.locator('#chat-thread .load-earlier, #chat-thread .load-later').count(), 0);
  const after = await page.locator(`#message-${ids[39]}`).evaluate((element) => element.getBoundingClientRect().top);
  assert.ok(Math.abs(after - above) < 2, `the message above the switched one stayed in place (${above} → ${after})`);
  assertNoPageErrors(page);
});

test('phone: Regenerate and Save & send use the model picked now; an empty edit is not sent', async (t) => {
  const { test: testApp, page, baseUrl } = await openChat(t, browser, { context: phone() });
  await openSeededChat(testApp, page, baseUrl);

  await page.locator('#model-select').selectOption('qwen3:latest');
  testApp.standin.enqueue({ content: 'From qwen.' });
  await lastAssistant(page).locator('.message-regenerate').tap();
  await waitFor(page, () => document.querySelector('#chat-thread .chat-message-assistant .message-version-position')?.textContent === '2/2');
  assert.equal(await waitForReplyEnd(page), 'complete');
  assert.equal(testApp.standin.requests.at(-1)!.model, 'qwen3:latest');

  // Emptied, Save & send sends nothing (the browser asks for text); with text, it goes to the model picked now.
  await page.locator('#model-select').selectOption('llama3.2:latest');
  await userMessages(page).last().locator('.message-edit').tap();
  // The editor comes from the server, focused, with the caret after the text.
  await waitFor(page, () => document.activeElement?.classList.contains('message-editor') === true);
  assert.deepEqual(await page.locator('.message-editor').evaluate((editor: HTMLTextAreaElement) => [editor.value, editor.selectionStart, editor.maxLength]), ['Show me code', 12, 32_000]);
  await page.locator('.message-editor').fill('');
  await page.locator('.message-edit-save').tap();
  assert.equal(await page.locator('.message-editor').evaluate((editor: HTMLTextAreaElement) => editor.validity.valueMissing), true);
  assert.equal(testApp.standin.requests.length, 1, 'nothing was sent');
  testApp.standin.enqueue({ content: 'From llama.' });
  await page.locator('.message-editor').fill('Show me other code');
  await page.locator('.message-edit-save').tap();
  await waitFor(page, () => document.querySelector('#chat-thread .chat-message-user .message-version-position')?.textContent === '2/2');
  assert.equal(await waitForReplyEnd(page), 'complete');
  assert.equal(testApp.standin.requests.at(-1)!.model, 'llama3.2:latest');
  assert.equal(testApp.standin.requests.length, 2);
  assertNoPageErrors(page);
});

test('phone: Regenerate on a reply further up shows the end of the thread, where the new reply streams', async (t) => {
  const { test: testApp, page, baseUrl } = await openChat(t, browser, { context: phone() });
  const store = createConversationStore(testApp.database);
  const { id } = store.createConversation('Scroll', 'llama3.2:latest');
  const ids = addNumberedLines(store, id, 100);
  await page.goto(`${baseUrl}/c/${id}`);
  await waitForSocket(page);
  // The page shows the last 40; the person scrolls up until reply 64 is at the top.
  await page.locator(`#message-${ids[63]}`).evaluate((element) => element.scrollIntoView({ block: 'start' }));
  const fromEnd = () => page.locator('#chat-thread').evaluate((thread) => thread.scrollHeight - thread.scrollTop - thread.clientHeight);
  assert.ok((await fromEnd()) > 300, 'scrolled up');

  testApp.standin.enqueue({ content: 'Written again.', chunkDelayMs: 200 });
  await page.locator(`#message-${ids[63]} .message-regenerate`).tap();
  await waitFor(page, () => document.querySelector('#chat-thread .chat-message-assistant:last-of-type .message-version-position, #chat-thread .chat-message-streaming') !== null);
  await waitFor(page, (oldId) => document.getElementById(`message-${oldId}`) === null, ids[63]!);
  assert.ok((await fromEnd()) < 2, 'the end of the thread is in view');
  assert.equal(await waitForReplyEnd(page), 'complete');
  assertNoPageErrors(page);
});
