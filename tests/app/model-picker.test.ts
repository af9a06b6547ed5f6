/**
 * The model picker: what each model can do (from Ollama's /api/show capabilities), the model a new
 * chat opens with (the last one chosen), the one-tap switch a photo refusal offers, and asking a
 * thinking model not to think. The browser side is in tests/browser/model-picker.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultModels } from '../support/ollama-standin.js';
import { csrfTokenFrom, startChatHarness, type ChatHarness } from '../support/test-app.js';
import { uploadPhoto } from '../support/photo-upload.js';
import { smallJpeg } from '../support/test-photos.js';

const models = () => [...defaultModels(), { name: 'llava:latest', capabilities: ['completion', 'vision'] }];

/** The option of the picker with this value, as the page has it. */
function optionOf(body: string, value: string): string {
  const found = new RegExp(`<option value="${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"[^>]*>[^<]*</option>`).exec(body);
  assert.ok(found, `no option ${value} in the picker`);
  return found[0];
}

async function session(harness: ChatHarness, url = '/') {
  const page = await harness.app.inject({ url, headers: { cookie: harness.cookies } });
  return { page: page.body, cookie: harness.cookies, token: csrfTokenFrom(page.body) };
}

function choose(harness: ChatHarness, token: string, route: '/model-choice' | '/model-switch', payload: Record<string, string>) {
  return harness.app.inject({ method: 'POST', url: route, headers: { cookie: harness.cookies, 'x-csrf-token': token }, payload });
}

test('each option says what its model can do: sees, thinks, tools', async (t) => {
  const harness = await startChatHarness(t, { standin: { models: models() } });
  const { page } = await session(harness);
  assert.equal(optionOf(page, 'qwen3:latest'), '<option value="qwen3:latest" data-thinks>qwen3 · thinks · tools</option>');
  assert.equal(optionOf(page, 'llava:latest'), '<option value="llava:latest" data-vision>llava · sees</option>');
  assert.match(optionOf(page, 'llama3.2:latest'), />llama3\.2 · tools<\/option>$/);
  // The composer's "no thinking" switch is on the page (shown by CSS for thinking models only).
  assert.match(page, /<input id="think-off" class="think-switch-box visually-hidden" type="checkbox" name="think" value="off">/);
});

test('a new chat opens with the model last picked or sent with; an existing chat keeps its own', async (t) => {
  const harness = await startChatHarness(t, { standin: { models: models() } });
  const { socket, store } = harness;
  const first = await session(harness);
  assert.match(optionOf(first.page, 'llama3.2:latest'), / selected/, 'at first, the first model');

  // Sending with qwen3 in a new chat: the next new chat opens with qwen3.
  socket.send({ type: 'send', message: 'Hello', conversationId: '', model: 'qwen3:latest' });
  await harness.turnFinished();
  assert.match(optionOf((await session(harness)).page, 'qwen3:latest'), / selected/);

  // Picking llava (no send): remembered at once, for new chats; the open chat takes it too.
  const { token } = await session(harness, '/c/1');
  assert.equal((await choose(harness, token, '/model-choice', { model: 'llava:latest', conversationId: '' })).statusCode, 204);
  const fresh = await session(harness);
  assert.match(optionOf(fresh.page, 'llava:latest'), / selected/);
  assert.doesNotMatch(optionOf(fresh.page, 'qwen3:latest'), / selected/);
  assert.match(optionOf((await session(harness, '/c/1')).page, 'qwen3:latest'), / selected/, 'the chat keeps its own model');
  assert.equal(store.getConversation(1)?.model, 'qwen3:latest');

  // A model that is not offered is refused, and changes nothing.
  const refused = await choose(harness, token, '/model-choice', { model: 'gone:latest' });
  assert.equal(refused.statusCode, 400);
  assert.match(refused.body, /"gone:latest" is not offered now/);
  assert.match(optionOf((await session(harness)).page, 'llava:latest'), / selected/);

  // A remembered model that was removed since: a new chat opens with the first one there is.
  harness.standin.models.splice(harness.standin.models.findIndex((model) => model.name === 'llava:latest'), 1);
  assert.match(optionOf((await session(harness)).page, 'llama3.2:latest'), / selected/);
});

test('a photo refused by a model that cannot see offers a one-tap switch to one that can; the photo is kept', async (t) => {
  const harness = await startChatHarness(t, { standin: { models: models() } });
  const { socket, store, standin } = harness;
  const page = await session(harness);
  // The composer's switch, server-made, names the first model that can see.
  assert.match(page.page, /<button id="photo-switch-model" class="button button-primary model-switch" type="button" hx-post="\/model-switch" hx-vals="\{&quot;model&quot;:&quot;llava:latest&quot;\}" hx-swap="none">Switch to llava<\/button>/);

  socket.send({ type: 'send', message: 'Hello', conversationId: '', model: 'llama3.2:latest' });
  await harness.turnFinished();
  const id = (await uploadPhoto(harness.app, page, smallJpeg)).json().id as number;
  socket.messages.length = 0;
  socket.send({ type: 'send', message: 'What is this?', conversationId: '1', model: 'llama3.2:latest', attachments: String(id) });
  const refusal = String((await socket.waitFor((message) => String(message.content ?? '').includes('cannot see photos'))).content);
  assert.match(refusal, /llama3\.2 cannot see photos\. Models here that can: llava/);
  assert.match(refusal, /<button class="button button-primary model-switch" type="button" hx-post="\/model-switch" hx-vals="\{&quot;model&quot;:&quot;llava:latest&quot;\}" hx-include="#conversation-id" hx-target="closest \.chat-error" hx-swap="delete">Switch to llava<\/button>/);

  // One tap: the chat now uses llava, the picker shows it, the composer's refusal goes, and the status line says so.
  const switched = await choose(harness, page.token, '/model-switch', { model: 'llava:latest', conversationId: '1' });
  assert.equal(switched.statusCode, 200);
  assert.equal(store.getConversation(1)?.model, 'llava:latest');
  assert.match(switched.body, /^<hx-partial hx-target="#model-select" hx-swap="innerHTML">[\s\S]*<option value="llava:latest" selected data-vision>llava · sees<\/option>/);
  assert.match(switched.body, /<hx-partial hx-target="#photo-error" hx-swap="outerHTML"><p id="photo-error" class="photo-error chat-error" role="alert" hidden><\/p><\/hx-partial>/);
  assert.match(switched.body, /<hx-partial hx-target="#chat-status" hx-swap="innerHTML">Now using llava\. Your photos are still there: send again\.<\/hx-partial>/);

  // The photo was kept: sent again as it was, it reaches llava.
  socket.messages.length = 0;
  socket.send({ type: 'send', message: 'What is this?', conversationId: '1', model: 'llava:latest', attachments: String(id) });
  await harness.turnFinished();
  assert.equal(standin.requests.at(-1)?.model, 'llava:latest');
  const sent = standin.requests.at(-1)!.body.messages as Array<{ images?: string[] }>;
  assert.equal(sent.at(-1)?.images?.length, 1);
});

test('a thinking model can be asked not to think; other models are told nothing about thinking', async (t) => {
  const harness = await startChatHarness(t, { standin: { models: models() } });
  const { socket, standin } = harness;
  socket.send({ type: 'send', message: 'Think first', conversationId: '', model: 'qwen3:latest' });
  await harness.turnFinished();
  assert.equal(standin.requests.at(-1)?.think, true);

  socket.messages.length = 0;
  socket.send({ type: 'send', message: 'Quickly now', conversationId: '1', model: 'qwen3:latest', think: 'off' });
  await harness.turnFinished();
  assert.equal(standin.requests.at(-1)?.think, false);

  // A model without the thinking capability gets no `think` (Ollama would refuse it), switch or not.
  socket.messages.length = 0;
  socket.send({ type: 'send', message: 'And you?', conversationId: '1', model: 'llama3.2:latest', think: 'off' });
  await harness.turnFinished();
  assert.equal(standin.requests.at(-1)?.think, undefined);

  // The plain form (no socket yet) carries the switch too.
  const { token } = await session(harness, '/c/1');
  const form = await harness.app.inject({
    method: 'POST',
    url: '/send',
    headers: { cookie: harness.cookies },
    payload: { _csrf: token, message: 'From the form', conversationId: '1', model: 'qwen3:latest', think: 'off' },
  });
  assert.equal(form.statusCode, 303);
  await standin.waitForRequests(4);
  assert.equal(standin.requests.at(-1)?.think, false);
});
