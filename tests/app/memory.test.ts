import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { cookieHeader, csrfTokenFrom, startChatHarness } from '../support/test-app.js';

function startMemoryChat(t: import('node:test').TestContext, environment: Record<string, string> = {}) {
  return startChatHarness(t, { environment });
}

test('a missing memory file is created, and a hand edit reaches the very next reply', async (t) => {
  const { socket, standin, app, turnFinished } = await startMemoryChat(t);
  assert.equal(fs.existsSync(app.memory.file), false);
  standin.enqueue({ content: 'Hi.' }, { content: 'Hi again.' });
  socket.send({ type: 'send', message: 'Hello' });
  await turnFinished();
  assert.equal(fs.readFileSync(app.memory.file, 'utf8'), '');
  assert.match(standin.requests[0]!.messages[0]!.content, /<memory>\n\(empty\)\n<\/memory>/);

  fs.writeFileSync(app.memory.file, '- The user is called Ada.\n');
  socket.messages.length = 0;
  socket.send({ type: 'send', message: 'Who am I?', conversationId: '1' });
  await turnFinished();
  assert.match(standin.requests[1]!.messages[0]!.content, /<memory>\n- The user is called Ada\.\n<\/memory>/);
  // Creating the empty file was no change: the hand edit is the only version.
  assert.deepEqual(app.memory.versions().map((version) => version.author), ['hand edit']);
});

test('[MEMORY_UPDATE] replaces the memory, keeps a version, and is not shown as text', async (t) => {
  const { socket, standin, app, turnFinished, database } = await startMemoryChat(t);
  standin.enqueue({ content: 'Noted! [MEMORY_UPDATE]\n- Likes green tea\n[/MEMORY_UPDATE]' });
  socket.send({ type: 'send', message: 'I like green tea' });
  await turnFinished();
  assert.equal(fs.readFileSync(app.memory.file, 'utf8'), '- Likes green tea');
  assert.equal(app.memory.versions()[0]!.author, 'assistant');
  assert.equal(standin.requests.length, 1, 'an accepted update needs no second round');
  const message = database.prepare("SELECT content FROM messages WHERE role = 'assistant'").get() as { content: string };
  assert.equal(message.content, 'Noted!');
  assert.ok(socket.messages.some((item) => String(item.content).includes('Memory update')), 'a card shows the update');
});

test('an update over the cap is refused, the file is unchanged, and the model is told to condense', async (t) => {
  const { socket, standin, app, turnFinished } = await startMemoryChat(t, { MEMORY_MAX_BYTES: '100' });
  fs.writeFileSync(app.memory.file, '- short\n');
  standin.enqueue(
    { content: `[MEMORY_UPDATE]${'- a long fact\n'.repeat(20)}[/MEMORY_UPDATE]` },
    { content: '[MEMORY_UPDATE]- a long fact (x20)[/MEMORY_UPDATE] Condensed.' },
  );
  socket.send({ type: 'send', message: 'Remember lots' });
  await turnFinished();
  assert.match(standin.requests[1]!.messages.at(-1)!.content, /Memory not changed: the new memory is 279 bytes and the limit is 100\. Condense it/);
  assert.equal(fs.readFileSync(app.memory.file, 'utf8'), '- a long fact (x20)');
});

test('a hand edit over the cap is still used up to the cap, and the page warns', async (t) => {
  const { app, cookies, standin, socket, turnFinished } = await startMemoryChat(t, { MEMORY_MAX_BYTES: '64' });
  fs.writeFileSync(app.memory.file, 'A'.repeat(60) + 'BBBBBBBBBB');
  standin.enqueue({ content: 'ok' });
  socket.send({ type: 'send', message: 'hi' });
  await turnFinished();
  assert.match(standin.requests[0]!.messages[0]!.content, new RegExp(`<memory>\\n${'A'.repeat(60)}BBBB\\n</memory>`));
  const page = await app.inject({ method: 'GET', url: '/memory', headers: { cookie: cookies } });
  assert.match(page.body, /class="memory-fullness memory-warning" role="alert">Memory is over its limit \(109% full\): only the first part reaches the assistant\./);
});

test('the /memory page edits, lists versions and restores one', async (t) => {
  const { app, cookies } = await startMemoryChat(t);
  fs.writeFileSync(app.memory.file, '- first\n');
  let page = await app.inject({ method: 'GET', url: '/memory', headers: { cookie: cookies } });
  assert.match(page.body, /<textarea id="memory-editor" name="content"[^>]*>- first\n<\/textarea>/);
  assert.match(page.body, /id="memory-save"/);
  const revision = /name="revision" value="([^"]+)"/.exec(page.body)![1]!;
  const jar = cookieHeader(page.headers['set-cookie'], cookies);
  const saved = await app.inject({
    method: 'POST',
    url: '/memory',
    headers: { cookie: jar },
    payload: { content: '- second <script>alert(1)</script>\n', revision, _csrf: csrfTokenFrom(page.body) },
  });
  assert.equal(saved.statusCode, 303);
  assert.equal(fs.readFileSync(app.memory.file, 'utf8'), '- second <script>alert(1)</script>\n');

  page = await app.inject({ method: 'GET', url: '/memory', headers: { cookie: jar } });
  assert.doesNotMatch(page.body, /<script>alert/, 'memory is escaped on the page');
  const versions = [...page.body.matchAll(/id="memory-version-(\d+)"/g)].map((match) => Number(match[1]));
  assert.equal(versions.length, 2, "hand edit, then browser");
  const firstHandEdit = app.memory.versions().find((version) => version.content === '- first\n')!;
  const restored = await app.inject({
    method: 'POST',
    url: `/memory/versions/${firstHandEdit.id}/restore`,
    headers: { cookie: cookieHeader(page.headers['set-cookie'], jar) },
    payload: { _csrf: csrfTokenFrom(page.body) },
  });
  assert.equal(restored.statusCode, 303);
  assert.equal(fs.readFileSync(app.memory.file, 'utf8'), '- first\n');
  assert.equal(app.memory.versions()[0]!.author, 'restore');
});

test('saving an out-of-date editor is refused with the text kept (a concurrent edit is not clobbered)', async (t) => {
  const { app, cookies } = await startMemoryChat(t);
  fs.writeFileSync(app.memory.file, '- original\n');
  const page = await app.inject({ method: 'GET', url: '/memory', headers: { cookie: cookies } });
  const revision = /name="revision" value="([^"]+)"/.exec(page.body)![1]!;
  fs.writeFileSync(app.memory.file, '- edited in vim meanwhile\n');
  const response = await app.inject({
    method: 'POST',
    url: '/memory',
    headers: { cookie: cookieHeader(page.headers['set-cookie'], cookies) },
    payload: { content: '- my browser edit\n', revision, _csrf: csrfTokenFrom(page.body) },
  });
  assert.equal(response.statusCode, 409);
  assert.match(response.body, /<textarea id="memory-editor"[^>]*>- my browser edit\n<\/textarea>/);
  assert.match(response.body, /class="memory-current">- edited in vim meanwhile/);
  assert.equal(fs.readFileSync(app.memory.file, 'utf8'), '- edited in vim meanwhile\n');
});

/** The memory page as the browser has it: its cookies, CSRF token and the revision its forms carry. */
async function openMemoryPage(app: import('../support/test-app.js').TestHearth, cookies: string) {
  const page = await app.inject({ method: 'GET', url: '/memory', headers: { cookie: cookies } });
  const jar = cookieHeader(page.headers['set-cookie'], cookies);
  const revision = /name="revision" value="([^"]*)"/.exec(page.body)![1]!;
  const post = (url: string, payload: Record<string, string>) =>
    app.inject({ method: 'POST', url, headers: { cookie: jar }, payload: { revision, _csrf: csrfTokenFrom(page.body), ...payload } });
  return { page, body: page.body, post };
}

const entriesOf = (body: string) => [...body.matchAll(/<p class="memory-entry-text">([^<]*)<\/p>/g)].map((match) => match[1]);

test('/memory lists what the assistant remembers, says how full it is in words, and shows no server path', async (t) => {
  const { app, cookies } = await startMemoryChat(t);
  fs.writeFileSync(app.memory.file, '- The user is called Ada.\n- Keeps bees <b>in Leeds</b>.\n');
  const { body } = await openMemoryPage(app, cookies);
  assert.deepEqual(entriesOf(body), ['The user is called Ada.', 'Keeps bees &lt;b&gt;in Leeds&lt;/b&gt;.']);
  assert.match(body, /<p id="memory-fullness" class="memory-fullness">Memory is 3% full\.<\/p>/);
  assert.doesNotMatch(body, /\d+ \/ \d+ bytes/);
  assert.equal(body.includes(app.memory.file), false, 'no server path on the page');
  assert.doesNotMatch(body, /system-prompt-editor|\{\{tools\}\}/, 'the system prompt is on /settings');
  // Each entry has its Edit and Remove; the whole file is one tap away, closed.
  assert.match(body, /<form method="post" action="\/memory\/entries\/2" class="memory-entry-form">/);
  assert.match(body, /<form method="post" action="\/memory\/entries\/2\/remove" class="memory-entry-remove">/);
  assert.match(body, /<details class="memory-file" id="memory-file">\s*<summary class="memory-file-summary">Edit the whole file<\/summary>/);
});

test('Add, Edit and Remove on /memory rewrite memory.md, each keeping a version', async (t) => {
  const { app, cookies } = await startMemoryChat(t);
  fs.writeFileSync(app.memory.file, '- likes tea\n');

  let added = await (await openMemoryPage(app, cookies)).post('/memory/entries', { text: 'keeps bees' });
  assert.equal(added.statusCode, 303);
  assert.equal(added.headers.location, '/memory?saved=added#memory-list');
  assert.equal(fs.readFileSync(app.memory.file, 'utf8'), '- likes tea\n- keeps bees\n');

  const edited = await (await openMemoryPage(app, cookies)).post('/memory/entries/1', { text: 'likes green tea' });
  assert.equal(edited.statusCode, 303);
  assert.equal(fs.readFileSync(app.memory.file, 'utf8'), '- likes green tea\n- keeps bees\n');

  const removed = await (await openMemoryPage(app, cookies)).post('/memory/entries/2/remove', {});
  assert.equal(removed.statusCode, 303);
  assert.equal(fs.readFileSync(app.memory.file, 'utf8'), '- likes green tea\n');
  const { body } = await openMemoryPage(app, cookies);
  assert.deepEqual(entriesOf(body), ['likes green tea']);
  assert.deepEqual(app.memory.versions().map((version) => version.author), ['browser', 'browser', 'browser', 'hand edit']);

  added = await (await openMemoryPage(app, cookies)).post('/memory/entries', { text: '   ' });
  assert.equal(added.statusCode, 400);
  assert.match(added.body, /Write what the assistant should remember/);
  assert.equal(fs.readFileSync(app.memory.file, 'utf8'), '- likes green tea\n');
});

test('a hand-edited memory that is not a list (with Windows line ends) shows line by line, and a change keeps the rest of it', async (t) => {
  const { app, cookies } = await startMemoryChat(t);
  const handEdited = '# Ada\r\n\r\nName: Ada\r\nLikes: tea\r\n\r\n> Never before 10.\r\n';
  fs.writeFileSync(app.memory.file, handEdited);
  const memoryPage = await openMemoryPage(app, cookies);
  assert.deepEqual(entriesOf(memoryPage.body), ['Name: Ada', 'Likes: tea', '&gt; Never before 10.']);
  const response = await memoryPage.post('/memory/entries/3', { text: 'Likes: green tea' });
  assert.equal(response.statusCode, 303);
  // Saved with \n line ends, as every save from the browser is.
  assert.equal(fs.readFileSync(app.memory.file, 'utf8'), handEdited.replace('Likes: tea', 'Likes: green tea').replace(/\r\n/g, '\n'));
});

test('an Add over the size cap is refused in plain words and writes nothing', async (t) => {
  const { app, cookies } = await startMemoryChat(t, { MEMORY_MAX_BYTES: '64' });
  fs.writeFileSync(app.memory.file, '- likes tea\n');
  const response = await (await openMemoryPage(app, cookies)).post('/memory/entries', { text: 'keeps bees and hens and a small goat called Pip on the allotment' });
  assert.equal(response.statusCode, 409);
  assert.match(response.body, /role="alert">There is no room for that: it would make the memory 123% full\. Remove or shorten something first\.</);
  assert.equal(fs.readFileSync(app.memory.file, 'utf8'), '- likes tea\n');
});

test('Remove on a page that is out of date writes nothing and shows the memory as it is now', async (t) => {
  const { app, cookies } = await startMemoryChat(t);
  fs.writeFileSync(app.memory.file, '- one\n- two\n');
  const memoryPage = await openMemoryPage(app, cookies);
  fs.writeFileSync(app.memory.file, '- two\n- three\n');
  const response = await memoryPage.post('/memory/entries/1/remove', {});
  assert.equal(response.statusCode, 409);
  assert.match(response.body, /The memory changed since this page showed it/);
  assert.deepEqual(entriesOf(response.body), ['two', 'three']);
  assert.equal(fs.readFileSync(app.memory.file, 'utf8'), '- two\n- three\n');
});
