import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maxCommandBytes, readSocketCommand } from '../../../../src/web/chat/socket-commands.js';

const read = (command: unknown) => readSocketCommand(Buffer.from(JSON.stringify(command)), false);
const idRule = 'must be a whole number from 1 to 9007199254740991';

test('each command type is read by its own schema: form text becomes numbers, an empty field stays empty', () => {
  // As htmx sends the chat form: every value text, plus its headers and the form's token.
  assert.deepEqual(read({ type: 'send', message: 'Hi', conversationId: '', model: 'llama3.2', attachments: '3,4', _csrf: 't', headers: { 'HX-Request': 'true' } }).command, {
    type: 'send',
    message: 'Hi',
    conversationId: '',
    model: 'llama3.2',
    attachments: '3,4',
    _csrf: 't',
    headers: { 'HX-Request': 'true' },
  });
  assert.deepEqual(read({ type: 'send', message: 'Hi', conversationId: '12' }).command, { type: 'send', message: 'Hi', conversationId: 12 });
  assert.deepEqual(read({ type: 'send', attachments: '5' }).command, { type: 'send', message: '', attachments: '5' }, 'photos alone: the text is empty');
  assert.deepEqual(read({ type: 'edit', messageId: '7', message: 'Better' }).command, { type: 'edit', messageId: 7, message: 'Better' });
  assert.deepEqual(read({ type: 'regenerate', messageId: 7 }).command, { type: 'regenerate', messageId: 7 });
  assert.deepEqual(read({ type: 'version', messageId: 7, direction: 'earlier', shownFrom: '3' }).command, { type: 'version', messageId: 7, direction: 'earlier', shownFrom: 3 });
  assert.deepEqual(read({ type: 'approval', toolCallId: '2', decision: 'approve', always: 'yes' }).command, { type: 'approval', toolCallId: 2, decision: 'approve', always: 'yes' });
  assert.deepEqual(read({ type: 'stop' }).command, { type: 'stop' });
});

test('a bad command gets one sentence naming the field and the rule', () => {
  const cases: Array<[unknown, string]> = [
    [{ type: 'send', message: 'x', conversationId: 'abc' }, `The conversation id in the request must be empty or a whole number from 1 to 9007199254740991.`],
    [{ type: 'send', message: ['x'] }, 'The message in the request must be text.'],
    [{ type: 'send', message: 'x', attachments: { id: 3 } }, 'The attached photos in the request must be photo ids separated by commas.'],
    [{ type: 'edit', message: 'x' }, 'The message id is missing from the request.'],
    [{ type: 'edit', messageId: 0, message: 'x' }, `The message id in the request ${idRule}.`],
    [{ type: 'regenerate', messageId: '1.5' }, `The message id in the request ${idRule}.`],
    [{ type: 'regenerate', messageId: 'Infinity' }, `The message id in the request ${idRule}.`],
    [{ type: 'version', messageId: 1, direction: 'sideways' }, 'The version to show in the request must be earlier or later.'],
    [{ type: 'version', messageId: 1 }, 'The version to show is missing from the request.'],
    [{ type: 'approval', toolCallId: 2 ** 53, decision: 'approve' }, `The tool call id in the request ${idRule}.`],
    [{ type: 'approval', toolCallId: 1, decision: 'maybe' }, 'The answer in the request must be approve or deny.'],
    [{ type: 'stop', conversationId: '-1' }, `The conversation id in the request must be empty or a whole number from 1 to 9007199254740991.`],
  ];
  for (const [command, sentence] of cases) {
    const { command: read_, problem } = read(command);
    assert.equal(read_, undefined, JSON.stringify(command));
    assert.equal(problem, `${sentence} Reload the page and try again.`, JSON.stringify(command));
  }
});

test('what is not a command at all is refused before any schema', () => {
  assert.match(readSocketCommand(Buffer.from('not json'), false).problem!, /not JSON/);
  assert.match(readSocketCommand(Buffer.from('[1]'), false).problem!, /could not read that message/);
  assert.match(readSocketCommand(Buffer.from('{}'), true).problem!, /Only text messages/);
  assert.match(readSocketCommand(Buffer.alloc(maxCommandBytes + 1, 32), false).problem!, /too large/);
  assert.equal(read({ type: 'dance' }).problem, 'Unknown request type "dance".');
  assert.equal(read({ type: '__proto__' }).problem, 'Unknown request type "__proto__".');
  assert.equal(read({ message: 'no type' }).problem, 'Unknown request type "undefined".');
});
