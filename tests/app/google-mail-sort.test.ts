/*
 * Sorting mail from a chat: sort_email waits on a card naming the action and each message;
 * Deny changes nothing, Approve changes exactly those messages' labels in the stand-in.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import type { ScriptedReply } from '../support/ollama-standin.js';
import { account, startGoogleChat } from '../support/google-setup.js';

const reply = (content: string): ScriptedReply => ({ content });

/** A Google chat, and the stand-in account's labels of each message, sorted. */
async function startSortChat(t: TestContext) {
  const chat = await startGoogleChat(t);
  const labelsOf = () => Object.fromEntries(chat.google.standin.accounts.get(account)!.messages.map((message) => [message.id, [...(message.labelIds ?? ['INBOX'])].sort()]));
  return { ...chat, labelsOf };
}

test('sort_email: the card names the action and each message; Deny changes nothing', async (t) => {
  const { socket, standin, google, awaitingApproval, decide, turnFinished, toolCalls, labelsOf } = await startSortChat(t);
  const before = labelsOf();
  standin.enqueue(reply('[TOOL:sort_email]action: trash\nids: 18c2f0a1b2c3d4e6[/TOOL]'), reply('Kept it.'));
  socket.send({ type: 'send', message: 'Bin the garden newsletter' });
  await awaitingApproval();
  assert.equal(toolCalls.listForConversation(1)[0]!.preview, 'Move to the trash (recoverable from Gmail\'s Trash for 30 days):\n  "Winter tips" from Garden News <news@garden.example>');
  decide('deny');
  await turnFinished();
  assert.deepEqual(labelsOf(), before);
  assert.ok(!google.standin.apiRequests.some((request) => request.method === 'POST'), 'nothing was changed in Gmail');
});

test('sort_email: Approve changes exactly those messages — trash and untrash, read, archive, a label', async (t) => {
  const { socket, standin, awaitingApproval, decide, turnFinished, toolCalls, labelsOf } = await startSortChat(t);
  const before = labelsOf();
  standin.enqueue(
    reply('[TOOL:sort_email]action: trash\nids: 18c2f0a1b2c3d4e6[/TOOL]'),
    reply('[TOOL:sort_email]{"action": "add_label", "label": "school", "ids": "18c2f0a1b2c3d4e5"}[/TOOL]'),
    reply('[TOOL:sort_email]action: mark_read\nids: 18c2f0a1b2c3d4e5[/TOOL]'),
    reply('[TOOL:sort_email]action: archive\nids: 18c2f0a1b2c3d4e5, 18c2f0a1b2c3d4e7[/TOOL]'),
    reply('[TOOL:sort_email]action: untrash\nids: 18c2f0a1b2c3d4e6[/TOOL]'),
    reply('Sorted.'),
  );
  socket.send({ type: 'send', message: 'Tidy my inbox' });
  const expected: Array<Record<string, string[]>> = [
    { '18c2f0a1b2c3d4e6': ['INBOX', 'TRASH'] },
    { '18c2f0a1b2c3d4e5': ['INBOX', 'Label_1', 'UNREAD'] },
    { '18c2f0a1b2c3d4e5': ['INBOX', 'Label_1'] },
    { '18c2f0a1b2c3d4e5': ['Label_1'], '18c2f0a1b2c3d4e7': [] },
    { '18c2f0a1b2c3d4e6': ['INBOX'] },
  ];
  let state = before;
  for (const [index, change] of expected.entries()) {
    await awaitingApproval(index + 1);
    assert.deepEqual(labelsOf(), state, `nothing changes while call ${index + 1} waits`);
    decide('approve');
    state = { ...state, ...change };
    if (index < expected.length - 1) await awaitingApproval(index + 2);
    else await turnFinished();
    assert.deepEqual(labelsOf(), state, `call ${index + 1} changed exactly its messages`);
  }
  assert.match(toolCalls.listForConversation(1)[1]!.preview!, /^Add the label "school":\n {2}"Trip on Friday" from School Office/);
  assert.ok(toolCalls.listForConversation(1).every((call) => call.status === 'done'));
});

test('sort_email with a label that does not exist fails before anything changes, naming the labels there are', async (t) => {
  const { socket, standin, awaitingApproval, decide, turnFinished, toolCalls, labelsOf } = await startSortChat(t);
  const before = labelsOf();
  standin.enqueue(reply('[TOOL:sort_email]action: add_label\nlabel: Taxes\nids: 18c2f0a1b2c3d4e5[/TOOL]'), reply('No such label.'));
  socket.send({ type: 'send', message: 'Label it Taxes' });
  await awaitingApproval();
  assert.equal(toolCalls.listForConversation(1)[0]!.preview, `Could not prepare this: ${account} has no label "Taxes". Its labels: School.`);
  decide('approve');
  await turnFinished();
  assert.equal(toolCalls.listForConversation(1)[0]!.status, 'failed');
  assert.deepEqual(labelsOf(), before);
});
