import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeToolCall } from '../../../../src/web/chat/tool-call-words.js';

test('tool cards say what happened in plain words', () => {
  const call = (name: string, status: Parameters<typeof describeToolCall>[0]['status'], result = '') => describeToolCall({ name, status, result });
  assert.equal(call('search_emails', 'running'), 'Searching your email…');
  assert.equal(call('search_emails', 'done', '3 messages for "invoice", newest first:\na\nb\nc'), 'Searched your email — 3 results');
  assert.equal(call('search_emails', 'done', '1 message for "x", newest first:\na'), 'Searched your email — 1 result');
  assert.equal(call('search_emails', 'done', 'No messages match "x".'), 'Searched your email — no results');
  assert.equal(call('search_emails', 'failed', 'Error from search_emails: Gmail refused the token\nmore'), 'Could not search your email: Gmail refused the token');
  assert.equal(call('create_draft', 'awaiting-approval'), 'Wants to create a draft — allow?');
  assert.equal(call('create_draft', 'denied', 'The person denied this action.'), 'Not run — you said no');
  assert.equal(call('read_email', 'denied', 'Refused: this call repeats text found inside a tool result'), 'Not run — it repeated text from an email or tool result');
  assert.equal(call('calculator', 'done', '6 * 7 = 42'), 'Used the calculator');
  assert.equal(call('current_time', 'done'), 'Checked the current time');
  assert.equal(call('list_events', 'running'), 'Checking your calendar…');
  assert.equal(call('find_free_time', 'done'), 'Looked for free time in your calendar');
  assert.equal(call('memory_update', 'awaiting-approval'), 'Wants to update your memory — allow?');
  assert.equal(call('find_tools', 'done'), 'Looked for a tool');
  assert.equal(call('files.read_text_file', 'done'), 'Used files.read_text_file');
  assert.equal(call('files.write_file', 'expired'), 'Not run — no answer in time');
  assert.equal(call('files.write_file', 'failed', `Error from files.write_file: ${'z'.repeat(500)}`).length, 'Could not use files.write_file: '.length + 160);
});
