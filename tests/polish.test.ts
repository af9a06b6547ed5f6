/**
 * Everyday-use polish without a browser: the chat form's plain POST (/send), the colours'
 * contrast, one h1 per page, the live region, person-facing errors and memory saves.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { createMemoryFile } from '../src/providers/memory/memory-file.js';
import { createConversationStore } from '../src/storage/conversation-store.js';
import { openDatabase } from '../src/storage/database.js';
import { buildTestApp, cookieHeader, csrfTokenFrom } from './support/test-app.js';

// --- Contrast (WCAG 2 relative luminance) ---

function luminance(hex: string): number {
  const channels = [1, 3, 5].map((start) => parseInt(hex.slice(start, start + 2), 16) / 255);
  const [red, green, blue] = channels.map((value) => (value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4));
  return 0.2126 * red! + 0.7152 * green! + 0.0722 * blue!;
}

export function contrastRatio(first: string, second: string): number {
  const [lighter, darker] = [luminance(first), luminance(second)].sort((a, b) => b - a);
  return (lighter! + 0.05) / (darker! + 0.05);
}

/** The custom properties of the first `:root {…}` block (light) and of the one inside the dark media query. */
function palettes(css: string): { light: Record<string, string>; dark: Record<string, string> } {
  const read = (block: string) =>
    Object.fromEntries([...block.matchAll(/--([\w-]+):\s*(#[0-9a-fA-F]{6})\s*;/g)].map((match) => [match[1]!, match[2]!.toLowerCase()]));
  const darkStart = css.indexOf('prefers-color-scheme: dark');
  assert.ok(darkStart > 0, 'app.css has a dark palette');
  const lightBlock = css.slice(0, darkStart);
  const darkBlock = css.slice(darkStart, css.indexOf('}', css.indexOf('{', css.indexOf('{', darkStart) + 1)));
  return { light: read(lightBlock), dark: read(darkBlock) };
}

test('contrast helper matches known WCAG figures', () => {
  assert.equal(contrastRatio('#000000', '#ffffff').toFixed(2), '21.00');
  assert.equal(contrastRatio('#c2571a', '#ffffff').toFixed(2), '4.49', 'the old accent really failed');
});

test('the offline page keeps app.css\'s palette (it was copied, and its accent drifted back to the failing one)', () => {
  const read = (file: string) => palettes(fs.readFileSync(path.join(import.meta.dirname, '..', 'public', file), 'utf8'));
  const app = read('app.css');
  const offline = read('offline.css');
  for (const scheme of ['light', 'dark'] as const) {
    for (const [key, colour] of Object.entries(offline[scheme])) assert.equal(colour, app[scheme][key], `offline.css --${key} (${scheme})`);
  }
});

test('the accent passes WCAG AA (4.5:1) for button text and links, in light and dark', () => {
  const css = fs.readFileSync(path.join(import.meta.dirname, '..', 'public', 'app.css'), 'utf8');
  const { light, dark } = palettes(css);
  for (const [name, palette] of [['light', light], ['dark', dark]] as const) {
    for (const key of ['accent', 'accent-text', 'background', 'surface', 'text', 'muted', 'error', 'error-background']) {
      assert.ok(palette[key], `${name} palette defines --${key}`);
    }
    const pairs: Array<[string, string]> = [
      ['accent', 'accent-text'],
      ['accent', 'background'],
      ['accent', 'surface'],
      ['text', 'background'],
      ['muted', 'background'],
      ['muted', 'surface'],
      ['error', 'error-background'],
    ];
    for (const [foreground, background] of pairs) {
      const ratio = contrastRatio(palette[foreground]!, palette[background]!);
      assert.ok(ratio >= 4.5, `${name}: --${foreground} on --${background} is ${ratio.toFixed(2)}:1`);
    }
  }
});

test('code highlighting colours pass 4.5:1 on the code background, in light and dark', () => {
  const css = fs.readFileSync(path.join(import.meta.dirname, '..', 'public', 'app.css'), 'utf8');
  const { light, dark } = palettes(css);
  const colours = [...css.matchAll(/\.hljs-[\w-]+[^{]*\{\s*color:\s*(#[0-9a-fA-F]{6})/g)].map((match) => [match[1]!.toLowerCase(), match.index!] as const);
  const darkStart = css.indexOf('prefers-color-scheme: dark', css.indexOf('.hljs-'));
  assert.ok(colours.length >= 8, 'light and dark highlight colours are found');
  for (const [colour, index] of colours) {
    const background = index > darkStart && darkStart > 0 ? dark['code-background']! : light['code-background']!;
    const ratio = contrastRatio(colour, background);
    assert.ok(ratio >= 4.5, `${colour} on ${background} is ${ratio.toFixed(2)}:1`);
  }
});

// --- Pages ---

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
  const urls = ['/', '/memory', '/tools', '/c/12345'];
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

test('the memory page: 16 px editors, a live byte counter hook, and a reset that asks first', async (t) => {
  const { get } = await loggedIn(t);
  const page = (await get('/memory')).body;
  assert.match(page, /<span class="memory-size" id="memory-size" data-max-bytes="\d+">/);
  assert.match(page, /id="system-prompt-reset" data-confirm="[^"]+"/);
  assert.match(page, /<script src="\/static\/memory.js"><\/script>/);
  const css = fs.readFileSync(path.join(import.meta.dirname, '..', 'public', 'app.css'), 'utf8');
  const rule = /#memory-editor, #system-prompt-editor \{([^}]*)\}/.exec(css)![1]!;
  const size = /font:\s*(\d+)px/.exec(rule);
  assert.ok(size && Number(size[1]) >= 16, 'memory editors are at least 16px so iOS does not zoom');
});

test('saving the same memory again adds no version; a real change does', async (t) => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-polish-'));
  const database = openDatabase(folder);
  t.after(() => {
    database.close();
    fs.rmSync(folder, { recursive: true, force: true });
  });
  const memory = createMemoryFile({ file: path.join(folder, 'memory.md'), maxBytes: 2048, database });
  assert.equal((await memory.write('- likes tea\n', 'browser')).ok, true);
  const count = memory.versions().length;
  const same = await memory.write('- likes tea\r\n', 'browser');
  assert.equal(same.ok, true);
  assert.equal(same.ok && same.unchanged, true);
  assert.equal(memory.versions().length, count, 'the same text (CRLF or not) adds no version');
  assert.equal((await memory.write('- likes coffee\n', 'browser')).ok, true);
  assert.equal(memory.versions().length, count + 1);
  assert.equal(memory.versions()[0]!.content, '- likes coffee\n');
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
