import assert from 'node:assert/strict';
import { test } from 'node:test';
import { messagePageSize } from '../../src/web/chat/chat-reader.js';
import { estimateTokens } from '../../src/engine/llm/history.js';
import { createConversationStore } from '../../src/storage/conversation-store.js';
import { createToolCallStore } from '../../src/storage/tool-call-store.js';
import { buildTestApp, openChatSocket } from '../support/test-app.js';

/** A conversation of `count` messages, alternating user and assistant, numbered from 1 in their text. */
function seedConversation(harness: Awaited<ReturnType<typeof buildTestApp>>, count: number) {
  const store = createConversationStore(harness.database);
  const conversation = store.createConversation('A long chat', 'llama3');
  const ids: number[] = [];
  for (let index = 1; index <= count; index++) {
    const role = index % 2 === 1 ? 'user' : 'assistant';
    const message = store.addMessage(conversation.id, role, `message number ${index} here`);
    if (role === 'assistant') store.updateMessage(message.id, { html: `<p>message number ${index} here</p>` });
    ids.push(message.id);
  }
  return { store, conversation, ids };
}

const messageIdsIn = (html: string) => [...html.matchAll(/<article[^>]* id="message-(\d+)"/g)].map((match) => Number(match[1]));
const earlierUrlIn = (html: string) => /class="load-earlier" hx-get="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, '&');

test('a long conversation opens with only its newest page and a sentinel for the rest', async (t) => {
  const harness = await buildTestApp(t);
  const cookie = await harness.login();
  const { conversation, ids } = seedConversation(harness, 200);

  const page = await harness.app.inject({ method: 'GET', url: `/c/${conversation.id}`, headers: { cookie } });
  assert.equal(page.statusCode, 200);
  assert.deepEqual(messageIdsIn(page.body), ids.slice(-messagePageSize));
  assert.ok(!page.body.includes('message number 160 here'));
  assert.ok(page.body.includes('message number 161 here') && page.body.includes('message number 200 here'));
  // The sentinel sits above the messages and asks for those before the oldest shown.
  assert.equal(earlierUrlIn(page.body), `/c/${conversation.id}/messages?before=${ids[200 - messagePageSize]}`);
  assert.ok(page.body.indexOf('class="load-earlier"') < page.body.indexOf(`id="message-${ids[160]}"`));
  assert.match(page.body, /<button class="button load-earlier-button" type="button">Load earlier messages<\/button>/);
});

test('the earlier-messages endpoint walks back page by page and stops at the first message', async (t) => {
  const harness = await buildTestApp(t);
  const cookie = await harness.login();
  const { conversation, ids } = seedConversation(harness, 200);
  const toolCalls = createToolCallStore(harness.database);
  // A tool card on a message in the second page comes with that page.
  toolCalls.add(ids[151]!, conversation.id, 'web_search', '{"query":"paging"}', 'done');

  const seen: number[] = [];
  let url = earlierUrlIn((await harness.app.inject({ method: 'GET', url: `/c/${conversation.id}`, headers: { cookie } })).body);
  const pages: string[] = [];
  while (url) {
    const response = await harness.app.inject({ method: 'GET', url, headers: { cookie, 'hx-request': 'true' } });
    assert.equal(response.statusCode, 200);
    assert.ok(!response.body.includes('<html'), 'a fragment, not a whole page');
    pages.push(response.body);
    seen.unshift(...messageIdsIn(response.body));
    url = earlierUrlIn(response.body);
    assert.ok(pages.length < 10, 'the pages end');
  }
  // 160 older messages: four pages of 40, the last without a sentinel.
  assert.equal(pages.length, 160 / messagePageSize);
  assert.deepEqual(seen, ids.slice(0, 160));
  assert.deepEqual(messageIdsIn(pages[0]!), ids.slice(120, 160));
  assert.ok(pages[0]!.includes('web_search'), 'the tool card of a message on the page');
  assert.ok(!pages[1]!.includes('web_search'));
  assert.ok(!pages.at(-1)!.includes('load-earlier'));
  assert.ok(pages.at(-1)!.includes('message number 1 here'));
});

test('a short conversation has no sentinel, and bad requests for earlier messages are refused', async (t) => {
  const harness = await buildTestApp(t);
  const cookie = await harness.login();
  const { conversation, ids } = seedConversation(harness, 5);
  const page = await harness.app.inject({ method: 'GET', url: `/c/${conversation.id}`, headers: { cookie } });
  assert.deepEqual(messageIdsIn(page.body), ids);
  assert.ok(!page.body.includes('load-earlier'));

  const before = await harness.app.inject({ method: 'GET', url: `/c/${conversation.id}/messages?before=${ids[3]}`, headers: { cookie } });
  assert.deepEqual(messageIdsIn(before.body), ids.slice(0, 3));
  const noBefore = await harness.app.inject({ method: 'GET', url: `/c/${conversation.id}/messages`, headers: { cookie } });
  assert.equal(noBefore.statusCode, 400);
  const garbage = await harness.app.inject({ method: 'GET', url: `/c/${conversation.id}/messages?before=1e400`, headers: { cookie } });
  assert.equal(garbage.statusCode, 400);
  const missing = await harness.app.inject({ method: 'GET', url: `/c/999999/messages?before=10`, headers: { cookie } });
  assert.equal(missing.statusCode, 404);
  // Another conversation's messages never leak in: ids before this one's first are simply none.
  const other = seedConversation(harness, 3);
  const none = await harness.app.inject({ method: 'GET', url: `/c/${other.conversation.id}/messages?before=${other.ids[0]}`, headers: { cookie } });
  assert.deepEqual(messageIdsIn(none.body), []);
  const onlyOwn = await harness.app.inject({ method: 'GET', url: `/c/${other.conversation.id}/messages?before=${other.ids[2]}`, headers: { cookie } });
  assert.deepEqual(messageIdsIn(onlyOwn.body), other.ids.slice(0, 2));
});

test('earlier messages are for the logged-in person only', async (t) => {
  const harness = await buildTestApp(t);
  const { conversation, ids } = seedConversation(harness, 60);
  const url = `/c/${conversation.id}/messages?before=${ids[50]}`;
  const plain = await harness.app.inject({ method: 'GET', url });
  assert.equal(plain.statusCode, 302);
  assert.match(String(plain.headers.location), /^\/login/);
  assert.ok(!plain.body.includes('message number'));
  const fromHtmx = await harness.app.inject({ method: 'GET', url, headers: { 'hx-request': 'true' } });
  assert.equal(fromHtmx.statusCode, 401);
  assert.ok(!fromHtmx.body.includes('message number'));
});

test('a reply finds where its history starts from the newest messages, counting only what is shown', async (t) => {
  const harness = await buildTestApp(t);
  const store = createConversationStore(harness.database);
  const conversation = store.createConversation('Lengths', 'llama3');
  const ids = Array.from({ length: 6 }, (_, index) => store.addMessage(conversation.id, index % 2 === 0 ? 'user' : 'assistant', 'x'.repeat(100)).id);
  assert.equal(store.historyStart(conversation.id, 250), ids[3], 'the third newest reaches 250 characters');
  assert.equal(store.historyStart(conversation.id, 300), ids[3]);
  assert.equal(store.historyStart(conversation.id, 301), ids[2]);
  assert.equal(store.historyStart(conversation.id, 10_000), 0, 'a shorter thread is read whole');
  // An edit of the fifth message hides it and the sixth (kept as an earlier version): they do not count.
  const edited = store.branchFrom(conversation.id, ids[4]!, 'user', 'y'.repeat(10));
  assert.equal(store.historyStart(conversation.id, 250), ids[1]);
  assert.equal(store.historyStart(conversation.id, 10), edited.id);
});

test('a reply in a 3,000-message chat sends the model the newest turns that fill its window, with their tool results', async (t) => {
  const harness = await buildTestApp(t);
  const cookies = await harness.login();
  const baseUrl = await harness.listen();
  const store = createConversationStore(harness.database);
  const toolCalls = createToolCallStore(harness.database);
  const conversation = store.createConversation('A very long chat', 'llama3.2:latest');
  const filler = ' and then some more words about the day'.repeat(16);
  const ids: number[] = [];
  harness.database.transaction(() => {
    for (let number = 1; number <= 3000; number++) {
      const role = number % 2 === 1 ? 'user' : 'assistant';
      ids.push(store.addMessage(conversation.id, role, `message number ${number}${filler}`).id);
    }
  })();
  for (const [messageId, result] of [[ids[1]!, 'OLDEST RESULT'], [ids[2997]!, 'RECENT RESULT']] as const) {
    const call = toolCalls.add(messageId, conversation.id, 'calculator', '{"expression":"1+1"}', 'running');
    toolCalls.finish(call.id, 'done', result, 3);
  }

  const socket = await openChatSocket(baseUrl, cookies, String(conversation.id));
  t.after(() => socket.close());
  socket.send({ type: 'send', message: 'What now?', conversationId: String(conversation.id) });
  await socket.waitFor((message) => message.event === 'reply-finished', 8000);

  const [system, ...turns] = harness.standin.requests[0]!.messages;
  assert.equal(system!.role, 'system');
  assert.equal(turns[0]!.role, 'user', 'the history starts with a person’s turn');
  assert.match(turns.at(-1)!.content, /What now\?$/);
  const numbers = turns.flatMap((turn) => [...turn.content.matchAll(/message number (\d+) /g)].map((match) => Number(match[1])));
  const oldest = numbers[0]!;
  assert.deepEqual(numbers, Array.from({ length: 3000 - oldest + 1 }, (_, index) => oldest + index), 'the newest messages, in order, none missing');
  assert.ok(turns.some((turn) => turn.content.includes('RECENT RESULT')), 'a recent tool result goes with its turn');
  assert.ok(!turns.some((turn) => turn.content.includes('OLDEST RESULT')));
  // Filled, not cut short: two more of the older messages would not have fitted the window.
  const budget = 8192 - 1024 - estimateTokens(system!.content);
  const sent = turns.reduce((sum, turn) => sum + estimateTokens(turn.content), 0);
  const olderMessage = estimateTokens(`message number 1${filler}`);
  assert.ok(sent <= budget, `${sent} tokens sent, ${budget} allowed`);
  assert.ok(sent + 2 * olderMessage > budget, `${sent} tokens sent leave room for two more messages of ${olderMessage}`);
});
