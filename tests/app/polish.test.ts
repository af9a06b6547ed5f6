/**
 * Everyday-use polish without a browser: the chat form's plain POST (/send), one h1 per page,
 * the live region, person-facing errors and memory saves. (The colours' contrast:
 * tests/unit/public/palette.test.ts.)
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { createConversationStore } from '../../src/storage/conversation-store.js';
import { buildTestApp, cookieHeader, csrfTokenFrom } from '../support/test-app.js';
import { projectRoot } from '../../src/config/project-root.js';

async function loggedIn(t: import('node:test').TestContext) {
  const testApp = await buildTestApp(t);
  const cookies = await testApp.login();
  const get = (url: string) => testApp.app.inject({ method: 'GET', url, headers: { cookie: cookies } });
  return { ...testApp, cookies, get };
}

async function waitForReply(store: ReturnType<typeof createConversationStore>, conversationId: number): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const reply = store.listMessages(conversationId).find((message) => message.role === 'assistant');
    if (reply && reply.status !== 'streaming') return reply.content;
    if (Date.now() > deadline) throw new Error('the reply did not finish');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('the chat form posts to /send without JavaScript: the message is saved and the reply follows', async (t) => {
  const { app, standin, database, cookies, get } = await loggedIn(t);
  standin.enqueue({ content: 'Hello from the form.' }, { content: 'Second answer.' });
  const page = await get('/');
  assert.match(page.body, /<form id="chat-form"[^>]*method="post" action="\/send"/);
  assert.match(page.body, /<form id="chat-form"[\s\S]*?name="_csrf"/, 'the chat form carries its CSRF token');
  const jar = cookieHeader(page.headers['set-cookie'], cookies);

  const posted = await app.inject({
    method: 'POST',
    url: '/send',
    headers: { cookie: jar },
    payload: { _csrf: csrfTokenFrom(page.body), type: 'send', conversationId: '', message: '  Hi there  ', model: '' },
  });
  assert.equal(posted.statusCode, 303);
  const location = String(posted.headers.location);
  assert.match(location, /^\/c\/\d+$/);
  const id = Number(location.slice(3));
  const store = createConversationStore(database);
  assert.equal(await waitForReply(store, id), 'Hello from the form.');
  assert.deepEqual(store.listMessages(id).map((message) => [message.role, message.content]), [
    ['user', 'Hi there'],
    ['assistant', 'Hello from the form.'],
  ]);
  const shown = await get(location);
  assert.match(shown.body, /Hi there/);
  assert.match(shown.body, /Hello from the form\./);

  // Into the same conversation.
  const again = await app.inject({
    method: 'POST',
    url: '/send',
    headers: { cookie: jar },
    payload: { _csrf: csrfTokenFrom(shown.body), conversationId: String(id), message: 'More' },
  });
  assert.equal(again.statusCode, 303);
  assert.equal(again.headers.location, `/c/${id}`);
  await new Promise((resolve) => setTimeout(resolve, 0));
  const deadline = Date.now() + 10_000;
  while (store.listMessages(id).at(-1)?.status === 'streaming' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(store.listMessages(id).length, 4);
});

test('/send refuses a missing CSRF token and shows an unsendable message back instead of losing it', async (t) => {
  const { app, database, cookies, get } = await loggedIn(t);
  const page = await get('/');
  const jar = cookieHeader(page.headers['set-cookie'], cookies);
  const forged = await app.inject({ method: 'POST', url: '/send', headers: { cookie: jar }, payload: { message: 'no token' } });
  assert.equal(forged.statusCode, 403);

  const gone = await app.inject({
    method: 'POST',
    url: '/send',
    headers: { cookie: jar },
    payload: { _csrf: csrfTokenFrom(page.body), conversationId: '999', message: 'Keep <this> text' },
  });
  assert.equal(gone.statusCode, 400);
  assert.match(gone.body, /no longer exists/);
  assert.match(gone.body, /<textarea[^>]*>Keep &lt;this&gt; text<\/textarea>/, 'the text is given back, escaped');
  assert.equal(createConversationStore(database).listConversations(10).length, 0);
});

test('every page has exactly one h1; the thread is not a live region, a status element is', async (t) => {
  const { app, get } = await loggedIn(t);
  const urls = ['/', '/memory', '/settings', '/tools', '/c/12345'];
  const pages = [...(await Promise.all(urls.map(get))), await app.inject({ method: 'GET', url: '/login' })];
  pages.forEach((page, index) => assert.equal((page.body.match(/<h1[\s>]/g) ?? []).length, 1, `one h1 on ${urls[index] ?? '/login'}`));
  const chat = pages[0]!.body;
  assert.doesNotMatch(/<section id="chat-thread"[^>]*>/.exec(chat)![0], /aria-live/);
  assert.match(chat, /<p id="chat-status" class="visually-hidden" role="status"><\/p>/);
});

test('the model picker says "No models installed" only when Ollama answered with none', async (t) => {
  const empty = await buildTestApp(t, { standin: { models: [] } });
  const emptyCookies = await empty.login();
  const emptyPage = await empty.app.inject({ method: 'GET', url: '/', headers: { cookie: emptyCookies } });
  assert.match(emptyPage.body, /<option value="">No models installed<\/option>/);

  const down = await buildTestApp(t);
  const downCookies = await down.login();
  await down.standin.close();
  const downPage = await down.app.inject({ method: 'GET', url: '/', headers: { cookie: downCookies } });
  assert.match(downPage.body, /<option value="">Ollama is not answering<\/option>/);
  assert.doesNotMatch(downPage.body, /No models installed/);
  assert.match(downPage.body, /<p class="chat-error-text">Ollama is not answering\./);
  assert.match(downPage.body, /class="button chat-retry" href="">Retry<\/a>/);
});

test('the memory and settings pages: 16 px editors, a live fullness hook, and a reset that asks first', async (t) => {
  const { get } = await loggedIn(t);
  const page = (await get('/memory')).body;
  assert.match(page, /<span class="memory-size" id="memory-size">0% full<\/span>/);
  assert.match(page, /<textarea id="memory-editor"[^>]* hx-post="\/memory\/size"/);
  assert.match(page, /<script src="\/static\/vendor\/htmx.min.js"><\/script>/);
  // Reset is behind a question that opens first; the button that resets is inside it.
  const settings = (await get('/settings')).body;
  assert.match(settings, /<details class="system-prompt-reset-ask"[^>]*>\s*<summary class="button">Reset to default…<\/summary>\s*<p>Replace your system prompt with the default\?[^<]*<\/p>\s*<button[^>]*id="system-prompt-reset">/);
  const css = fs.readFileSync(path.join(projectRoot, 'public', 'app.css'), 'utf8');
  const rule = /#memory-editor, #system-prompt-editor \{([^}]*)\}/.exec(css)![1]!;
  const size = /font:\s*(\d+)px/.exec(rule);
  assert.ok(size && Number(size[1]) >= 16, 'memory editors are at least 16px so iOS does not zoom');
});

test('the memory page says so when a save changed nothing', async (t) => {
  const { app, cookies, get } = await loggedIn(t);
  await app.memory.write('- likes tea\n', 'browser');
  const versions = app.memory.versions().length;
  const page = await get('/memory');
  const revision = /name="revision" value="([^"]*)"/.exec(page.body)![1]!;
  const saved = await app.inject({
    method: 'POST',
    url: '/memory',
    headers: { cookie: cookieHeader(page.headers['set-cookie'], cookies) },
    payload: { _csrf: csrfTokenFrom(page.body), revision, content: '- likes tea\r\n' },
  });
  assert.equal(saved.statusCode, 303);
  assert.equal(saved.headers.location, '/memory?saved=unchanged');
  assert.equal(app.memory.versions().length, versions);
  assert.match((await get('/memory?saved=unchanged')).body, /Nothing changed/);
});

test('a fresh memory page lists no past version: creating the empty file is not a change', async (t) => {
  const { app, get } = await loggedIn(t);
  const page = await get('/memory');
  assert.equal(page.statusCode, 200);
  assert.deepEqual(app.memory.versions(), [], 'no version before any text was written');
  assert.doesNotMatch(page.body, /class="memory-version"/);
  assert.doesNotMatch(page.body, /\(empty\)/);
  // Reading again (the empty file now exists) records nothing either; the first real text does.
  await app.memory.read();
  assert.equal(app.memory.versions().length, 0);
  await app.memory.write('- likes tea\n', 'browser');
  assert.deepEqual(app.memory.versions().map((version) => version.content), ['- likes tea\n']);
});
