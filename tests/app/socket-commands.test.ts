import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startChatHarness } from '../support/test-app.js';

test('socket commands with bad fields each get a message naming the field; the socket stays open and nothing reaches the model', async (t) => {
  const { socket, standin, store, turnFinished } = await startChatHarness(t);
  const bad: Array<[Record<string, unknown>, string]> = [
    [{ type: 'send', message: 'Hi', conversationId: 'abc' }, 'The conversation id in the request must be empty or a whole number'],
    [{ type: 'send', message: 'Hi', conversationId: '9007199254740993' }, 'The conversation id in the request must be empty or a whole number'],
    [{ type: 'edit', message: 'Better' }, 'The message id is missing from the request.'],
    [{ type: 'regenerate', messageId: '-Infinity' }, 'The message id in the request must be a whole number from 1 to 9007199254740991.'],
    [{ type: 'approval', toolCallId: '1.5', decision: 'approve' }, 'The tool call id in the request must be a whole number'],
    [{ type: 'approval', toolCallId: 1, decision: 'maybe' }, 'The answer in the request must be approve or deny.'],
    [{ type: 'stop', conversationId: '0' }, 'The conversation id in the request must be empty or a whole number'],
  ];
  for (const [command, sentence] of bad) {
    socket.send(command);
    await socket.waitFor((message) => String(message.content).includes(sentence));
  }
  assert.equal(socket.socket.readyState, socket.socket.OPEN);
  assert.equal(standin.requests.length, 0);
  assert.equal(store.listConversations(10).length, 0);

  // The same socket still works, with a conversation id as the form sends it (text).
  standin.enqueue({ content: 'Still here.' }, { content: 'And again.' });
  socket.send({ type: 'send', message: 'Are you there?', conversationId: '' });
  await turnFinished();
  socket.send({ type: 'send', message: 'Again?', conversationId: '1' });
  await socket.waitFor((message) => String(message.content).includes('And again.'));
  assert.equal(store.listMessages(1).length, 4);
});
