/**
 * A new chat is named by its own model from its first exchange, after the first reply, in the
 * background; the person's own title always wins, and a model that fails leaves the first message
 * as the title.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startChatHarness, type ChatHarness } from '../support/test-app.js';

/** Waits for everything running in the background (the naming included) to end. */
async function backgroundDone(harness: ChatHarness): Promise<void> {
  await harness.app.hub.stopAll();
}

async function firstExchange(harness: ChatHarness, message: string): Promise<number> {
  harness.socket.send({ type: 'send', message, conversationId: '', model: 'llama3.2:latest' });
  const started = await harness.socket.waitFor((frame) => frame.event === 'conversation-started');
  await harness.turnFinished();
  return Number(started.conversationId);
}

test('after the first reply the chat is named by its own model, cleaned, and the sidebar and header are sent the new title', async (t) => {
  const harness = await startChatHarness(t);
  harness.standin.enqueue({ content: 'Knead it longer and let it rise somewhere warm.' });
  harness.standin.titleReply = { content: '**"Bread rising in a cold kitchen."**\nThis title fits because…' };
  const id = await firstExchange(harness, 'Why does my bread not rise? My kitchen is cold in winter and the dough stays flat.');
  const event = await harness.socket.waitFor((frame) => frame.event === 'title-changed');
  assert.deepEqual(event, { event: 'title-changed', conversationId: id, title: 'Bread rising in a cold kitchen' });
  assert.equal(harness.store.getConversation(id)?.title, 'Bread rising in a cold kitchen');

  // Asked of the chat's own model, once the reply was written, with the exchange it names.
  assert.equal(harness.standin.titleRequests.length, 1);
  const request = harness.standin.titleRequests[0]!;
  assert.equal(request.model, 'llama3.2:latest');
  assert.ok(request.receivedAt >= harness.standin.requests[0]!.receivedAt);
  assert.match(request.messages[1]!.content, /Why does my bread not rise/);
  assert.match(request.messages[2]!.content, /Knead it longer/);
  assert.equal(harness.standin.requests.length, 1, 'the title request is not one of the replies');

  const frames = harness.socket.messages.map((frame) => JSON.stringify(frame));
  assert.ok(frames.some((frame) => frame.includes(`history-item-${id}`) && frame.includes('Bread rising in a cold kitchen') && frame.includes('outerHTML')), 'the sidebar item is swapped');
  assert.ok(frames.some((frame) => frame.includes('#chat-title-text') && frame.includes('Bread rising in a cold kitchen')), 'the header shows it');
});

test('the title the person gave while the reply was written wins over the model\'s', async (t) => {
  const harness = await startChatHarness(t);
  harness.standin.enqueue({ content: 'A slow reply in several words.', chunkDelayMs: 50 });
  harness.standin.titleReply = { content: 'The model title' };
  harness.socket.send({ type: 'send', message: 'Plan my week', conversationId: '', model: 'llama3.2:latest' });
  const started = await harness.socket.waitFor((frame) => frame.event === 'conversation-started');
  const id = Number(started.conversationId);
  harness.app.services.chatService.renameConversation(id, 'My own name');
  await harness.turnFinished();
  await backgroundDone(harness);
  assert.equal(harness.store.getConversation(id)?.title, 'My own name');
  assert.ok(!harness.socket.messages.some((frame) => frame.event === 'title-changed'));
});

test('when the model cannot name the chat, the first message stays its title', async (t) => {
  const harness = await startChatHarness(t);
  harness.standin.titleReply = { status: 500, error: 'llama runner process has terminated: signal: killed' };
  const id = await firstExchange(harness, 'Tell me about weather');
  await harness.standin.waitForTitleRequests(1);
  await backgroundDone(harness);
  assert.equal(harness.store.getConversation(id)?.title, 'Tell me about weather');
  assert.ok(!harness.socket.messages.some((frame) => frame.event === 'title-changed'));
});

test('a model that will not stop is read only up to a small cap, and tags in its title are dropped', async (t) => {
  const harness = await startChatHarness(t);
  harness.standin.titleReply = { content: `<img src=x onerror=alert(1)>Garden plans ${'and more '.repeat(5000)}`, chunkSize: 20, chunkDelayMs: 5 };
  const id = await firstExchange(harness, 'Help me plan the garden');
  await harness.standin.waitForTitleRequests(1);
  await backgroundDone(harness);
  assert.equal(harness.store.getConversation(id)?.title, 'Garden plans and more and more');
  // The stand-in sees the connection close a moment after Hearth drops it; its reply would take 11 s.
  const deadline = Date.now() + 5000;
  while (!harness.standin.titleRequests[0]!.aborted && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(harness.standin.titleRequests[0]!.aborted, true, 'Hearth stopped reading and closed the request');
});

test('only a new chat is named: a later message does not ask again', async (t) => {
  const harness = await startChatHarness(t);
  const id = await firstExchange(harness, 'Hello there');
  await harness.standin.waitForTitleRequests(1);
  harness.socket.send({ type: 'send', message: 'And again', conversationId: String(id), model: 'llama3.2:latest' });
  await harness.socket.waitFor((frame) => frame.event === 'reply-finished' && harness.standin.requests.length === 2);
  await backgroundDone(harness);
  assert.equal(harness.standin.titleRequests.length, 1);
  // The stand-in's own answer is the first six words: a short first message keeps its title.
  assert.equal(harness.store.getConversation(id)?.title, 'Hello there');
});
