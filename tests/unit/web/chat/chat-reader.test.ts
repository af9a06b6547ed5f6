/** What every reader of the thread sees of message versions. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { createChatReader } from '../../../../src/web/chat/chat-reader.js';
import { createChatView } from '../../../../src/web/chat/chat-view.js';
import { ReplyHub } from '../../../../src/replies/reply-hub.js';
import { projectRoot } from '../../../../src/config/project-root.js';
import { createTemplates } from '../../../../src/web/http/views.js';
import { createAttachmentStore } from '../../../../src/storage/attachment-store.js';
import { createConversationStore } from '../../../../src/storage/conversation-store.js';
import { openDatabase } from '../../../../src/storage/database.js';
import { createToolCallStore } from '../../../../src/storage/tool-call-store.js';
import { ToolRegistry } from '../../../../src/engine/tools/tool-registry.js';
import { addNumberedLines } from '../../../support/numbered-lines.js';

test('reader: a page shows every message\'s versions from one read, not one per message', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-versions-'));
  const database = openDatabase(dataDir);
  t.after(() => {
    database.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const store = createConversationStore(database);
  const { id } = store.createConversation('Reader', 'llama3');
  const ids = addNumberedLines(store, id, 60);
  // The last reply written again: 2 versions on it, none elsewhere.
  store.branchFrom(id, ids[59]!, 'assistant', 'line 60 again');
  const reads = { one: 0, many: 0 };
  const countingStore = {
    ...store,
    versionsOf: (message: Parameters<typeof store.versionsOf>[0]) => (reads.one++, store.versionsOf(message)),
    versionsOfMessages: (messages: Parameters<typeof store.versionsOfMessages>[0]) => (reads.many++, store.versionsOfMessages(messages)),
  };
  const reader = createChatReader({
    store: countingStore,
    toolCalls: createToolCallStore(database),
    hub: new ReplyHub(),
    view: createChatView(createTemplates(projectRoot)),
    attachments: createAttachmentStore(database),
    tools: new ToolRegistry([]),
  });
  const page = reader.messagePage(id);
  assert.equal(page.messages.length, 40);
  assert.deepEqual(reads, { one: 0, many: 1 }, 'one read for the whole page');
  assert.deepEqual(page.messages.filter((message) => message.versions).map((message) => [message.content, message.versions]), [
    ['line 60 again', { position: 2, count: 2 }],
  ]);
  reader.threadHtml(id);
  assert.deepEqual(reads, { one: 0, many: 2 }, 'a re-rendered thread too');
});
