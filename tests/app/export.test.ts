import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createConversationStore } from '../../src/storage/conversation-store.js';
import { createToolCallStore } from '../../src/storage/tool-call-store.js';
import { buildTestApp } from '../support/test-app.js';

const hostile = 'Look: <script>alert(1)</script> ``` closing fence? ````';

async function conversationWithToolCall(t: import('node:test').TestContext) {
  const harness = await buildTestApp(t);
  const store = createConversationStore(harness.database);
  const toolCalls = createToolCallStore(harness.database);
  const conversation = store.createConversation('Bees & <honey>\nplans', 'llama3.2:latest');
  store.addMessage(conversation.id, 'user', 'What time is it?');
  const reply = store.addMessage(conversation.id, 'assistant', hostile, { model: 'llama3.2:latest' });
  const call = toolCalls.add(reply.id, conversation.id, 'current_time', '{"timezone":"Europe/Paris"}', 'running');
  toolCalls.finish(call.id, 'done', 'It is 10:00 ```` </pre>', 12);
  store.updateMessage(reply.id, { status: 'stopped' });
  return { ...harness, conversation };
}

test('a conversation exports as Markdown: a download with every message, its status and its tool calls, text kept as text', async (t) => {
  const { app, login, conversation } = await conversationWithToolCall(t);
  const cookie = await login();
  const response = await app.inject({ url: `/c/${conversation.id}/export.md`, headers: { cookie } });
  assert.equal(response.statusCode, 200);
  assert.equal(response.headers['content-type'], 'text/markdown; charset=utf-8');
  assert.equal(response.headers['content-disposition'], `attachment; filename="hearth-conversation-${conversation.id}-bees-honey-plans.md"`);
  assert.equal(response.headers['x-content-type-options'], 'nosniff');
  const markdown = response.body;
  assert.match(markdown, /^# Bees & \\<honey\\> plans\n/, 'the title is one escaped heading line');
  assert.match(markdown, /## You\n\n_[\d-]+T[\d:.]+Z_\n\nWhat time is it\?/);
  assert.match(markdown, /## Assistant \(llama3\.2:latest, stopped\)/);
  assert.match(markdown, /\*\*Tool call: current\\_time\*\* \(done, 12 ms\)\n\n```json\n\{\n {2}"timezone": "Europe\/Paris"\n\}\n```/);
  // The result holds four backticks, so its fence has five: the result cannot end the fence early.
  assert.match(markdown, /Result:\n\n`````\nIt is 10:00 ```` <\/pre>\n`````/);
  assert.ok(markdown.includes(hostile), 'the reply itself is exactly what the model wrote');
});

test('a conversation exports as JSON with the same messages and tool calls', async (t) => {
  const { app, login, conversation } = await conversationWithToolCall(t);
  const cookie = await login();
  const response = await app.inject({ url: `/c/${conversation.id}/export.json`, headers: { cookie } });
  assert.equal(response.statusCode, 200);
  assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
  assert.match(String(response.headers['content-disposition']), /^attachment; filename="hearth-conversation-\d+-bees-honey-plans\.json"$/);
  const exported = response.json();
  assert.equal(exported.format, 'hearth-conversation');
  assert.equal(exported.version, 1);
  assert.equal(exported.conversation.title, 'Bees & <honey>\nplans');
  assert.deepEqual(
    exported.messages.map((message: { role: string; content: string; status: string }) => [message.role, message.content, message.status]),
    [
      ['user', 'What time is it?', 'complete'],
      ['assistant', hostile, 'stopped'],
    ],
  );
  assert.deepEqual(exported.messages[1].toolCalls[0], {
    name: 'current_time',
    params: { timezone: 'Europe/Paris' },
    status: 'done',
    result: 'It is 10:00 ```` </pre>',
    durationMs: 12,
    createdAt: exported.messages[1].toolCalls[0].createdAt,
  });
});

test('export needs a login, answers 404 for a missing conversation and 400 for a bad id, and the chat page links to both formats', async (t) => {
  const { app, login, conversation } = await conversationWithToolCall(t);
  for (const format of ['md', 'json']) {
    const anonymous = await app.inject({ url: `/c/${conversation.id}/export.${format}` });
    assert.notEqual(anonymous.statusCode, 200);
    assert.doesNotMatch(anonymous.body, /What time is it/);
  }
  const cookie = await login();
  assert.equal((await app.inject({ url: '/c/999/export.md', headers: { cookie } })).statusCode, 404);
  const notAnId = await app.inject({ url: '/c/abc/export.json', headers: { cookie } });
  assert.equal(notAnId.statusCode, 400);
  assert.match(notAnId.json().error, /conversation id in the address must be a whole number/);
  const page = await app.inject({ url: `/c/${conversation.id}`, headers: { cookie } });
  assert.match(page.body, new RegExp(`id="export-markdown"[^>]*href="/c/${conversation.id}/export\\.md" download`));
  assert.match(page.body, new RegExp(`id="export-json"[^>]*href="/c/${conversation.id}/export\\.json" download`));
  const newChat = await app.inject({ url: '/', headers: { cookie } });
  assert.doesNotMatch(newChat.body, /export-markdown/, 'a new chat has nothing to export yet');
});
