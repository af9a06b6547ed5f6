import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createConversationStore } from '../../src/storage/conversation-store.js';
import { buildTestApp } from '../support/test-app.js';

test('Edit gets the editor of one of your messages from /messages/:id/editor, its text escaped, for a logged-in session only', async (t) => {
  const harness = await buildTestApp(t);
  const store = createConversationStore(harness.database);
  const { id } = store.createConversation('Edit', 'llama3');
  const question = store.addMessage(id, 'user', '\nSay <b>hi</b> & "bye"');
  const answer = store.addMessage(id, 'assistant', 'Hi.');

  const anonymous = await harness.app.inject({ method: 'GET', url: `/messages/${question.id}/editor` });
  assert.equal(anonymous.statusCode, 302);
  assert.match(String(anonymous.headers.location), /^\/login/);

  const cookie = await harness.login();
  const response = await harness.app.inject({ method: 'GET', url: `/messages/${question.id}/editor`, headers: { cookie } });
  assert.equal(response.statusCode, 200);
  assert.match(String(response.headers['content-type']), /^text\/html; charset=utf-8/);
  // The text as text (a leading newline kept: the parser drops the one after <textarea>), sent over the socket as an edit.
  assert.match(response.body, /<textarea class="message-editor" id="message-\d+-editor" name="message" rows="3" maxlength="32000" required autofocus>\n\nSay &lt;b&gt;hi&lt;\/b&gt; &amp; &quot;bye&quot;<\/textarea>/);
  assert.match(response.body, new RegExp(`<input type="hidden" name="messageId" value="${question.id}">`));
  assert.match(response.body, /<form class="message-edit-form" hx-ws:send hx-include="#model-select">/);

  for (const [url, status] of [[`/messages/${answer.id}/editor`, 404], ['/messages/999/editor', 404], ['/messages/abc/editor', 400]] as const) {
    assert.equal((await harness.app.inject({ method: 'GET', url, headers: { cookie } })).statusCode, status, url);
  }
});
