/** The store's tree of messages: editing a message or writing a reply again keeps what it replaces as an earlier version. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { createConversationStore } from '../../../src/storage/conversation-store.js';
import { openDatabase } from '../../../src/storage/database.js';

function openStore(t: TestContext) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-versions-'));
  const database = openDatabase(dataDir);
  t.after(() => {
    database.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return createConversationStore(database);
}

const contents = (messages: Array<{ content: string }>) => messages.map((message) => message.content);

test('store: a new version hides the turns it replaces; switching back shows them again', (t) => {
  const store = openStore(t);
  const { id } = store.createConversation('Versions', 'llama3');
  const question = store.addMessage(id, 'user', 'Q1');
  const answer = store.addMessage(id, 'assistant', 'A1');
  const followUp = store.addMessage(id, 'user', 'Q2');
  const secondAnswer = store.addMessage(id, 'assistant', 'A2');
  assert.deepEqual([question.parentId, answer.parentId, followUp.parentId], [null, question.id, answer.id], 'each message follows the one before');

  // Edit Q1: it and everything after it leave the thread.
  const edited = store.branchFrom(id, question.id, 'user', 'Q1 edited');
  const editedAnswer = store.addMessage(id, 'assistant', 'A1 edited');
  assert.equal(edited.parentId, null, 'the new version has the parent of the message it replaces');
  assert.deepEqual(contents(store.listMessages(id)), ['Q1 edited', 'A1 edited']);
  assert.equal(store.getMessage(secondAnswer.id)!.hidden, true, 'kept, hidden');
  assert.deepEqual(store.versionsOf(store.getMessage(edited.id)!), { ids: [question.id, edited.id], index: 1 });
  assert.deepEqual(store.versionsOf(store.getMessage(editedAnswer.id)!).ids, [editedAnswer.id], 'a reply to one version is not a version of another');

  // Back to version 1: the old thread returns whole, the edit is kept hidden.
  store.showVersion(edited.id, question.id);
  assert.deepEqual(contents(store.listMessages(id)), ['Q1', 'A1', 'Q2', 'A2']);
  assert.equal(store.getMessage(editedAnswer.id)!.hidden, true);
  assert.equal(store.versionsOf(store.getMessage(question.id)!).index, 0);

  // Regenerate the last reply: A2 becomes an earlier version of A2'.
  const regenerated = store.branchFrom(id, followUp.id + 1, 'assistant', 'A2 again');
  assert.equal(regenerated.parentId, followUp.id);
  assert.deepEqual(contents(store.listMessages(id)), ['Q1', 'A1', 'Q2', 'A2 again']);
  assert.deepEqual(store.versionsOf(regenerated).ids, [secondAnswer.id, regenerated.id]);
  assert.equal(store.lastUserMessage(id)!.id, followUp.id);

  // Forward to the edit and back: the path under Q1 is its newest replies (A2 again).
  store.showVersion(question.id, edited.id);
  assert.deepEqual(contents(store.listMessages(id)), ['Q1 edited', 'A1 edited']);
  store.showVersion(edited.id, question.id);
  assert.deepEqual(contents(store.listMessages(id)), ['Q1', 'A1', 'Q2', 'A2 again']);

  // A switch to something that is not a sibling, or from a hidden message, changes nothing.
  store.showVersion(question.id, followUp.id);
  store.showVersion(secondAnswer.id, regenerated.id);
  assert.deepEqual(contents(store.listMessages(id)), ['Q1', 'A1', 'Q2', 'A2 again']);
});

test('store: paging, catch-up and search read only the thread shown', (t) => {
  const store = openStore(t);
  const { id } = store.createConversation('Paging', 'llama3');
  const ids: number[] = [];
  for (let index = 1; index <= 10; index++) ids.push(store.addMessage(id, index % 2 ? 'user' : 'assistant', `zebra ${index}`).id);
  // Edit message 5: messages 5..10 are hidden, two new ones follow message 4.
  store.branchFrom(id, ids[4]!, 'user', 'zebra edited');
  store.addMessage(id, 'assistant', 'zebra answer');
  const shown = ['zebra 1', 'zebra 2', 'zebra 3', 'zebra 4', 'zebra edited', 'zebra answer'];
  assert.deepEqual(contents(store.listMessagesPage(id, 3)), shown.slice(-3));
  assert.deepEqual(contents(store.listMessagesPage(id, 10, ids[9]!)), shown.slice(0, 4), 'before a hidden id: only shown ones');
  assert.deepEqual(contents(store.listMessagesFrom(id, ids[3]!)), shown.slice(3));
  const hits = store.search('zebra', 50).map((hit) => hit.messageId);
  assert.equal(hits.length, 6);
  assert.ok(!hits.includes(ids[9]!), 'hidden versions are not found by search');
});

test('store: the versions of many messages come in one read, the same as one by one', (t) => {
  const store = openStore(t);
  const { id } = store.createConversation('Batch', 'llama3');
  const first = store.addMessage(id, 'user', 'Q1');
  store.addMessage(id, 'assistant', 'A1');
  const q2 = store.addMessage(id, 'user', 'Q2');
  store.addMessage(id, 'assistant', 'A2');
  // Two versions of the first question (no parent), three of the reply to Q2.
  const firstAgain = store.branchFrom(id, first.id, 'user', 'Q1 again');
  store.addMessage(id, 'assistant', 'A1 again');
  store.showVersion(firstAgain.id, first.id);
  store.branchFrom(id, q2.id + 1, 'assistant', 'A2 b');
  store.branchFrom(id, q2.id + 1, 'assistant', 'A2 c');
  const shown = store.listMessages(id);
  assert.deepEqual(contents(shown), ['Q1', 'A1', 'Q2', 'A2 c']);
  const batch = store.versionsOfMessages(shown);
  assert.deepEqual(
    shown.map((message) => batch.get(message.id)),
    shown.map((message) => store.versionsOf(message)),
  );
  assert.deepEqual(shown.map((message) => `${batch.get(message.id)!.index + 1}/${batch.get(message.id)!.ids.length}`), ['1/2', '1/1', '1/1', '3/3']);
  assert.equal(store.versionsOfMessages([]).size, 0);
});
