/**
 * Editing a message and writing a reply again keep what they replace as earlier versions: the
 * socket commands here; the store's tree of messages in tests/unit/storage/message-versions.test.ts
 * and what the reader shows in tests/unit/web/chat/chat-reader.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createConversationStore } from '../../src/storage/conversation-store.js';
import { buildTestApp, startChatHarness, type ChatSocket } from '../support/test-app.js';
import { addNumberedLines } from '../support/numbered-lines.js';

const contents = (messages: Array<{ content: string }>) => messages.map((message) => message.content);

/** A re-rendered thread: after this page's edit or regenerate it comes scrolled to its end ('innerHTML scroll:bottom'). */
const isThreadSwap = (message: { target?: unknown; swap?: unknown }) => message.target === '#chat-thread' && String(message.swap).startsWith('innerHTML');

/** Waits for the thread to be re-rendered and returns its HTML. */
async function nextThread(socket: ChatSocket, seen: number): Promise<string> {
  await socket.waitFor(() => socket.messages.filter(isThreadSwap).length > seen);
  return String(socket.messages.filter(isThreadSwap).at(-1)!.content);
}
const threadSwaps = (socket: ChatSocket) => socket.messages.filter(isThreadSwap).length;

test('socket: edit answers the new text with only the shown history, and the old turn is a version', async (t) => {
  const { socket, standin, store, turnFinished } = await startChatHarness(t);
  standin.enqueue({ content: 'Paris.' }, { content: 'About 2 million.' }, { content: 'Lyon is smaller.' });
  socket.send({ type: 'send', message: 'Capital of France?' });
  await turnFinished();
  socket.messages.length = 0;
  socket.send({ type: 'send', message: 'How many people live there?', conversationId: '1' });
  await turnFinished();

  socket.messages.length = 0;
  socket.send({ type: 'edit', messageId: 3, message: 'How many people live in Lyon?' });
  const thread = await nextThread(socket, 0);
  // The re-rendered thread: the edit with ‹ 2/2 ›, and its reply streaming.
  assert.match(thread, /id="message-5"[\s\S]*How many people live in Lyon\?[\s\S]*aria-label="Earlier version"[\s\S]*2\/2/);
  assert.match(thread, /id="message-6"[^>]*data-status="streaming"/);
  assert.ok(!thread.includes('About 2 million'), 'the replaced reply is not shown');
  await turnFinished();
  assert.deepEqual(
    standin.requests[2]!.messages.slice(1).map((message) => `${message.role}:${message.content}`),
    ['user:Capital of France?', 'assistant:Paris.', 'user:How many people live in Lyon?'],
    'the model sees only the visible path',
  );
  assert.deepEqual(contents(store.listMessages(1)), ['Capital of France?', 'Paris.', 'How many people live in Lyon?', 'Lyon is smaller.']);

  // ‹ back to version 1: the old question and its answer return.
  const seen = threadSwaps(socket);
  socket.send({ type: 'version', messageId: 5, direction: 'earlier' });
  const earlier = await nextThread(socket, seen);
  assert.match(earlier, /How many people live there\?[\s\S]*1\/2[\s\S]*About 2 million\./);
  assert.ok(!earlier.includes('Lyon'));
  // The edit's thread came scrolled to its end, where the new reply streams; a version switch keeps the place.
  assert.deepEqual(socket.messages.filter(isThreadSwap).map((message) => message.swap), ['innerHTML scroll:bottom', 'innerHTML']);
  socket.send({ type: 'version', messageId: 3, direction: 'earlier' });
  await socket.waitFor((message) => String(message.content).includes('There is no earlier version'));

  // The export follows the thread shown.
  assert.deepEqual(contents(store.listMessages(1)), ['Capital of France?', 'Paris.', 'How many people live there?', 'About 2 million.']);
});

test('socket: regenerate and Retry write the last reply again, keeping the old one as a version', async (t) => {
  const { socket, standin, store, turnFinished } = await startChatHarness(t);
  standin.enqueue({ status: 500, error: 'model runner crashed' }, { content: 'Second try worked.' }, { content: 'Third answer.' });
  socket.send({ type: 'send', message: 'Tell me a joke' });
  await turnFinished();
  const failed = store.getMessage(2)!;
  assert.equal(failed.status, 'failed');
  const failedHtml = String(socket.messages.filter((message) => message.target === '#message-2').at(-1)!.content);
  assert.match(failedHtml, /class="button button-primary message-retry"[^>]*aria-label="Retry this reply"/);

  // Retry = regenerate on the failed reply.
  socket.messages.length = 0;
  socket.send({ type: 'regenerate', messageId: 2 });
  const retried = await nextThread(socket, 0);
  assert.match(retried, /id="message-3"[^>]*data-status="streaming"/);
  await turnFinished();
  assert.equal(store.getMessage(3)!.content, 'Second try worked.');
  assert.deepEqual(standin.requests[1]!.messages.slice(1).map((message) => message.content), ['Tell me a joke'], 'the failed reply is not sent to the model');

  // Regenerate again, with the model now picked: versions 1/3, 2/3, 3/3 on the reply.
  socket.messages.length = 0;
  socket.send({ type: 'regenerate', messageId: 3, model: 'qwen3:latest' });
  await turnFinished();
  assert.equal(standin.requests[2]!.model, 'qwen3:latest', 'written by the model picked now');
  assert.equal(store.getConversation(1)!.model, 'qwen3:latest');
  const html = String(socket.messages.filter((message) => message.target === '#message-4').at(-1)!.content);
  assert.match(html, /3\/3/);
  assert.deepEqual(contents(store.listMessages(1)), ['Tell me a joke', 'Third answer.']);

  // The person's own message is edited, not regenerated; a replaced reply (a stale page) is refused.
  socket.send({ type: 'regenerate', messageId: 1 });
  await socket.waitFor((message) => String(message.content).includes('Only a reply can be written again'));
  socket.send({ type: 'regenerate', messageId: 2 });
  await socket.waitFor((message) => String(message.content).includes('an earlier version that is not shown now'));
  assert.deepEqual(contents(store.listMessages(1)), ['Tell me a joke', 'Third answer.']);
});

const shownIds = (html: string) => [...html.matchAll(/<article[^>]* id="message-(\d+)"/g)].map((match) => Number(match[1]));
/** The ‹ n/m › a message of a rendered thread shows, if any. */
const versionOf = (html: string, id: number) =>
  /message-version-position">(\d+\/\d+)</.exec(html.split('<article').find((part) => part.includes(`id="message-${id}"`)) ?? '')?.[1];

test('socket: any reply can be written again, and Retry works on any failed one: the turns from it on become an earlier version', async (t) => {
  const { socket, standin, store, turnFinished } = await startChatHarness(t);
  standin.enqueue(
    { status: 500, error: 'model runner crashed' },
    { content: 'Rome.' },
    { content: 'Madrid.' },
    { content: 'Paris, at last.' },
    { content: 'Rome, again.' },
  );
  for (const [index, question] of ['Capital of France?', 'Capital of Italy?', 'Capital of Spain?'].entries()) {
    socket.messages.length = 0;
    socket.send({ type: 'send', message: question, ...(index > 0 ? { conversationId: '1' } : {}) });
    await turnFinished();
  }
  // 1 France?  2 (failed)  3 Italy?  4 Rome.  5 Spain?  6 Madrid.
  assert.equal(store.getMessage(2)!.status, 'failed');
  assert.deepEqual(contents(store.listMessages(1)), ['Capital of France?', '', 'Capital of Italy?', 'Rome.', 'Capital of Spain?', 'Madrid.']);

  // Retry on the failed first reply, two turns up: a new reply to the same question.
  socket.messages.length = 0;
  socket.send({ type: 'regenerate', messageId: 2 });
  const retried = await nextThread(socket, 0);
  assert.deepEqual(shownIds(retried), [1, 7], 'the thread shown is the new path');
  assert.match(retried, /id="message-7"[^>]*data-status="streaming"/);
  await turnFinished();
  assert.deepEqual(
    standin.requests[3]!.messages.slice(1).map((message) => `${message.role}:${message.content}`),
    ['user:Capital of France?'],
    'the model answers the same question, without the turns after it',
  );
  assert.deepEqual(contents(store.listMessages(1)), ['Capital of France?', 'Paris, at last.']);
  assert.equal(versionOf(String(socket.messages.filter((message) => message.target === '#message-7').at(-1)!.content), 7), '2/2');

  // ‹ on the new reply: the failed one returns with every turn that followed it.
  socket.messages.length = 0;
  socket.send({ type: 'version', messageId: 7, direction: 'earlier' });
  const earlier = await nextThread(socket, 0);
  assert.deepEqual(shownIds(earlier), [1, 2, 3, 4, 5, 6]);
  assert.equal(versionOf(earlier, 2), '1/2');

  // Regenerate the middle reply (not the last): Spain's turn becomes its earlier version.
  socket.messages.length = 0;
  socket.send({ type: 'regenerate', messageId: 4 });
  const regenerated = await nextThread(socket, 0);
  assert.deepEqual(shownIds(regenerated), [1, 2, 3, 8]);
  await turnFinished();
  const request = standin.requests[4]!.messages.slice(1).map((message) => message.content).join('\n');
  assert.match(request, /Capital of Italy\?$/, 'the same question is answered again');
  assert.ok(!request.includes('Rome.') && !request.includes('Spain'), 'nothing from the replaced turns reaches the model');
  assert.deepEqual(contents(store.listMessages(1)), ['Capital of France?', '', 'Capital of Italy?', 'Rome, again.']);
  const finished = String(socket.messages.filter((message) => message.target === '#message-8').at(-1)!.content);
  assert.equal(versionOf(finished, 8), '2/2');

  // ‹ on the middle reply: Spain's turn is still there.
  socket.messages.length = 0;
  socket.send({ type: 'version', messageId: 8, direction: 'earlier' });
  const back = await nextThread(socket, 0);
  assert.deepEqual(shownIds(back), [1, 2, 3, 4, 5, 6]);
  assert.deepEqual([versionOf(back, 2), versionOf(back, 4)], ['1/2', '1/2'], 'both replies show their versions');
  assert.equal(standin.requests.length, 5);
});

test('socket: regenerating a reply that used tools replaces its whole turn, from any of its rounds', async (t) => {
  const { socket, standin, store, baseUrl, cookies } = await startChatHarness(t);
  const { id } = store.createConversation('Tools', 'llama3.2:latest');
  const question = store.addMessage(id, 'user', 'What is 6 x 7?');
  const firstRound = store.addMessage(id, 'assistant', 'Let me calculate.');
  const secondRound = store.addMessage(id, 'assistant', 'It is 42.');
  store.addMessage(id, 'user', 'Thanks!');
  store.addMessage(id, 'assistant', 'You are welcome.');
  assert.equal(secondRound.parentId, firstRound.id);
  await socket.close();
  const { openChatSocket } = await import('../support/test-app.js');
  const page = await openChatSocket(baseUrl, cookies, String(id));
  t.after(() => page.close());

  standin.enqueue({ content: 'Forty-two.' });
  page.send({ type: 'regenerate', messageId: secondRound.id });
  const thread = await nextThread(page, 0);
  const [newReply] = shownIds(thread).slice(1);
  assert.deepEqual(shownIds(thread), [question.id, newReply], 'both rounds and the turn after them are replaced');
  await page.waitFor((message) => message.event === 'reply-finished');
  assert.deepEqual(contents(store.listMessages(id)), ['What is 6 x 7?', 'Forty-two.']);
  assert.deepEqual(store.versionsOf(store.getMessage(newReply!)!).ids, [firstRound.id, newReply], 'a version of the turn\'s first round');
});

test('socket: nothing reshapes the thread while a reply streams, and bad commands are refused', async (t) => {
  const { socket, standin, store, turnFinished } = await startChatHarness(t);
  standin.enqueue({ content: 'one two three four five six', chunkDelayMs: 80 });
  socket.send({ type: 'send', message: 'Count' });
  await socket.waitFor((message) => message.target === '#message-2-tail');
  socket.send({ type: 'edit', messageId: 1, message: 'Count slowly' });
  await socket.waitFor((message) => String(message.content).includes('still being written'));
  socket.send({ type: 'regenerate', messageId: 2 });
  await turnFinished();
  assert.equal(socket.messages.filter((message) => String(message.content).includes('still being written')).length, 2);
  assert.deepEqual(contents(store.listMessages(1)), ['Count', 'one two three four five six'], 'nothing changed');

  socket.send({ type: 'edit', messageId: 2, message: 'Not mine' });
  await socket.waitFor((message) => String(message.content).includes('Only your own messages can be edited'));
  socket.send({ type: 'edit', messageId: 1, message: '   ' });
  await socket.waitFor((message) => String(message.content).includes('Type a message first'));
  socket.send({ type: 'edit', messageId: 1, message: 'y'.repeat(40_000) });
  await socket.waitFor((message) => String(message.content).includes('the limit is 32,000'));
  socket.send({ type: 'version', messageId: 999, direction: 'later' });
  await socket.waitFor((message) => String(message.content).includes('That message no longer exists'));
  socket.send({ type: 'version', messageId: 1, direction: 'sideways' });
  await socket.waitFor((message) => String(message.content).includes('The version to show in the request must be earlier or later.'));
  assert.equal(standin.requests.length, 1, 'no refused command reached the model');
  assert.deepEqual(contents(store.listMessages(1)), ['Count', 'one two three four five six']);
});

test('socket: an edit with <script> stays text, and a page showing an old version gets the new thread on reconnect', async (t) => {
  const { socket, standin, turnFinished, baseUrl, cookies } = await startChatHarness(t);
  standin.enqueue({ content: 'First.' }, { content: 'Second.' });
  socket.send({ type: 'send', message: 'Hello' });
  await turnFinished();
  socket.messages.length = 0;
  socket.send({ type: 'edit', messageId: 1, message: '<script>alert(1)</script> hi' });
  const thread = await nextThread(socket, 0);
  assert.ok(!thread.includes('<script>alert'), 'escaped');
  assert.match(thread, /&lt;script&gt;alert\(1\)&lt;\/script&gt; hi/);
  await turnFinished();

  // A page that still shows message 2 (now hidden) reconnects: it gets the whole thread.
  const { openChatSocket } = await import('../support/test-app.js');
  const stale = await openChatSocket(baseUrl, cookies, '1&after=2');
  t.after(() => stale.close());
  const fresh = await nextThread(stale, 0);
  assert.match(fresh, /id="message-3"[\s\S]*id="message-4"[\s\S]*Second\./);
  assert.ok(!fresh.includes('id="message-2"'));
});

test('socket: switching versions of a message far up the chat shows the window around it, however far up', async (t) => {
  const { socket, store, baseUrl, cookies } = await startChatHarness(t);
  const { id } = store.createConversation('Long', 'llama3');
  const ids = addNumberedLines(store, id, 500);
  // Message 21 (a question 480 messages above the newest) gets a second version, then the first is shown again.
  const edited = store.branchFrom(id, ids[20]!, 'user', 'line 21 edited');
  store.addMessage(id, 'assistant', 'answer to the edit');
  store.showVersion(edited.id, ids[20]!);
  await socket.close();
  const { openChatSocket } = await import('../support/test-app.js');
  const page = await openChatSocket(baseUrl, cookies, String(id));
  t.after(() => page.close());

  // To the edit: the thread is short now (20 messages, the edit and its answer), all of it shown.
  page.send({ type: 'version', messageId: ids[20], direction: 'later' });
  const thread = await nextThread(page, 0);
  assert.match(thread, new RegExp(`id="message-${ids[19]}"[\\s\\S]*line 21 edited[\\s\\S]*2/2[\\s\\S]*answer to the edit`));
  assert.ok(!thread.includes('line 22') && !thread.includes('load-earlier') && !thread.includes('load-later'));

  // Back: 500 messages again. Not the newest page (where message 21 is not): the window around the
  // message above the switched one, as a search match opens, with loaders above and below.
  page.send({ type: 'version', messageId: edited.id, direction: 'earlier' });
  const back = await nextThread(page, 1);
  const window = shownIds(back);
  assert.ok(window.length <= 40, `one page (${window.length} messages)`);
  assert.ok(window.includes(ids[19]!) && window.includes(ids[20]!), 'the switched message and the one above it are shown');
  assert.deepEqual(window, ids.slice(ids.indexOf(window[0]!), ids.indexOf(window.at(-1)!) + 1), 'a contiguous stretch of the thread');
  assert.ok(window[0]! < ids[19]! && window.at(-1)! > ids[30]!, 'with messages above it, and more below it');
  assert.match(back, new RegExp(`hx-get="/c/${id}/messages\\?before=${window[0]}"`), 'the loader above');
  assert.match(back, new RegExp(`hx-get="/c/${id}/messages\\?after=${window.at(-1)}"`), 'the loader below');
  assert.match(back, /line 21<\/div>[\s\S]*1\/2/);
  assert.ok(!back.includes('line 500'), 'not the newest page');

  // The page that switches says the first message it shows (it had loaded earlier pages, from
  // message 3): the thread it gets back starts there, and goes a page below the switch.
  page.send({ type: 'version', messageId: ids[20], direction: 'later' });
  await nextThread(page, 2);
  page.send({ type: 'version', messageId: edited.id, direction: 'earlier', shownFrom: ids[2] });
  const kept = shownIds(await nextThread(page, 3));
  assert.equal(kept[0], ids[2], 'the earlier pages the page showed are kept');
  assert.deepEqual(kept, ids.slice(2, ids.indexOf(kept.at(-1)!) + 1));
  assert.ok(kept.at(-1)! > ids[30]! && kept.at(-1)! < ids[100]!, 'a page below the switch, not the 480 messages to the end');

  // A shownFrom that is not a shown message above the switch (hidden, or below it) is not used.
  for (const shownFrom of [edited.id, ids[300]]) {
    page.send({ type: 'version', messageId: ids[20], direction: 'later' });
    await nextThread(page, threadSwaps(page));
    page.send({ type: 'version', messageId: edited.id, direction: 'earlier', shownFrom });
    assert.deepEqual(shownIds(await nextThread(page, threadSwaps(page))), window, `shownFrom ${shownFrom}: the window around the switch`);
  }
});

test('Copy reads a reply\'s Markdown from /messages/:id/markdown, for a logged-in session only', async (t) => {
  const harness = await buildTestApp(t);
  const store = createConversationStore(harness.database);
  const { id } = store.createConversation('Copy', 'llama3');
  const markdown = 'Some **bold** and <script>alert(1)</script>\n\n```js\nx < 1\n```';
  const message = store.addMessage(id, 'assistant', markdown);

  const anonymous = await harness.app.inject({ method: 'GET', url: `/messages/${message.id}/markdown` });
  assert.equal(anonymous.statusCode, 302);
  assert.match(String(anonymous.headers.location), /^\/login/);

  const cookie = await harness.login();
  const response = await harness.app.inject({ method: 'GET', url: `/messages/${message.id}/markdown`, headers: { cookie } });
  assert.equal(response.statusCode, 200);
  assert.equal(response.body, markdown, 'the Markdown exactly as written');
  assert.match(String(response.headers['content-type']), /^text\/markdown; charset=utf-8/);
  assert.equal(response.headers['x-content-type-options'], 'nosniff', 'never sniffed into HTML');
  assert.equal((await harness.app.inject({ method: 'GET', url: '/messages/999/markdown', headers: { cookie } })).statusCode, 404);
  for (const url of ['/messages/abc/markdown', '/messages/-1/markdown']) {
    const refused = await harness.app.inject({ method: 'GET', url, headers: { cookie } });
    assert.equal(refused.statusCode, 400, url);
    assert.match(refused.body, /message id in the address must be a whole number/, url);
  }
});
