import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderMarkdown } from '../../src/engine/markdown/render-markdown.js';
import { createConversationStore } from '../../src/storage/conversation-store.js';
import { buildTestApp, csrfTokenFrom, openChatSocket, startChatHarness, type ChatSocket } from '../support/test-app.js';

const isSwap = (target: string, swap?: string) => (message: Record<string, unknown>) =>
  message.target === target && (swap === undefined || message.swap === swap);

const isAppend = (target: string) => (message: Record<string, unknown>) => message.event === 'append' && message.target === target;

/** All the text streamed into one element, in order. */
function streamedText(socket: ChatSocket, target: string): string {
  return socket.messages
    .filter(isAppend(target))
    .map((message) => String(message.text))
    .join('');
}

test('a message is saved before the model is called, and the reply streams then renders as Markdown', async (t) => {
  // The sidebar's fallback (sent anyway after a second without words) is lengthened: on a loaded machine the first words can take longer.
  const { socket, standin, store } = await startChatHarness(t, { dependencies: { sidebarWaitMs: 60_000 } });
  let savedBeforeModel = false;
  standin.setHandler(() => {
    savedBeforeModel = store.listConversations(10).length === 1 && store.listMessages(1)[0]?.content === 'Hi there';
    return { content: 'Here is **bold** & <b>raw</b>.', chunkDelayMs: 5 };
  });
  socket.send({ type: 'send', message: 'Hi there', conversationId: '', model: 'llama3.2:latest' });

  const started = await socket.waitFor((message) => message.event === 'conversation-started');
  assert.equal(started.url, '/c/1');
  await socket.waitFor((message) => message.event === 'message-accepted');
  const final = await socket.waitFor(isSwap('#message-2', 'outerHTML'));
  assert.ok(savedBeforeModel, 'the user message was in the database when Ollama was asked');

  // Streamed text goes as data for chat.js to add as text (never as HTML for htmx to swap);
  // the final render is sanitized Markdown.
  assert.equal(streamedText(socket, '#message-2-tail'), 'Here is **bold** & <b>raw</b>.');
  assert.ok(!socket.messages.some((message) => message.target === '#message-2-tail' && 'content' in message), 'no streamed text is swapped as HTML (one paragraph: no finished block before the end)');
  assert.match(String(final.content), /<strong>bold<\/strong> &amp; &lt;b&gt;raw&lt;\/b&gt;/);
  assert.match(String(final.content), /data-status="complete"/);
  // The sidebar comes again whole, the new chat under Today and marked current.
  const list = socket.messages.find(isSwap('#history-list', 'innerHTML'));
  assert.match(String(list?.content), /<h2 class="history-group-title">Today<\/h2>[\s\S]*id="history-item-1"[\s\S]*aria-current="page"/, 'the new conversation is added to the list');
  // The header's title comes with it, now renamable (its form posts to the new chat).
  const titleArea = socket.messages.find(isSwap('#chat-title-area', 'outerHTML'));
  assert.match(String(titleArea?.content), /<span class="chat-title-text" id="chat-title-text">Hi there<\/span>[\s\S]*hx-post="\/c\/1\/title"/);
  // And the tab's title, as HTML.
  assert.equal(socket.messages.find(isSwap('title', 'innerHTML'))?.content, 'Hi there · Hearth');
  // The sidebar item waits for the reply's first words, which a phone then shows sooner.
  const firstText = socket.messages.findIndex((message) => message.event === 'append' && message.target === '#message-2-tail');
  assert.ok(firstText > 0 && socket.messages.findIndex(isSwap('#history-list', 'innerHTML')) > firstText, 'the sidebar item comes after the first text');

  const saved = store.listMessages(1);
  assert.deepEqual(saved.map((message) => [message.role, message.status]), [['user', 'complete'], ['assistant', 'complete']]);
  assert.equal(saved[1]!.content, 'Here is **bold** & <b>raw</b>.');
  // The model got the system prompt and the user's message.
  const request = standin.requests[0]!;
  assert.equal(request.messages[0]!.role, 'system');
  assert.deepEqual(request.messages.at(-1), { role: 'user', content: 'Hi there' });
});

test('the conversation keeps its model and the model gets the whole history', async (t) => {
  const { socket, standin, store } = await startChatHarness(t);
  standin.enqueue({ content: 'First answer.' }, { content: 'Second answer.' });
  socket.send({ type: 'send', message: 'One', conversationId: '', model: 'qwen3:latest' });
  await socket.waitFor(isSwap('#message-2', 'outerHTML'));
  socket.send({ type: 'send', message: 'Two', conversationId: '1', model: '' });
  await socket.waitFor(isSwap('#message-4', 'outerHTML'));
  assert.equal(store.getConversation(1)!.model, 'qwen3:latest');
  assert.equal(standin.requests[1]!.model, 'qwen3:latest');
  assert.deepEqual(
    standin.requests[1]!.messages.slice(1).map((message) => `${message.role}:${message.content}`),
    ['user:One', 'assistant:First answer.', 'user:Two'],
  );
});

test('thinking streams apart from the answer', async (t) => {
  const { socket, standin, store } = await startChatHarness(t);
  standin.enqueue({ thinking: 'Let me think.', content: 'Answer.' });
  socket.send({ type: 'send', message: 'Why?', model: 'qwen3:latest' });
  const final = await socket.waitFor(isSwap('#message-2', 'outerHTML'));
  assert.equal(streamedText(socket, '#message-2-thinking'), 'Let me think.');
  assert.equal(streamedText(socket, '#message-2-tail'), 'Answer.');
  assert.match(String(final.content), /class="thinking-section"[\s\S]*Let me think\./);
  assert.equal(store.getMessage(2)!.thinking, 'Let me think.');
  assert.equal(standin.requests[0]!.think, true);
});

test('stop ends the reply at once, aborts the Ollama request and keeps the partial text', async (t) => {
  const { socket, standin, store } = await startChatHarness(t);
  // The first render loads highlight.js and sanitize-html (on first use, not at start): done
  // here, so the time limit below is Stop's alone.
  renderMarkdown('`warm`');
  standin.enqueue({ content: 'one two three four five six seven eight nine ten', chunkDelayMs: 100 });
  socket.send({ type: 'send', message: 'Count' });
  await socket.waitFor((message) => isAppend('#message-2-tail')(message) && String(message.text).includes('two'));
  socket.send({ type: 'stop' });
  const final = await socket.waitFor(isSwap('#message-2', 'outerHTML'));
  assert.match(String(final.content), /data-status="stopped"/);
  const saved = store.getMessage(2)!;
  assert.equal(saved.status, 'stopped');
  assert.match(saved.content, /^one two/);
  assert.ok(!saved.content.includes('ten'));
  await standin.waitForRequests(1);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(standin.requests[0]!.aborted, true);
});

test('a reply goes on without its socket, and a new socket catches up and keeps streaming', async (t) => {
  const { socket, standin, store, baseUrl, cookies } = await startChatHarness(t);
  standin.enqueue({ content: 'alpha beta gamma delta epsilon zeta eta theta', chunkDelayMs: 60 });
  socket.send({ type: 'send', message: 'Greek' });
  await socket.waitFor((message) => isAppend('#message-2-tail')(message) && String(message.text).includes('beta'));
  await socket.close(); // the phone went to sleep

  await new Promise((resolve) => setTimeout(resolve, 150));
  const reopened = await openChatSocket(baseUrl, cookies, '1');
  t.after(() => reopened.close());
  const catchUp = await reopened.waitFor(isSwap('#message-2', 'outerHTML'));
  assert.match(String(catchUp.content), /chat-message-streaming/);
  assert.match(String(catchUp.content), /alpha beta/);
  const final = await reopened.waitFor((message) => message.target === '#message-2' && String(message.content).includes('data-status="complete"'), 5000);
  assert.match(String(final.content), /theta/);
  assert.equal(store.getMessage(2)!.content, 'alpha beta gamma delta epsilon zeta eta theta');
});

test('a mid-stream error keeps the partial text and names the problem', async (t) => {
  const { socket, standin, store } = await startChatHarness(t);
  standin.enqueue({ content: 'partial words here and more', errorAfterChunks: 2, midStreamError: 'out of memory' });
  socket.send({ type: 'send', message: 'Go' });
  const final = await socket.waitFor(isSwap('#message-2', 'outerHTML'));
  assert.match(String(final.content), /class="chat-error-text">Ollama stopped with an error while writing the reply\.<\/p>/);
  assert.match(String(final.content), /<summary>Details<\/summary>[^<]*out of memory/);
  const saved = store.getMessage(2)!;
  assert.equal(saved.status, 'failed');
  assert.equal(saved.content, 'partial words ');
});

test("Ollama's killed model process reads as the model stopping (usually out of memory), not as a dropped connection", async (t) => {
  const { socket, standin, store } = await startChatHarness(t);
  standin.enqueue({ content: 'partial words here and more', errorAfterChunks: 2, midStreamError: 'llama runner process has terminated: signal: killed' });
  socket.send({ type: 'send', message: 'Go' });
  const final = await socket.waitFor(isSwap('#message-2', 'outerHTML'));
  const html = String(final.content);
  assert.match(
    html,
    /<p class="chat-error-text">The model stopped: Ollama&#39;s model process was killed \(usually out of memory\)\. Try a smaller model, or a shorter context: start a new chat\.<\/p>/,
  );
  assert.match(html, /<summary>Details<\/summary>[^<]*llama runner process has terminated: signal: killed/, 'the exact words under Details');
  assert.doesNotMatch(html, /dropped|connection/i);
  const saved = store.getMessage(2)!;
  assert.equal(saved.status, 'failed');
  assert.equal(saved.content, 'partial words ', 'the text so far is kept');

  // Another way the runner ends: a crash, not the out-of-memory killer.
  standin.enqueue({ content: 'more', errorAfterChunks: 1, midStreamError: 'llama runner process has terminated: exit status 2' });
  socket.send({ type: 'send', message: 'Again', conversationId: '1' });
  const crashed = await socket.waitFor(isSwap('#message-4', 'outerHTML'));
  assert.match(String(crashed.content), /<p class="chat-error-text">The model stopped: Ollama&#39;s model process crashed\. Try a smaller model/);
});

test('a dropped connection to Ollama keeps the partial text and says so', async (t) => {
  const { socket, standin, store } = await startChatHarness(t);
  standin.enqueue({ content: 'some words then nothing', dropAfterChunks: 2 });
  socket.send({ type: 'send', message: 'Go' });
  const final = await socket.waitFor(isSwap('#message-2', 'outerHTML'));
  assert.match(String(final.content), /connection to Ollama .* dropped/);
  assert.equal(store.getMessage(2)!.content, 'some words ');
});

test('a missing model gives a specific error with the command to fix it', async (t) => {
  const { socket } = await startChatHarness(t);
  socket.send({ type: 'send', message: 'Hello', model: 'mistral:7b' });
  const final = await socket.waitFor(isSwap('#message-2', 'outerHTML'));
  assert.match(String(final.content), /The model &quot;mistral:7b&quot; is not installed.*ollama pull mistral:7b/);
});

test('Ollama not running gives a specific error and the server keeps serving', async (t) => {
  const { socket, standin, app, cookies } = await startChatHarness(t);
  await standin.close();
  socket.send({ type: 'send', message: 'Hello', model: 'llama3.2:latest' });
  const final = await socket.waitFor(isSwap('#message-2', 'outerHTML'));
  assert.match(String(final.content), /Ollama is not answering at http:\/\/127\.0\.0\.1:\d+/);
  const page = await app.inject({ method: 'GET', url: '/c/1', headers: { cookie: cookies } });
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /class="chat-error/);
});

test('a hung Ollama is timed out and can be stopped before it answers', async (t) => {
  const { socket, standin, store } = await startChatHarness(t, { chatModel: { firstChunkTimeoutMs: 300, chunkTimeoutMs: 300 } });
  standin.enqueue({ hang: true });
  socket.send({ type: 'send', message: 'Hello' });
  // Generous: the 300 ms limit is what is tested; a busy machine adds seconds to the first render.
  const final = await socket.waitFor(isSwap('#message-2', 'outerHTML'));
  assert.match(String(final.content), /did not start answering/);
  assert.equal(store.getMessage(2)!.status, 'failed');
});

test('malformed and oversized socket messages are refused with a message; the socket survives', async (t) => {
  const { socket, standin } = await startChatHarness(t);
  socket.socket.send('this is not json');
  await socket.waitFor((message) => String(message.content).includes('not JSON'));
  socket.socket.send(JSON.stringify({ type: 'send', message: 'x'.repeat(300 * 1024) }));
  await socket.waitFor((message) => String(message.content).includes('too large'));
  socket.send({ type: 'send', message: 'y'.repeat(40_000) });
  await socket.waitFor((message) => String(message.content).includes('the limit is 32,000'));
  socket.send({ type: 'dance' });
  await socket.waitFor((message) => String(message.content).includes('Unknown request type'));
  socket.send({ type: 'send', message: '   ' });
  await socket.waitFor((message) => String(message.content).includes('Type a message first'));
  assert.equal(standin.requests.length, 0);
  standin.enqueue({ content: 'Still here.' });
  socket.send({ type: 'send', message: 'Are you there?' });
  const final = await socket.waitFor(isSwap('#message-2', 'outerHTML'));
  assert.match(String(final.content), /Still here\./);
});

test('a second message while a reply runs is refused with a message', async (t) => {
  const { socket, standin } = await startChatHarness(t);
  standin.enqueue({ content: 'slow slow slow slow', chunkDelayMs: 100 });
  socket.send({ type: 'send', message: 'First' });
  await socket.waitFor((message) => message.event === 'conversation-started');
  socket.send({ type: 'send', message: 'Second', conversationId: '1' });
  await socket.waitFor((message) => String(message.content).includes('still being written'));
});

test('history lists conversations newest first, searches every message and deletes', async (t) => {
  const { socket, standin, app, cookies, store } = await startChatHarness(t);
  standin.enqueue({ content: 'Bananas are yellow.' }, { content: 'The sky is blue.' });
  socket.send({ type: 'send', message: 'Tell me about fruit' });
  await socket.waitFor(isSwap('#message-2', 'outerHTML'));
  socket.send({ type: 'send', message: 'Tell me about weather', conversationId: '' });
  await socket.waitFor(isSwap('#message-4', 'outerHTML'));

  const list = await app.inject({ method: 'GET', url: '/history', headers: { cookie: cookies } });
  const titles = [...list.body.matchAll(/class="history-title">([^<]+)</g)].map((match) => match[1]);
  assert.deepEqual(titles, ['Tell me about weather', 'Tell me about fruit']);

  const search = await app.inject({ method: 'GET', url: '/history?q=banan', headers: { cookie: cookies } });
  assert.match(search.body, /Tell me about fruit/);
  assert.doesNotMatch(search.body, /weather/);
  assert.match(search.body, /<mark>Bananas<\/mark>/);
  const none = await app.inject({ method: 'GET', url: '/history?q=%22%29%20OR%20*', headers: { cookie: cookies } });
  assert.equal(none.statusCode, 200, 'FTS syntax in the query is not an error');

  const page = await app.inject({ method: 'GET', url: '/c/1', headers: { cookie: cookies } });
  assert.match(page.body, /Bananas are yellow\./);
  const removed = await app.inject({
    method: 'DELETE',
    url: '/c/1',
    headers: { cookie: cookies, 'x-csrf-token': csrfTokenFrom(page.body), 'hx-request': 'true', 'hx-current-url': 'http://x/c/1' },
  });
  assert.equal(removed.statusCode, 200);
  // The page goes to a new chat, which offers Undo; the chat is hidden everywhere at once.
  assert.equal(removed.headers['hx-redirect'], '/?deleted=1');
  assert.equal(store.getConversation(1), undefined);
  assert.deepEqual(store.search('bananas', 10), [], 'deleted messages leave the search index');
  const gone = await app.inject({ method: 'GET', url: '/c/1', headers: { cookie: cookies, accept: 'text/html' } });
  assert.equal(gone.statusCode, 404);
});

test('deleting without the CSRF header is refused', async (t) => {
  const { app, cookies, store } = await startChatHarness(t);
  store.createConversation('Keep me', 'llama3.2:latest');
  const response = await app.inject({ method: 'DELETE', url: '/c/1', headers: { cookie: cookies } });
  assert.equal(response.statusCode, 403);
  assert.ok(store.getConversation(1));
});

test('a reply cut off by a crash is marked failed at the next start, with its text kept', async (t) => {
  const { database } = await buildTestApp(t);
  const store = createConversationStore(database);
  const conversation = store.createConversation('Crash', 'llama3.2:latest');
  store.addMessage(conversation.id, 'user', 'Hello');
  const reply = store.addMessage(conversation.id, 'assistant', 'half a repl', { status: 'streaming' });
  const changed = store.closeInterruptedReplies('stopped by restart');
  assert.equal(changed, 1);
  assert.equal(store.getMessage(reply.id)!.status, 'failed');
  assert.equal(store.getMessage(reply.id)!.content, 'half a repl');
});

test('a page that missed messages while asleep gets them on reconnect', async (t) => {
  const { socket, standin, baseUrl, cookies } = await startChatHarness(t);
  standin.enqueue({ content: 'First reply.' });
  socket.send({ type: 'send', message: 'One' });
  await socket.waitFor(isSwap('#message-2', 'outerHTML'));
  await socket.close();
  // While the phone sleeps, another device sends a message in the same conversation.
  const other = await openChatSocket(baseUrl, cookies, '1');
  t.after(() => other.close());
  standin.enqueue({ content: 'Second reply.' });
  other.send({ type: 'send', message: 'Two', conversationId: '1' });
  await other.waitFor((message) => message.event === 'reply-finished');

  const woken = await openChatSocket(baseUrl, cookies, '1&after=2');
  t.after(() => woken.close());
  const replaced = await woken.waitFor(isSwap('#message-2', 'outerHTML'));
  assert.match(String(replaced.content), /First reply\./);
  // Messages added in one go may come as one swap (the sender joins them): in order either way.
  const added = woken.messages.filter(isSwap('#chat-thread', 'beforeend')).map((message) => String(message.content)).join('');
  assert.match(added, /id="message-3"[\s\S]*Two[\s\S]*id="message-4"[\s\S]*Second reply\./);
  assert.equal(added.match(/<article/g)?.length, 2, 'each missed message once');
});

test('Ollama going silent mid-reply is timed out, keeping the text so far', async (t) => {
  const { socket, standin, store } = await startChatHarness(t, { chatModel: { firstChunkTimeoutMs: 2000, chunkTimeoutMs: 300 } });
  standin.enqueue({ content: 'steady words then silence', chunkDelayMs: 100, hangAfterChunks: 3 });
  socket.send({ type: 'send', message: 'Hello' });
  const final = await socket.waitFor(isSwap('#message-2', 'outerHTML'));
  assert.match(String(final.content), /Ollama stopped sending for 300 ms, so the reply was ended/);
  const saved = store.getMessage(2)!;
  assert.equal(saved.status, 'failed');
  assert.equal(saved.content, 'steady words then ');
});

test("a new chat's sidebar, sent over the socket, keeps the way to older chats when there are more than a page", async (t) => {
  const { socket, standin, store } = await startChatHarness(t);
  for (let n = 1; n <= 100; n++) store.createConversation(`Older ${n}`, 'llama3.2:latest');
  standin.setHandler(() => ({ content: 'Hello.' }));
  socket.send({ type: 'send', message: 'One more', conversationId: '', model: 'llama3.2:latest' });
  const list = await socket.waitFor(isSwap('#history-list', 'innerHTML'));
  const content = String(list.content);
  assert.equal([...content.matchAll(/id="history-item-\d+"/g)].length, 100, 'one page of chats');
  assert.equal([...content.matchAll(/aria-current="page"/g)].length, 1, 'one chat is marked current');
  assert.match(content, /id="history-item-101"[^]*?aria-current="page"/, 'the new chat, first and current');
  assert.match(content, /hx-get="\/history\?page=1&amp;after=today"[\s\S]*Show older chats/);
});
