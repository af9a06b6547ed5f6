/**
 * The core chat, driven in a real Chromium: login, streaming, stop, reload, thinking, history,
 * errors, the phone layout, a clean console under the CSP, and untrusted model output.
 */
import assert from 'node:assert/strict';
import { after, before, test, type TestContext } from 'node:test';
import type { Browser } from 'playwright-core';
import { assertNoPageErrors, launchBrowser, loginInBrowser, newPage, phone } from '../support/browser.js';
import * as chatPage from '../support/chat-page.js';
import { lastAssistant, lastAssistantBody, normalize, send, trackSocket, waitFor, waitForReplyEnd, waitForSocket, words } from '../support/chat-page.js';
import { buildTestApp, testPassword, type TestAppOptions } from '../support/test-app.js';
import { createTestRegistry } from '../support/test-tools.js';

let browser: Browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

const openChat = (t: TestContext, options: { app?: TestAppOptions; context?: Parameters<typeof newPage>[2] } = {}) =>
  chatPage.openChat(t, browser, options);


test('login: a wrong password is refused, the right one opens the chat, log out ends the session', async (t) => {
  const testApp = await buildTestApp(t);
  const baseUrl = await testApp.listen();
  const { page } = await newPage(t, browser);

  await page.goto(`${baseUrl}/`);
  assert.equal(new URL(page.url()).pathname, '/login', 'a visitor without a session is sent to /login');

  await loginInBrowser(page, baseUrl, 'not the password');
  assert.equal(new URL(page.url()).pathname, '/login');
  await page.locator('.login-error').waitFor();
  assert.match(normalize(await page.locator('.login-error').textContent()), /password/i);
  assert.equal(await page.locator('#chat-input').count(), 0);

  await loginInBrowser(page, baseUrl, testPassword);
  assert.equal(new URL(page.url()).pathname, '/');
  await page.locator('textarea#chat-input').waitFor();
  assert.equal(await page.locator('.login-error').count(), 0);

  // Still logged in on the next visit.
  await page.goto(`${baseUrl}/`);
  await page.locator('textarea#chat-input').waitFor();

  // Log out sits in the sidebar, which is on screen at desktop width, and asks first; #logout confirms.
  await page.locator('#logout-ask').click();
  await Promise.all([page.waitForURL(/\/login$/), page.locator('#logout').click()]);
  await page.locator('form#login-form').waitFor();
  await page.goto(`${baseUrl}/`);
  assert.equal(new URL(page.url()).pathname, '/login', 'after logging out, / redirects to /login');
  // The refused login answers 401, which Chromium logs as a failed resource load; nothing else may show up.
  assertNoPageErrors(page, [/status of 401 \(Unauthorized\).*\/login/]);
});

test('streaming: the reply grows token by token and ends as rendered Markdown', async (t) => {
  const { test: testApp, page } = await openChat(t);
  const slowText = words(20, 'token');
  const markdown = 'Here is **bold** text.\n\n```js\nconst answer = 42;\n```\n';
  const content = `${slowText}\n\n${markdown}`;
  testApp.standin.enqueue({ content, chunkDelayMs: 80 });

  await send(page, 'Show me streaming');
  const userMessage = page.locator('#chat-thread .chat-message.chat-message-user');
  await userMessage.waitFor();
  assert.equal(normalize(await userMessage.locator('.chat-message-body').textContent()), 'Show me streaming');

  // Partial text at some point: some tokens shown, not all of them.
  await waitFor(page, () => {
    const body = document.querySelector('#chat-thread .chat-message-assistant:last-child .chat-message-body');
    const text = body?.textContent ?? '';
    return text.includes('token3') && !text.includes('token20');
  });
  assert.equal(await lastAssistant(page).getAttribute('data-status'), 'streaming');
  assert.equal(await page.locator('#chat-input').inputValue(), '', 'the input is cleared once the message is accepted');

  assert.equal(await waitForReplyEnd(page), 'complete');
  const body = lastAssistantBody(page);
  assert.ok(normalize(await body.textContent()).startsWith(slowText), 'the whole streamed text is there at the end');
  assert.equal(normalize(await body.locator('strong').textContent()), 'bold');
  assert.equal(await body.locator('pre code.hljs').count(), 1, 'the fenced block is highlighted code');
  assert.match(normalize(await body.locator('pre code').textContent()), /const answer = 42;/);
  assert.ok(!(await body.textContent())!.includes('**'), 'no raw Markdown markers left');

  await page.waitForURL(/\/c\/\d+$/);
  const conversationId = new URL(page.url()).pathname.split('/').at(-1);
  const item = page.locator(`#history-list .history-item#history-item-${conversationId}`);
  await item.waitFor();
  assert.equal(normalize(await item.locator('.history-title').textContent()), 'Show me streaming');
  assertNoPageErrors(page);
});

test('stop: the stop button ends a slow reply, keeps the partial text, and aborts the Ollama request', async (t) => {
  const { test: testApp, page } = await openChat(t);
  const content = words(60, 'slow');
  testApp.standin.enqueue({ content, chunkDelayMs: 80 });

  const stop = page.locator('button#chat-stop');
  assert.equal(await stop.isVisible(), false, 'no stop button before a reply');
  await send(page, 'Write a long story');
  await stop.waitFor({ state: 'visible' });
  assert.equal(await page.locator('button#chat-send').isVisible(), false, 'send is swapped for stop while streaming');
  await waitFor(page, () =>
    (document.querySelector('#chat-thread .chat-message-assistant:last-child .chat-message-body')?.textContent ?? '').includes('slow4'),
  );
  await stop.click();

  assert.equal(await waitForReplyEnd(page, 5000), 'stopped');
  await stop.waitFor({ state: 'hidden' });
  await page.locator('button#chat-send').waitFor({ state: 'visible' });
  const partial = normalize(await lastAssistantBody(page).textContent());
  assert.ok(partial.startsWith('slow1 slow2 slow3 slow4'), `partial text kept: ${partial}`);
  assert.ok(!partial.includes('slow60'), 'the reply really was cut short');

  const deadline = Date.now() + 3000;
  while (!testApp.standin.requests.at(-1)?.aborted && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
  assert.equal(testApp.standin.requests.at(-1)?.aborted, true, 'the stand-in saw the request aborted');

  await page.reload();
  const reloaded = lastAssistant(page);
  await reloaded.waitFor();
  assert.equal(await reloaded.getAttribute('data-status'), 'stopped');
  assert.equal(normalize(await reloaded.locator('.chat-message-body').textContent()), partial, 'the partial reply survives a reload');
  assertNoPageErrors(page);
});

test('stop during a tool round: Stop stays on screen while a slow tool runs, aborts it, keeps the reply, and Send works after', async (t) => {
  const { registry, waitUntilStopped } = createTestRegistry();
  const { test: testApp, page } = await openChat(t, { app: { dependencies: { registry } } });
  testApp.standin.enqueue({ content: 'Let me look through everything. [TOOL:wait_until_stopped][/TOOL]' }, { content: 'Here I am again.' });

  await send(page, 'Search it all');
  await waitUntilStopped.started;
  // The round's words are finished and its card runs: no message is streaming now, the turn still is.
  await page.locator('.tool-call-card[data-status="running"]').waitFor();
  assert.equal(await waitForReplyEnd(page), 'complete');
  const stop = page.locator('button#chat-stop');
  // Several frames after the round's message was swapped in as finished, Stop is still there.
  await page.waitForTimeout(300);
  assert.equal(await stop.isVisible(), true, 'Stop is on screen while the tool runs');
  assert.equal(await stop.isEnabled(), true);
  assert.equal(await page.locator('button#chat-send').isVisible(), false, 'Send waits for the turn to end');

  await stop.click();
  assert.equal(await waitForReplyEnd(page), 'stopped');
  await stop.waitFor({ state: 'hidden' });
  assert.equal(waitUntilStopped.aborted, true, 'the tool received the abort');
  await page.locator('.tool-call-card[data-status="failed"]').waitFor();
  assert.match(normalize(await page.locator('.tool-call-card .tool-call-summary').textContent()), /^Stopped — /);
  assert.equal(normalize(await lastAssistantBody(page).textContent()), 'Let me look through everything.', 'the partial reply is kept');
  assert.equal(testApp.standin.requests.length, 1, 'the model was not asked to go on');

  await send(page, 'Are you back?');
  assert.equal(await waitForReplyEnd(page), 'complete');
  assert.equal(normalize(await lastAssistantBody(page).textContent()), 'Here I am again.');
  assert.equal(await page.locator('#chat-thread .chat-error-notice').count(), 0, 'no "a reply is still being written"');
  assertNoPageErrors(page);
});

test('reload mid-reply: the page shows the reply so far and keeps streaming to the end', async (t) => {
  const { test: testApp, page } = await openChat(t);
  const content = words(40, 'live');
  testApp.standin.enqueue({ content, chunkDelayMs: 60 });

  await send(page, 'Keep talking');
  await page.waitForURL(/\/c\/\d+$/);
  await waitFor(page, () =>
    (document.querySelector('#chat-thread .chat-message-assistant:last-child .chat-message-body')?.textContent ?? '').includes('live5'),
  );

  await page.reload();
  // Right after the reload the reply is still being written, and what was written is there.
  const body = lastAssistantBody(page);
  const shown = normalize(await body.textContent());
  assert.ok(shown.startsWith('live1 live2 live3 live4 live5'), `the reply so far is shown after a reload: ${shown}`);
  assert.ok(!shown.includes('live40'), 'the reply had not finished yet');
  assert.equal(await lastAssistant(page).getAttribute('data-status'), 'streaming');

  assert.equal(await waitForReplyEnd(page), 'complete');
  assert.equal(normalize(await lastAssistantBody(page).textContent()), content, 'the full reply, each word once');
  assert.equal(await page.locator('#chat-thread .chat-message-assistant').count(), 1);
  assertNoPageErrors(page);
});

test('thinking: a thinking model shows its reasoning in .thinking-section, apart from the answer', async (t) => {
  const { test: testApp, page } = await openChat(t);
  const thinking = 'The person asks for a number; six times seven gives the classic answer.';
  const answer = 'The answer is 42.';
  testApp.standin.enqueue({ thinking, content: answer, chunkDelayMs: 5 });

  await page.locator('select#model-select').selectOption('qwen3:latest');
  await send(page, 'What is six times seven?');
  assert.equal(await waitForReplyEnd(page), 'complete');

  assert.equal(testApp.standin.requests.at(-1)?.model, 'qwen3:latest');
  assert.equal(testApp.standin.requests.at(-1)?.think, true);

  const message = lastAssistant(page);
  const section = message.locator('.thinking-section');
  assert.equal(await section.count(), 1);
  assert.equal(await section.isVisible(), true, 'the reasoning is shown');
  assert.equal(normalize(await section.locator('.thinking-body').textContent()), thinking);
  const body = normalize(await message.locator('.chat-message-body').textContent());
  assert.equal(body, answer);
  assert.ok(!body.includes('six times seven'), 'the reasoning is not mixed into the answer');

  // Collapsible: the summary toggles it open and shut.
  const wasOpen = await section.evaluate((element) => (element as HTMLDetailsElement).open);
  await section.locator('summary').click();
  assert.equal(await section.evaluate((element) => (element as HTMLDetailsElement).open), !wasOpen);
  assertNoPageErrors(page);
});

test('history: newest first, reopen, full-text search', async (t) => {
  const { test: testApp, page, baseUrl } = await openChat(t);
  testApp.standin.enqueue({ content: 'Apples are crunchy and sweet.' }, { content: 'Bananas are yellow and soft.' });

  await send(page, 'Tell me about apples');
  assert.equal(await waitForReplyEnd(page), 'complete');
  await page.waitForURL(/\/c\/\d+$/);
  const applesUrl = page.url();
  const applesId = new URL(applesUrl).pathname.split('/').at(-1)!;

  await Promise.all([page.waitForURL(`${baseUrl}/`), page.locator('#new-chat').click()]);
  await waitForSocket(page);
  assert.equal(await page.locator('#chat-thread .chat-message').count(), 0, 'a new chat starts empty');
  await send(page, 'Tell me about bananas');
  assert.equal(await waitForReplyEnd(page), 'complete');
  await page.waitForURL(/\/c\/\d+$/);
  const bananasId = new URL(page.url()).pathname.split('/').at(-1)!;
  assert.notEqual(bananasId, applesId);

  const titles = () => page.locator('#history-list .history-item .history-title').allTextContents();
  await page.locator(`#history-item-${bananasId}`).waitFor();
  assert.deepEqual((await titles()).map(normalize), ['Tell me about bananas', 'Tell me about apples']);
  await page.reload();
  assert.deepEqual((await titles()).map(normalize), ['Tell me about bananas', 'Tell me about apples'], 'newest first after a reload too');

  // Reopen the first conversation.
  await Promise.all([page.waitForURL(applesUrl), page.locator(`#history-item-${applesId} .history-link`).click()]);
  const messages = page.locator('#chat-thread .chat-message .chat-message-body');
  assert.deepEqual((await messages.allTextContents()).map(normalize), ['Tell me about apples', 'Apples are crunchy and sweet.']);
  assert.equal(await page.locator('#conversation-id').inputValue(), applesId);

  // Full-text search finds a word from the reply, not only the title.
  await page.locator('input#history-search').fill('crunchy');
  await waitFor(page, () => document.querySelectorAll('#history-list .history-item').length === 1);
  assert.deepEqual((await titles()).map(normalize), ['Tell me about apples']);
  assert.equal(normalize(await page.locator('#history-list .history-item mark').first().textContent()).toLowerCase(), 'crunchy');
  await page.locator('input#history-search').fill('');
  await waitFor(page, () => document.querySelectorAll('#history-list .history-item').length === 2);

  // Deleting, with its Undo: tests/browser/sidebar.test.ts.
  assertNoPageErrors(page);
});

test('history: the open conversation is marked current for screen readers', async (t) => {
  const { test: testApp, page } = await openChat(t);
  testApp.standin.enqueue({ content: 'First answer.' });
  await send(page, 'First question');
  assert.equal(await waitForReplyEnd(page), 'complete');
  await page.waitForURL(/\/c\/\d+$/);
  const id = new URL(page.url()).pathname.split('/').at(-1)!;

  // The item the socket adds for a new conversation, then the same item in a page rendered by the server.
  const link = page.locator(`#history-item-${id} .history-link`);
  assert.equal(await page.locator(`#history-item-${id}`).getAttribute('class'), 'history-item history-item-current');
  assert.equal(await link.getAttribute('aria-current'), 'page');
  await page.reload();
  assert.equal(await link.getAttribute('aria-current'), 'page');
  assertNoPageErrors(page);
});

test('errors: a mid-stream error is shown and the partial text kept; a missing model is shown', async (t) => {
  const { test: testApp, page } = await openChat(t);
  testApp.standin.enqueue({ content: 'alpha beta gamma delta epsilon zeta', errorAfterChunks: 3, midStreamError: 'GPU ran out of memory' });

  await send(page, 'Break midway');
  assert.equal(await waitForReplyEnd(page), 'failed');
  const message = lastAssistant(page);
  const error = message.locator('.chat-error');
  await error.waitFor();
  assert.match(normalize(await error.textContent()), /GPU ran out of memory/);
  assert.equal(normalize(await message.locator('.chat-message-body').textContent()), 'alpha beta gamma');
  await page.reload();
  assert.equal(normalize(await lastAssistantBody(page).textContent()), 'alpha beta gamma', 'the partial text is saved');
  assert.match(normalize(await lastAssistant(page).locator('.chat-error').textContent()), /GPU ran out of memory/);

  // Ollama says the model is not there (404 from /api/chat).
  testApp.standin.enqueue({ status: 404, error: "model 'llama3.2:latest' not found" });
  await send(page, 'Try again');
  assert.equal(await waitForReplyEnd(page), 'failed');
  assert.match(normalize(await lastAssistant(page).locator('.chat-error').textContent()), /not installed/);

  // The model is removed from Ollama altogether (404 from /api/show as well) in a new chat.
  testApp.standin.models.splice(0, testApp.standin.models.length, { name: 'qwen3:latest', capabilities: ['completion', 'thinking'] });
  await page.locator('#new-chat').click();
  await page.waitForURL(/\/$/);
  await waitForSocket(page);
  // The pick is remembered (POST /model-choice) while the model is still there.
  await Promise.all([page.waitForResponse((response) => response.url().endsWith('/model-choice')), page.locator('select#model-select').selectOption('qwen3:latest')]);
  // The chosen model disappears after the page loaded.
  testApp.standin.models.splice(0, testApp.standin.models.length);
  await send(page, 'Anyone there?');
  assert.equal(await waitForReplyEnd(page), 'failed');
  assert.match(normalize(await lastAssistant(page).locator('.chat-error').textContent()), /qwen3:latest.*not installed/);
  assert.equal(normalize(await page.locator('#chat-thread .chat-message-user .chat-message-body').last().textContent()), 'Anyone there?', 'the message is kept');
  assertNoPageErrors(page);
});

test('phone: no sideways scrolling with wide content, input and send in view, big tap targets', async (t) => {
  const { test: testApp, page } = await openChat(t, {
    context: phone({ deviceScaleFactor: 3 }),
  });
  const longLine = `const x = [${Array.from({ length: 60 }, (_, index) => `"value-${index}"`).join(', ')}];`;
  const columns = Array.from({ length: 12 }, (_, index) => `Column${index}Heading`);
  const table = [
    `| ${columns.join(' | ')} |`,
    `|${columns.map(() => '---').join('|')}|`,
    `| ${columns.map((_, index) => `cell-${index}-withsomelongtext`).join(' | ')} |`,
  ].join('\n');
  const unbroken = 'x'.repeat(200);
  testApp.standin.enqueue({ content: `Code:\n\n\`\`\`js\n${longLine}\n\`\`\`\n\n${table}\n\n${unbroken}\n` });

  await send(page, `A wide question ${'y'.repeat(120)}`);
  assert.equal(await waitForReplyEnd(page), 'complete');
  await lastAssistantBody(page).locator('table').waitFor();

  const widths = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    body: document.body.scrollWidth,
  }));
  assert.ok(widths.scroll <= 390, `page scrolls sideways: scrollWidth ${widths.scroll}`);
  assert.ok(widths.body <= 390, `body is wider than the screen: ${widths.body}`);

  // The table scrolls sideways in its own box, its words whole: a cell of one word (no space or
  // hyphen to break at) is one line high (overflow-wrap: anywhere broke "Column0Heading" in pieces).
  const tableBox = await lastAssistantBody(page).locator('table').evaluate((element) => {
    const cells = [...element.querySelectorAll('th, td')].filter((cell) => /^\w+$/.test(cell.textContent ?? '')).map((cell) => {
      const range = document.createRange();
      range.selectNodeContents(cell);
      return { text: cell.textContent, lines: range.getClientRects().length };
    });
    return { scrolls: element.scrollWidth > element.clientWidth, words: cells.length, broken: cells.filter((cell) => cell.lines > 1) };
  });
  assert.ok(tableBox.scrolls, 'the wide table scrolls in its own box');
  assert.equal(tableBox.words, 12, 'the headings are one word each');
  assert.deepEqual(tableBox.broken, [], 'no table word is broken across lines');

  // Copy and Regenerate are apart enough that a thumb hits the one it means (they were 2 px apart).
  const gaps = await lastAssistant(page).locator('.message-actions').evaluate((actions) => {
    const boxes = [...actions.querySelectorAll('button')].filter((button) => button.offsetParent !== null).map((button) => button.getBoundingClientRect());
    return boxes.slice(1).map((box, index) => Math.round(box.left - boxes[index]!.right));
  });
  assert.ok(gaps.length >= 1, 'a finished reply has at least two actions');
  assert.ok(gaps.every((gap) => gap >= 8), `gaps between the reply's actions: ${gaps.join(', ')} px`);

  for (const selector of ['#chat-input', '#chat-send']) {
    const box = await page.locator(selector).boundingBox();
    assert.ok(box, `${selector} is laid out`);
    assert.ok(box.x >= 0 && box.y >= 0 && box.x + box.width <= 390 && box.y + box.height <= 844, `${selector} is inside the viewport: ${JSON.stringify(box)}`);
    assert.equal(await page.locator(selector).isVisible(), true);
  }
  const sendBox = (await page.locator('#chat-send').boundingBox())!;
  assert.ok(sendBox.height >= 40, `#chat-send is ${sendBox.height}px high`);

  await page.locator('#sidebar-open').tap();
  const newChat = page.locator('#new-chat');
  await waitFor(page, () => {
    const box = document.getElementById('new-chat')?.getBoundingClientRect();
    return box !== undefined && box.left >= 0 && box.right <= 390;
  });
  const newChatBox = (await newChat.boundingBox())!;
  assert.ok(newChatBox.height >= 40, `#new-chat is ${newChatBox.height}px high`);
  assert.ok(newChatBox.x >= 0 && newChatBox.x + newChatBox.width <= 390, 'the sidebar slid into view');
  assertNoPageErrors(page);
});

test('console: no errors and no CSP violations on the login and chat pages', async (t) => {
  const testApp = await buildTestApp(t);
  const baseUrl = await testApp.listen();
  const { page, problems } = await newPage(t, browser);
  await trackSocket(page);
  const cspReports: string[] = [];
  await page.exposeFunction('__reportCsp', (text: string) => cspReports.push(text));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      void (window as unknown as { __reportCsp(text: string): Promise<void> }).__reportCsp(`${event.violatedDirective} ${event.blockedURI}`);
    });
  });

  await page.goto(`${baseUrl}/login`);
  await page.locator('form#login-form').waitFor();
  assertNoPageErrors(page);

  await loginInBrowser(page, baseUrl);
  await waitForSocket(page);
  testApp.standin.enqueue({ content: 'A reply with `code` and a [link](https://example.com).', thinking: 'hmm' });
  await send(page, 'Hello');
  assert.equal(await waitForReplyEnd(page), 'complete');
  await page.waitForURL(/\/c\/\d+$/);
  await page.reload();
  await waitForSocket(page);
  assert.deepEqual(cspReports, [], 'no CSP violations');
  assert.deepEqual(problems.consoleErrors, []);
  assertNoPageErrors(page);
});

test('untrusted model output is shown as text and never runs', async (t) => {
  const { test: testApp, page, baseUrl } = await openChat(t);
  const attacks = [
    '<img src=x onerror="window.__xss=1">',
    '<script>window.__xss=2</script>',
    '[link](javascript:window.__xss=3)',
    '<div hx-get="/logout" hx-trigger="load">x</div>',
  ];
  const content = attacks.join('\n\n');
  testApp.standin.enqueue({ content, chunkDelayMs: 10 });

  await send(page, 'Say something dangerous');
  assert.equal(await waitForReplyEnd(page), 'complete');
  const body = lastAssistantBody(page);
  const text = (await body.textContent()) ?? '';
  assert.ok(text.includes('<img src=x onerror="window.__xss=1">'), `the img tag is shown literally: ${text}`);
  assert.ok(text.includes('<script>window.__xss=2</script>'), 'the script tag is shown literally');
  assert.ok(text.includes('<div hx-get="/logout" hx-trigger="load">x</div>'), 'the htmx div is shown literally');
  assert.ok(text.includes('link'));
  assert.equal(await body.locator('img, script, [hx-get], [onerror], a[href^="javascript" i]').count(), 0, 'no live elements from the reply');

  // A click on the link the model wrote does nothing.
  const link = body.locator('a', { hasText: 'link' });
  if ((await link.count()) > 0) await link.first().click();
  await page.waitForTimeout(200);
  assert.equal(await page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss), undefined);

  // Still logged in: the injected hx-get="/logout" did not fire, before or after a reload.
  await page.reload();
  assert.match(new URL(page.url()).pathname, /^\/c\/\d+$/);
  await page.locator('textarea#chat-input').waitFor();
  await waitForSocket(page);
  await page.waitForTimeout(200);
  assert.equal(await page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss), undefined);
  const check = await page.request.get(`${baseUrl}/`, { maxRedirects: 0 });
  assert.equal(check.status(), 200, 'the session is still valid');
  assert.ok((await lastAssistantBody(page).textContent())!.includes('<script>window.__xss=2</script>'));
  assertNoPageErrors(page);
});

test('an empty Send says so in the box and keeps the keyboard there, instead of doing nothing', async (t) => {
  const { page } = await openChat(t, { context: phone() });
  const box = page.locator('#chat-input');
  const usual = await box.getAttribute('placeholder');
  await page.locator('#chat-send').tap();
  await waitFor(page, () => document.getElementById('chat-input')?.getAttribute('placeholder') === 'Type a message first');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'chat-input', 'the box has the focus (the keyboard stays up)');
  await waitFor(page, () => document.getElementById('chat-status')?.textContent === 'Type a message first.');
  assert.equal(await page.locator('#chat-thread .chat-message').count(), 0, 'nothing was sent');
  await page.locator('#chat-send').tap();
  await box.pressSequentially('h');
  assert.equal(await box.getAttribute('placeholder'), usual, 'typing brings the usual words back');
  assertNoPageErrors(page);
});
