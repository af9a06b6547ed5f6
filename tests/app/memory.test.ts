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
  assert.match(page.body, /class="memory-warning"[^>]*>The memory is 70 bytes, over the limit of 64/);
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
