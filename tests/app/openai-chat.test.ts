import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test, type TestContext } from 'node:test';
import { loadConfig } from '../../src/config/config.js';
import { createChatModelFromConfig } from '../../src/engine/llm/chat-model-from-config.js';
import { startOllamaStandin, type OllamaStandin } from '../support/ollama-standin.js';
import { freePort } from '../support/free-port.js';
import { startOpenAiStandin, type OpenAiStandin, type OpenAiStandinOptions } from '../support/openai-standin.js';
import { csrfTokenFrom, startChatHarness, type ChatHarness } from '../support/test-app.js';
import { smallJpeg, solidPng } from '../support/test-photos.js';
import { readStoredError } from '../../src/replies/error-notice.js';
import { uploadPhoto } from '../support/photo-upload.js';

const qwen = '@gpu-box/Qwen/Qwen2.5-7B-Instruct';

const isSwap = (target: string, swap?: string) => (message: Record<string, unknown>) =>
  message.target === target && (swap === undefined || message.swap === swap);
const isAppend = (target: string) => (message: Record<string, unknown>) => message.event === 'append' && message.target === target;

interface TwoServerChat extends ChatHarness {
  ollama: OllamaStandin;
  openai: OpenAiStandin;
}

/** The real app with Ollama and one OpenAI-compatible server ("GPU box") behind the model router, as server.ts builds it. */
async function startTwoServerChat(
  t: TestContext,
  options: { openai?: OpenAiStandinOptions; environment?: Record<string, string>; backend?: Record<string, unknown>; baseUrl?: string } = {},
): Promise<TwoServerChat> {
  const ollama = await startOllamaStandin();
  const openai = await startOpenAiStandin(options.openai);
  t.after(() => Promise.all([ollama.close(), openai.close()]));
  const config = loadConfig({
    OLLAMA_HOST: ollama.url,
    OPENAI_BACKENDS: JSON.stringify([{ name: 'GPU box', baseUrl: options.baseUrl ?? openai.baseUrl, ...options.backend }]),
    ...options.environment,
  });
  const chatModel = createChatModelFromConfig(config, { firstChunkTimeoutMs: 3000, chunkTimeoutMs: 3000, listTimeoutMs: 2000 });
  const harness = await startChatHarness(t, { dependencies: { chatModel } });
  return { ...harness, ollama, openai };
}

test('the model picker lists every server in its own group; a server that is down says so and hides nothing else', async (t) => {
  const { app, cookies, openai } = await startTwoServerChat(t);
  const page = await app.inject({ url: '/', headers: { cookie: cookies } });
  assert.equal(page.statusCode, 200);
  const select = /<select id="model-select"[\s\S]*?<\/select>/.exec(page.body)![0];
  const ollamaGroup = /<optgroup class="model-group" label="Ollama"[\s\S]*?<\/optgroup>/.exec(select)![0];
  const gpuGroup = /<optgroup class="model-group" label="GPU box"[\s\S]*?<\/optgroup>/.exec(select)![0];
  assert.match(ollamaGroup, /<option value="llama3\.2:latest"/);
  assert.match(gpuGroup, /<option value="@gpu-box\/Qwen\/Qwen2\.5-7B-Instruct">Qwen\/Qwen2\.5-7B-Instruct<\/option>/);
  assert.match(gpuGroup, /<option value="@gpu-box\/gemma-3-4b-it">gemma-3-4b-it<\/option>/);
  assert.doesNotMatch(select, /not answering/);

  let health = (await app.inject({ url: '/healthz', headers: { cookie: cookies } })).json() as { backends: Array<{ name: string; kind: string; status: string }> };
  assert.deepEqual(
    health.backends.map((backend) => [backend.name, backend.status]),
    [
      ['Ollama', 'reachable'],
      ['GPU box', 'reachable'],
    ],
  );

  await openai.close();
  const downPage = await app.inject({ url: '/', headers: { cookie: cookies } });
  assert.equal(downPage.statusCode, 200);
  const downGpuGroup = /<optgroup class="model-group" label="GPU box"[\s\S]*?<\/optgroup>/.exec(downPage.body)![0];
  assert.match(downGpuGroup, /<option class="model-group-problem" value="" disabled title="GPU box is not answering at http:\/\/127\.0\.0\.1:\d+\/v1[^"]*">GPU box is not answering<\/option>/);
  assert.match(downPage.body, /<option value="llama3\.2:latest"/, "Ollama's models are still listed");
  assert.doesNotMatch(downPage.body, /class="chat-error/, 'no error in the thread while other models can be picked');
  health = (await app.inject({ url: '/healthz', headers: { cookie: cookies } })).json() as typeof health;
  assert.equal(health.backends.find((backend) => backend.kind === 'ollama')?.status, 'reachable');
  assert.equal('ollama' in health, false, 'no field named after one kind of server');
  assert.deepEqual(
    health.backends.map((backend) => backend.status),
    ['reachable', 'unreachable'],
  );
});

test('a wrong API key shows in the picker as such, not as a server that is down', async (t) => {
  const { app, cookies } = await startTwoServerChat(t, { openai: { apiKey: 'right-key' }, backend: { apiKeyEnv: 'GPU_KEY' }, environment: { GPU_KEY: 'wrong-key' } });
  const page = await app.inject({ url: '/', headers: { cookie: cookies } });
  const health = (await app.inject({ url: '/healthz', headers: { cookie: cookies } })).json() as { backends: Array<{ status: string }> };
  assert.deepEqual(
    health.backends.map((backend) => backend.status),
    ['reachable', 'unauthorized'],
  );
  assert.match(page.body, /<option class="model-group-problem" value="" disabled title="GPU box refused the API key \(HTTP 401\): Invalid API Key\. Check GPU_KEY in \.env[^"]*">GPU box refused the API key<\/option>/);
});

test('a chat on an OpenAI-compatible server streams over SSE, keeps its server and model, and Ollama is not asked', async (t) => {
  const { socket, openai, ollama, store, turnFinished, app, cookies, config } = await startTwoServerChat(t);
  fs.writeFileSync(config.memoryFile, '- The user is called Ada and keeps bees.\n');
  openai.enqueue({ content: 'Hello from the GPU box.' }, { content: 'Second answer.' });
  socket.send({ type: 'send', message: 'Hi there', conversationId: '', model: qwen });
  await turnFinished();
  assert.equal(store.getConversation(1)!.model, qwen);
  assert.equal(store.getMessage(2)!.content, 'Hello from the GPU box.');
  assert.equal(store.getMessage(2)!.status, 'complete');
  const first = openai.requests[0]!;
  assert.equal(first.model, 'Qwen/Qwen2.5-7B-Instruct');
  assert.equal(first.body.stream, true);
  assert.equal(first.messages[0]!.role, 'system');
  assert.match(String(first.messages[0]!.content), /calculator/, 'the same system prompt, with the tools');
  assert.match(String(first.messages[0]!.content), /called Ada and keeps bees/, 'and the memory');
  assert.deepEqual(first.messages.at(-1), { role: 'user', content: 'Hi there' });

  socket.messages.length = 0;
  socket.send({ type: 'send', message: 'And again', conversationId: '1', model: '' });
  await turnFinished();
  assert.equal(openai.requests.length, 2);
  assert.equal(openai.requests[1]!.model, 'Qwen/Qwen2.5-7B-Instruct');
  assert.deepEqual(
    openai.requests[1]!.messages.slice(1).map((message) => [message.role, message.content]),
    [
      ['user', 'Hi there'],
      ['assistant', 'Hello from the GPU box.'],
      ['user', 'And again'],
    ],
    'the whole history goes to the model',
  );
  assert.equal(ollama.requests.length, 0);

  const page = await app.inject({ url: '/c/1', headers: { cookie: cookies } });
  assert.match(page.body, /<option value="@gpu-box\/Qwen\/Qwen2\.5-7B-Instruct" selected>/, 'the picker shows the chat’s model');
});

test('thinking is shown apart whether it comes as reasoning_content or as <think> tags cut across chunks', async (t) => {
  const { socket, openai, store, turnFinished } = await startTwoServerChat(t);
  openai.enqueue(
    { reasoning: 'The user greets me. ', chunks: ['Hel', 'lo!'] },
    { chunks: ['<thi', 'nk>Plan: be ', 'brief.</th', 'ink>', 'Two', ' plus two is 4. A < b.'] },
    { reasoning: 'vLLM style.', reasoningField: 'reasoning', content: 'Done.' },
  );
  socket.send({ type: 'send', message: 'Hi', model: qwen });
  await turnFinished();
  assert.equal(store.getMessage(2)!.content, 'Hello!');
  assert.equal(store.getMessage(2)!.thinking, 'The user greets me. ');

  socket.messages.length = 0;
  socket.send({ type: 'send', message: 'Add', conversationId: '1' });
  await turnFinished();
  assert.equal(store.getMessage(4)!.content, 'Two plus two is 4. A < b.');
  assert.equal(store.getMessage(4)!.thinking, 'Plan: be brief.');
  const streamed = socket.messages.filter(isAppend('#message-4-tail')).map((message) => String(message.text)).join('');
  assert.doesNotMatch(streamed, /think|<th/, 'no tag, not even half of one, reaches the answer');
  const final = await socket.waitFor(isSwap('#message-4', 'outerHTML'));
  assert.match(String(final.content), /class="thinking-section[\s\S]*Plan: be brief\./);

  socket.messages.length = 0;
  socket.send({ type: 'send', message: 'Again', conversationId: '1' });
  await turnFinished();
  assert.equal(store.getMessage(6)!.content, 'Done.');
  assert.equal(store.getMessage(6)!.thinking, 'vLLM style.');
});

test('a tool call round works the same on an OpenAI-compatible server', async (t) => {
  const { socket, openai, store, toolCalls, turnFinished } = await startTwoServerChat(t);
  openai.enqueue({ content: 'Let me work it out. [TOOL:calculator]6 * 7[/TOOL]' }, { content: 'It is **42**.' });
  socket.send({ type: 'send', message: 'What is 6 times 7?', model: qwen });
  await turnFinished();
  assert.equal(openai.requests.length, 2);
  const second = openai.requests[1]!;
  assert.equal(second.messages.at(-2)!.content, 'Let me work it out. [TOOL:calculator]6 * 7[/TOOL]', 'the model sees its own call');
  assert.match(String(second.messages.at(-1)!.content), /<tool_result name="calculator" status="done">\n6 \* 7 = 42\n<\/tool_result>/);
  assert.deepEqual(
    store.listMessages(1).map((message) => message.content),
    ['What is 6 times 7?', 'Let me work it out.', 'It is **42**.'],
  );
  assert.equal(toolCalls.listForConversation(1)[0]!.status, 'done');
});

test('Stop aborts the HTTP request to the OpenAI-compatible server and keeps the partial text', async (t) => {
  const { socket, openai, store } = await startTwoServerChat(t);
  openai.enqueue({ content: 'word '.repeat(400), chunkDelayMs: 20 });
  socket.send({ type: 'send', message: 'Talk a lot', model: qwen });
  await socket.waitFor(isAppend('#message-2-tail'));
  socket.send({ type: 'stop' });
  const request = await openai.waitForEnd(0);
  assert.equal(request.aborted, true, 'the server saw the connection close before the reply was done');
  const final = await socket.waitFor(isSwap('#message-2', 'outerHTML'));
  assert.match(String(final.content), /data-status="stopped"/);
  const saved = store.getMessage(2)!;
  assert.equal(saved.status, 'stopped');
  assert.match(saved.content, /^word( word)*$/);
  assert.ok(saved.content.length < 'word '.repeat(400).length - 10);
});

interface ErrorCase {
  name: string;
  setup(context: { openai: OpenAiStandin }): void;
  options?: () => Promise<Parameters<typeof startTwoServerChat>[1]>;
  model?: string;
  error: RegExp;
  content?: string;
}

const errorCases: ErrorCase[] = [
  {
    name: 'a refused connection names the server and its address',
    setup() {},
    options: async () => ({ baseUrl: `http://127.0.0.1:${await freePort()}/v1` }),
    error: /^GPU box is not answering at http:\/\/127\.0\.0\.1:\d+\/v1\. Check that the server is running/,
  },
  {
    name: 'a wrong API key (401) says which variable to fix',
    setup() {},
    options: async () => ({ openai: { apiKey: 'right-key' }, backend: { apiKeyEnv: 'GPU_KEY' }, environment: { GPU_KEY: 'wrong-key' } }),
    error: /^GPU box refused the API key \(HTTP 401\): Invalid API Key\. Check GPU_KEY in \.env/,
  },
  {
    name: 'an unknown model says to pick another',
    setup() {},
    model: '@gpu-box/no-such-model',
    error: /^The model "no-such-model" is not available on GPU box: The model `no-such-model` does not exist\. Pick another model/,
  },
  {
    name: 'a conversation too long for the context says how to go on',
    setup({ openai }) {
      openai.enqueue({
        status: 400,
        error: 'the request exceeds the available context size, try increasing it',
        errorType: 'exceed_context_size_error',
      });
    },
    error: /^The conversation is too long for "Qwen\/Qwen2\.5-7B-Instruct" on GPU box: .*Start a new chat, or give the model a larger context/,
  },
  {
    name: 'an error in the middle of the stream keeps the text so far',
    setup({ openai }) {
      openai.enqueue({ content: 'one two three four', errorAfterChunks: 2, midStreamError: 'CUDA out of memory' });
    },
    error: /^GPU box reported an error while writing the reply: CUDA out of memory\. The text so far is kept/,
    content: 'one two ',
  },
  {
    name: 'a stream that ends without [DONE] is reported, not taken as a whole reply',
    setup({ openai }) {
      openai.enqueue({ content: 'cut short', omitDone: true });
    },
    error: /^GPU box stopped the reply without finishing it \(the stream ended before \[DONE\]\)/,
    content: 'cut short',
  },
  {
    name: 'a dropped connection keeps the text so far',
    setup({ openai }) {
      openai.enqueue({ content: 'alpha beta gamma delta', dropAfterChunks: 2 });
    },
    error: /^The connection to GPU box at http:\/\/127\.0\.0\.1:\d+\/v1 dropped in the middle of the reply/,
    content: 'alpha beta ',
  },
];

for (const errorCase of errorCases) {
  test(`errors from an OpenAI-compatible server: ${errorCase.name}`, async (t) => {
    const chat = await startTwoServerChat(t, (await errorCase.options?.()) ?? {});
    errorCase.setup(chat);
    chat.socket.send({ type: 'send', message: 'Hello', model: errorCase.model ?? qwen });
    const final = await chat.socket.waitFor(isSwap('#message-2', 'outerHTML'));
    const saved = chat.store.getMessage(2)!;
    assert.equal(saved.status, 'failed');
    // Saved as the headline, then the server's exact words.
    const { headline, details } = readStoredError(saved.error ?? '');
    assert.match(details, errorCase.error);
    assert.match(headline, /GPU box/, 'the headline names the server that failed');
    assert.doesNotMatch(headline, /Ollama/);
    assert.match(String(final.content), /class="chat-error/);
    assert.equal(saved.content, errorCase.content ?? '');
  });
}

test('a llama.cpp server that is down is named in the headline, not Ollama', async (t) => {
  const chat = await startTwoServerChat(t, { backend: { name: 'llama.cpp', id: 'llama-cpp' }, baseUrl: `http://127.0.0.1:${await freePort()}/v1` });
  chat.socket.send({ type: 'send', message: 'Hello', model: '@llama-cpp/qwen2.5-7b' });
  const final = await chat.socket.waitFor(isSwap('#message-2', 'outerHTML'));
  assert.match(String(final.content), /<p class="chat-error-text">llama\.cpp is not answering\. Check that it is running, then retry\.<\/p>/);
  assert.match(String(final.content), /<summary>Details<\/summary>llama\.cpp is not answering at http:\/\/127\.0\.0\.1:\d+\/v1/);
  assert.doesNotMatch(String(final.content), /Ollama/, 'Ollama answered; it is not blamed');
  assert.equal(chat.store.getMessage(2)!.status, 'failed');
});

test('when Ollama and a llama.cpp server are both down, the page and Send name each of them', async (t) => {
  const port = await freePort();
  const config = loadConfig({ OLLAMA_HOST: `http://127.0.0.1:${port}`, OPENAI_BACKENDS: JSON.stringify([{ name: 'llama.cpp', id: 'llama-cpp', baseUrl: `http://127.0.0.1:${port}/v1` }]) });
  const chatModel = createChatModelFromConfig(config, { listTimeoutMs: 2000 });
  const { app, cookies, socket } = await startChatHarness(t, { dependencies: { chatModel } });
  const page = await app.inject({ url: '/', headers: { cookie: cookies } });
  const notice = /<p class="chat-error-text">([^<]*)<\/p>/.exec(page.body)![1]!;
  assert.match(notice, /llama\.cpp is not answering\./);
  assert.match(notice, /^Ollama is not answering\./, 'each server that is down is named');
  socket.send({ type: 'send', message: 'Hello' });
  const refusal = await socket.waitFor((message) => String(message.content).includes('chat-error'));
  assert.match(String(refusal.content), /<p class="chat-error-text">Ollama is not answering\. Check that it is running, then retry\. llama\.cpp is not answering\. Check that it is running, then retry\.<\/p>/);
  assert.match(String(refusal.content), /class="button chat-retry"/);
});

test('model names and errors from a server are shown as text, never as HTML', async (t) => {
  const hostile = '<img src=x onerror=alert(1)>';
  const { app, cookies } = await startTwoServerChat(t, { openai: { models: [{ id: hostile }] }, backend: { name: 'Box <b>"x"</b>' } });
  const page = await app.inject({ url: '/', headers: { cookie: cookies } });
  assert.doesNotMatch(page.body, /<img src=x/);
  assert.doesNotMatch(page.body, /<b>"x"<\/b>/);
  assert.match(page.body, /<option value="@box-b-x-b\/&lt;img src=x onerror=alert\(1\)&gt;">&lt;img src=x onerror=alert\(1\)&gt;<\/option>/);
  assert.match(page.body, /<optgroup class="model-group" label="Box &lt;b&gt;&quot;x&quot;&lt;\/b&gt;"/);
});

test('an Ollama chat goes on working beside the OpenAI-compatible server', async (t) => {
  const { socket, ollama, openai, store, turnFinished } = await startTwoServerChat(t);
  socket.send({ type: 'send', message: 'Hi', model: 'llama3.2:latest' });
  await turnFinished();
  assert.equal(store.getMessage(2)!.content, 'Hello from the Ollama stand-in.');
  assert.equal(ollama.requests[0]!.model, 'llama3.2:latest');
  assert.equal(openai.requests.length, 0);
});

/** A 1×1 lossless WebP. */
const tinyWebp = Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64');

test('photos reach an OpenAI-compatible vision model as image_url data URLs beside the text, each with its own type', async (t) => {
  const { socket, openai, ollama, app, cookies, turnFinished } = await startTwoServerChat(t, { backend: { visionModels: ['gemma-3-4b-it'] } });
  const page = await app.inject({ url: '/', headers: { cookie: cookies } });
  assert.match(page.body, /<option value="@gpu-box\/gemma-3-4b-it" data-vision>/, 'the picker marks the listed model as seeing');
  assert.match(page.body, /<option value="@gpu-box\/Qwen\/Qwen2\.5-7B-Instruct">/);
  const token = csrfTokenFrom(page.body);
  const upload = async (bytes: Buffer) => {
    const response = await uploadPhoto(app, { cookie: cookies, token }, bytes);
    assert.equal(response.statusCode, 201, response.body);
    return response.json().id as number;
  };
  const png = solidPng(30, 20);
  const ids = [await upload(smallJpeg), await upload(png), await upload(tinyWebp)];

  openai.enqueue({ content: 'A gradient, a blue square and a dot.' }, { content: 'Red to blue.' });
  socket.send({ type: 'send', message: 'What are these?', conversationId: '', model: '@gpu-box/gemma-3-4b-it', attachments: ids.join(',') });
  await turnFinished();
  const photoTurn = [
    { type: 'text', text: 'What are these?' },
    { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${smallJpeg.toString('base64')}` } },
    { type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } },
    { type: 'image_url', image_url: { url: `data:image/webp;base64,${tinyWebp.toString('base64')}` } },
  ];
  assert.deepEqual(openai.requests[0]!.messages.at(-1), { role: 'user', content: photoTurn });
  assert.equal(ollama.requests.length, 0);

  // The next turn carries the photos with the turn they came in; the new text goes alone.
  socket.messages.length = 0;
  socket.send({ type: 'send', message: 'Which colours?', conversationId: '1' });
  await turnFinished();
  const later = openai.requests[1]!.messages;
  assert.deepEqual(later.at(-3), { role: 'user', content: photoTurn });
  assert.deepEqual(later.at(-1), { role: 'user', content: 'Which colours?' });
});

test('a model on an OpenAI-compatible server that cannot see is refused in plain words before anything is sent', async (t) => {
  const { socket, openai, store, app, cookies } = await startTwoServerChat(t, { backend: { visionModels: ['gemma-3-4b-it'] } });
  const page = await app.inject({ url: '/', headers: { cookie: cookies } });
  const token = csrfTokenFrom(page.body);
  const id = (await uploadPhoto(app, { cookie: cookies, token }, smallJpeg)).json().id;
  socket.send({ type: 'send', message: 'Look', conversationId: '', model: qwen, attachments: String(id) });
  const refusal = await socket.waitFor((message) => String(message.content).includes('chat-error'));
  assert.match(String(refusal.content), /Qwen\/Qwen2\.5-7B-Instruct cannot see photos\. Models here that can: gemma-3-4b-it/);
  assert.equal(openai.requests.length, 0, 'the server was not asked');
  assert.equal(store.listConversations(10).length, 0, 'nothing was saved');
});

test('with no model anywhere that can see, the refusal says how to get one on either kind of server', async (t) => {
  const { socket, openai, app, cookies } = await startTwoServerChat(t);
  const page = await app.inject({ url: '/', headers: { cookie: cookies } });
  const token = csrfTokenFrom(page.body);
  const id = (await uploadPhoto(app, { cookie: cookies, token }, smallJpeg)).json().id;
  socket.send({ type: 'send', message: 'Look', conversationId: '', model: qwen, attachments: String(id) });
  const refusal = await socket.waitFor((message) => String(message.content).includes('chat-error'));
  const words = 'Qwen/Qwen2.5-7B-Instruct cannot see photos, and no model here can. Remove the photos, or add a model that can see: in Ollama, for example ollama pull gemma3; on another model server, load a vision model there and name it in OPENAI_VISION_MODELS (or visionModels in OPENAI_BACKENDS).';
  assert.ok(String(refusal.content).includes(words), String(refusal.content));
  assert.equal(openai.requests.length, 0);
  // The picker says the same before sending, with the model's name left to fill in.
  assert.ok(page.body.includes(`data-photo-refusal="{model}${words.slice('Qwen/Qwen2.5-7B-Instruct'.length)}"`));
});
