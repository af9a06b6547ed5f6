/**
 * Deleting a chat: hidden at once from every list, search, page, export and socket; Undo brings it
 * back as it was for a few seconds; after that (or at the next start) it is removed for good.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { createAttachmentStore } from '../../src/storage/attachment-store.js';
import { createConversationStore } from '../../src/storage/conversation-store.js';
import type { SqliteDatabase } from '../../src/storage/database.js';
import { buildTestApp, csrfTokenFrom, openChatSocket, restartTestApp, type TestApp } from '../support/test-app.js';
import { smallJpeg } from '../support/test-photos.js';

async function loggedIn(testApp: TestApp) {
  const cookie = await testApp.login();
  const page = await testApp.app.inject({ url: '/', headers: { cookie } });
  return { cookie, token: csrfTokenFrom(page.body) };
}

function seed(database: SqliteDatabase) {
  const store = createConversationStore(database);
  const fruit = store.createConversation('Fruit', 'llama3.2:latest');
  const question = store.addMessage(fruit.id, 'user', 'Tell me about bananas');
  const attachments = createAttachmentStore(database);
  const photo = attachments.add({ mime: 'image/jpeg', bytes: smallJpeg, width: 12, height: 8 });
  attachments.linkToMessage([photo.id], fruit.id, question.id);
  const answer = store.addMessage(fruit.id, 'assistant', 'Bananas are yellow.');
  const weather = store.createConversation('Weather', 'llama3.2:latest');
  store.addMessage(weather.id, 'user', 'Will it rain?');
  return { store, fruit: fruit.id, weather: weather.id, answer: answer.id, photo: photo.id };
}

const rowExists = (database: SqliteDatabase, id: number) =>
  database.prepare<[number], { count: number }>('SELECT count(*) AS count FROM conversations WHERE id = ?').get(id)!.count > 0;

/** The purge runs on the chat service's timer: wait for its result (bounded). */
async function waitUntilPurged(database: SqliteDatabase, id: number): Promise<void> {
  for (let tries = 0; tries < 250 && rowExists(database, id); tries++) await sleep(20);
  assert.equal(rowExists(database, id), false, `chat ${id} was purged`);
}

test('a deleted chat is hidden from the list, search, pages, exports and the socket at once; Undo brings it back as it was', async (t) => {
  const testApp = await buildTestApp(t);
  const { app, database } = testApp;
  const { cookie, token } = await loggedIn(testApp);
  const { store, fruit, weather, answer, photo } = seed(database);
  const get = (url: string) => app.inject({ url, headers: { cookie, accept: 'text/html' } });
  assert.equal((await get(`/attachments/${photo}`)).statusCode, 200);
  const listIds = async (url: string) => [...(await get(url)).body.matchAll(/id="history-item-(\d+)"/g)].map((match) => Number(match[1]));
  assert.deepEqual(await listIds('/history'), [weather, fruit]);

  // From the Weather chat's page: the Fruit item leaves the list and the Undo comes, nothing else is swapped.
  const removed = await app.inject({
    method: 'DELETE',
    url: `/c/${fruit}`,
    headers: { cookie, 'x-csrf-token': token, 'hx-request': 'true', 'hx-current-url': `http://hearth.local/c/${weather}` },
  });
  assert.equal(removed.statusCode, 200);
  assert.equal(removed.headers['hx-reswap'], 'none');
  assert.match(removed.body, new RegExp(`<hx-partial hx-target="#history-item-${fruit}" hx-swap="delete">`));
  assert.match(removed.body, new RegExp(`<hx-partial hx-target="#undo-area" hx-swap="innerHTML">[\\s\\S]*Chat deleted[\\s\\S]*action="/c/${fruit}/restore"[\\s\\S]*name="next" value="/c/${weather}"`));

  assert.deepEqual(await listIds('/history'), [weather], 'not listed');
  assert.deepEqual(await listIds('/history?q=bananas'), [], 'not found by search');
  assert.equal(store.getConversation(fruit), undefined);
  const gone = [`/c/${fruit}`, `/c/${fruit}/export.md`, `/c/${fruit}/export.json`, `/messages/${answer}/markdown`, `/c/${fruit}/messages?before=${answer + 1}`];
  for (const url of [...gone, `/attachments/${photo}`, `/attachments/${photo}/thumbnail`]) {
    assert.equal((await get(url)).statusCode, 404, url);
  }
  // A socket asking for it gets nothing of it, and cannot write into it.
  const socket = await openChatSocket(await testApp.listen(), cookie, String(fruit));
  t.after(() => socket.close());
  socket.send({ type: 'send', message: 'Still there?', conversationId: String(fruit), model: '' });
  const refused = await socket.waitFor((message) => String(message.content ?? '').includes('no longer exists'));
  assert.ok(socket.messages.indexOf(refused) >= 0);
  assert.ok(!socket.messages.some((message) => message.event === 'reply-state' || message.target === '#chat-thread' && message.swap === 'innerHTML'), 'no catch-up of a deleted chat');
  assert.equal(store.listMessages(fruit).length, 2, 'nothing was added to it');

  // Undo: back where it was in the list, found by search, and the page it was deleted from opens.
  const undone = await app.inject({ method: 'POST', url: `/c/${fruit}/restore`, headers: { cookie }, payload: { _csrf: token, next: `/c/${weather}` } });
  assert.equal(undone.statusCode, 303);
  assert.equal(undone.headers.location, `/c/${weather}`);
  assert.deepEqual(await listIds('/history'), [weather, fruit]);
  assert.deepEqual(await listIds('/history?q=bananas'), [fruit]);
  assert.equal((await get(`/c/${fruit}/export.md`)).statusCode, 200);
  assert.equal((await get(`/attachments/${photo}`)).statusCode, 200, 'its photo is back too');
  assert.deepEqual(store.listMessages(fruit).map((message) => message.content), ['Tell me about bananas', 'Bananas are yellow.']);

  // Deleting the chat that is open sends the page to a new chat, which offers the Undo.
  const open = await app.inject({
    method: 'DELETE',
    url: `/c/${fruit}`,
    headers: { cookie, 'x-csrf-token': token, 'hx-request': 'true', 'hx-current-url': `http://hearth.local/c/${fruit}?at=3` },
  });
  assert.equal(open.headers['hx-redirect'], `/?deleted=${fruit}`);
  const landing = await get(`/?deleted=${fruit}`);
  assert.match(landing.body, /<div id="undo-area" class="undo-area" role="status">\s*<div class="undo-notice"[\s\S]*Chat deleted/);
  assert.match(landing.body, new RegExp(`name="next" value="/c/${fruit}"`));
  // Undo needs the login's token, as every change does.
  const forged = await app.inject({ method: 'POST', url: `/c/${fruit}/restore`, headers: { cookie }, payload: { next: '/' } });
  assert.equal(forged.statusCode, 403);
  assert.equal(store.getConversation(fruit), undefined);
  // A "next" that leaves the chat pages is not followed.
  const back = await app.inject({ method: 'POST', url: `/c/${fruit}/restore`, headers: { cookie }, payload: { _csrf: token, next: '//elsewhere.example/' } });
  assert.equal(back.headers.location, `/c/${fruit}`);
  assert.ok(store.getConversation(fruit));
});

test('a deleted chat is purged after the undo window: Undo is refused then, and the page offers none', async (t) => {
  const testApp = await buildTestApp(t, { dependencies: { undoDeleteMs: 100 } });
  const { app, database } = testApp;
  const { cookie, token } = await loggedIn(testApp);
  const { fruit, weather } = seed(database);

  const removed = await app.inject({ method: 'DELETE', url: `/c/${fruit}`, headers: { cookie, 'x-csrf-token': token } });
  assert.equal(removed.statusCode, 200);
  assert.ok(rowExists(database, fruit), 'kept for the undo window');
  await waitUntilPurged(database, fruit);
  assert.equal(database.prepare<[number], { count: number }>('SELECT count(*) AS count FROM messages WHERE conversation_id = ?').get(fruit)!.count, 0, 'its messages went with it');

  const late = await app.inject({ method: 'POST', url: `/c/${fruit}/restore`, headers: { cookie, accept: 'text/html' }, payload: { _csrf: token } });
  assert.equal(late.statusCode, 404);
  assert.match(late.body, /can no longer be brought back/);
  const landing = await app.inject({ url: `/?deleted=${fruit}`, headers: { cookie } });
  assert.doesNotMatch(landing.body, /undo-notice/);
  assert.ok(rowExists(database, weather), 'the other chat stays');
});

test('a chat deleted just before a restart is purged at the next start', async (t) => {
  const testApp = await buildTestApp(t, { dependencies: { undoDeleteMs: 600_000 } });
  const { cookie, token } = await loggedIn(testApp);
  const { fruit, weather } = seed(testApp.database);
  await testApp.app.inject({ method: 'DELETE', url: `/c/${fruit}`, headers: { cookie, 'x-csrf-token': token } });
  assert.ok(rowExists(testApp.database, fruit));
  await testApp.app.close();

  await restartTestApp(t, testApp, { undoDeleteMs: 600_000 });
  assert.equal(rowExists(testApp.database, fruit), false);
  assert.ok(rowExists(testApp.database, weather));
});
