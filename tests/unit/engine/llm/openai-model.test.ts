import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChatTurn } from '../../../../src/engine/llm/chat-model.js';
import { createOllamaChatModel } from '../../../../src/engine/llm/ollama-chat-model.js';
import { LlmError } from '../../../../src/engine/llm/llm-error.js';
import { createModelRouter, modelIdFor, parseModelId } from '../../../../src/engine/llm/model-router.js';
import type { OpenAiBackendSettings } from '../../../../src/config/config.js';
import { createOpenAiChatModel } from '../../../../src/engine/llm/openai-chat-model.js';
import { ThinkTagSplitter } from '../../../../src/engine/llm/think-tag-splitter.js';
import { startOllamaStandin } from '../../../support/ollama-standin.js';
import { startOpenAiStandin, type OpenAiStandinOptions } from '../../../support/openai-standin.js';

function splitAll(pieces: string[]): { content: string; thinking: string } {
  const splitter = new ThinkTagSplitter();
  const out = { content: '', thinking: '' };
  for (const piece of [...pieces.map((piece) => splitter.push(piece)), splitter.finish()]) {
    out.content += piece.content;
    out.thinking += piece.thinking;
  }
  return out;
}

test('<think> tags are split out of the answer wherever the chunks cut them', () => {
  const text = '<think>First I plan.</think>The answer is <b>4</b>.<think>more</think> Done <thin';
  const expected = { content: 'The answer is <b>4</b>. Done <thin', thinking: 'First I plan.more' };
  assert.deepEqual(splitAll([text]), expected);
  for (let cut = 0; cut <= text.length; cut++) {
    assert.deepEqual(splitAll([text.slice(0, cut), text.slice(cut)]), expected, `cut at ${cut}`);
  }
  assert.deepEqual(splitAll(Array.from(text)), expected, 'one character a chunk');
});

test('text that only looks like the start of a tag is held back no longer than needed', () => {
  const splitter = new ThinkTagSplitter();
  assert.deepEqual(splitter.push('a <th'), { content: 'a ', thinking: '' });
  assert.deepEqual(splitter.push('ree> b'), { content: '<three> b', thinking: '' });
  assert.deepEqual(splitter.push('<think>x</thi'), { content: '', thinking: 'x' });
  assert.deepEqual(splitter.finish(), { content: '', thinking: '</thi' }, 'an unfinished close tag inside thinking stays thinking');
});

test('model ids say which server a model is on, and keep slashes in the server’s own names', () => {
  assert.equal(modelIdFor({ id: 'ollama', kind: 'ollama' }, 'hf.co/bartowski/Llama-3.2-3B:Q4'), 'hf.co/bartowski/Llama-3.2-3B:Q4');
  assert.equal(modelIdFor({ id: 'gpu-box', kind: 'openai' }, 'Qwen/Qwen2.5-7B-Instruct'), '@gpu-box/Qwen/Qwen2.5-7B-Instruct');
  assert.deepEqual(parseModelId('@gpu-box/Qwen/Qwen2.5-7B-Instruct'), { backendId: 'gpu-box', name: 'Qwen/Qwen2.5-7B-Instruct' });
  assert.deepEqual(parseModelId('hf.co/bartowski/Llama-3.2-3B:Q4'), { backendId: undefined, name: 'hf.co/bartowski/Llama-3.2-3B:Q4' });
});

function backendFor(baseUrl: string, settings: Partial<OpenAiBackendSettings> = {}): OpenAiBackendSettings {
  return { id: 'box', name: 'Box', baseUrl, apiKey: undefined, apiKeyVariable: undefined, visionModels: [], ...settings };
}

async function openAiModel(t: import('node:test').TestContext, standinOptions: OpenAiStandinOptions = {}, settings: Partial<OpenAiBackendSettings> = {}) {
  const standin = await startOpenAiStandin(standinOptions);
  t.after(() => standin.close());
  return { standin, model: createOpenAiChatModel({ backend: backendFor(standin.baseUrl, settings) }) };
}

async function drain(stream: AsyncIterable<{ content: string; thinking: string }>): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += chunk.content;
  return text;
}

const photo = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const withPhoto: ChatTurn[] = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'What is in this picture?', images: [photo] },
];

test('photos go as image_url data URLs to a model listed as seeing them, and are left out for others', async (t) => {
  const { standin, model } = await openAiModel(t, {}, { visionModels: ['gemma-3-4b-it'] });
  assert.deepEqual((await model.describeModel('gemma-3-4b-it')).capabilities, ['completion', 'vision']);
  await drain(await model.streamReply({ model: 'gemma-3-4b-it', messages: withPhoto, think: false, contextTokens: 8192 }));
  assert.deepEqual(standin.requests[0]!.messages[1], {
    role: 'user',
    content: [
      { type: 'text', text: 'What is in this picture?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${photo}` } },
    ],
  });

  assert.deepEqual((await model.describeModel('Qwen/Qwen2.5-7B-Instruct')).capabilities, ['completion']);
  await drain(await model.streamReply({ model: 'Qwen/Qwen2.5-7B-Instruct', messages: withPhoto, think: false, contextTokens: 8192 }));
  assert.deepEqual(standin.requests[1]!.messages[1], { role: 'user', content: 'What is in this picture?' });
});

test('context length comes from vLLM’s max_model_len or llama.cpp’s /props, which also tells vision', async (t) => {
  const vllm = await openAiModel(t);
  assert.equal((await vllm.model.describeModel('Qwen/Qwen2.5-7B-Instruct')).contextLength, 32768);
  assert.equal((await vllm.model.describeModel('gemma-3-4b-it')).contextLength, undefined, 'unknown: the reply runner’s default applies');

  const llamaCpp = await openAiModel(t, { models: [{ id: 'gemma-3-4b-it-Q4_K_M.gguf' }], props: { contextLength: 4096, vision: true } });
  const description = await llamaCpp.model.describeModel('gemma-3-4b-it-Q4_K_M.gguf');
  assert.equal(description.contextLength, 4096);
  assert.deepEqual(description.capabilities, ['completion', 'vision']);
});

test('LM Studio’s own model list tells which models see, in its v1 and its older v0 API', async (t) => {
  for (const api of ['v1', 'v0'] as const) {
    const lmStudio = await openAiModel(t, { models: [{ id: 'google/gemma-3-4b' }, { id: 'qwen/qwen3-8b' }], lmStudio: { api, vision: ['google/gemma-3-4b'] } });
    assert.deepEqual((await lmStudio.model.describeModel('google/gemma-3-4b')).capabilities, ['completion', 'vision'], api);
    assert.deepEqual((await lmStudio.model.describeModel('qwen/qwen3-8b')).capabilities, ['completion'], api);
    await drain(await lmStudio.model.streamReply({ model: 'google/gemma-3-4b', messages: withPhoto, think: false, contextTokens: 8192 }));
    assert.ok(Array.isArray(lmStudio.standin.requests[0]!.messages[1]!.content), `${api}: the photo went`);
  }
  // One page asks about every model: LM Studio's list is read once for all of them.
  const many = await openAiModel(t, { models: [{ id: 'a/one' }, { id: 'b/two' }, { id: 'c/three' }], lmStudio: { api: 'v0', vision: ['b/two'] } });
  const seeing = await Promise.all(['a/one', 'b/two', 'c/three'].map(async (name) => (await many.model.describeModel(name)).capabilities.includes('vision')));
  assert.deepEqual(seeing, [false, true, false]);
  assert.deepEqual(many.standin.routesAsked.filter((route) => route.includes('/api/')), ['GET /api/v1/models', 'GET /api/v0/models'], 'each list once');

  // vLLM answers neither: only the person's list counts there.
  const vllm = await openAiModel(t);
  assert.deepEqual((await vllm.model.describeModel('gemma-3-4b-it')).capabilities, ['completion']);
});

test('the API key goes as a bearer token', async (t) => {
  const { standin, model } = await openAiModel(t, { apiKey: 'sekret' }, { apiKey: 'sekret', apiKeyVariable: 'VLLM_KEY' });
  assert.equal(await drain(await model.streamReply({ model: 'gemma-3-4b-it', messages: withPhoto, think: false, contextTokens: 8192 })), 'Hello from the OpenAI stand-in.');
  assert.equal(standin.requests[0]!.authorization, 'Bearer sekret');
});

test('the router lists what answers, fails only when nothing does, and names a server that is gone', async (t) => {
  const ollama = await startOllamaStandin();
  const openai = await startOpenAiStandin();
  t.after(() => Promise.all([ollama.close(), openai.close()]));
  const router = createModelRouter([
    { id: 'ollama', name: 'Ollama', kind: 'ollama', chatModel: createOllamaChatModel({ host: ollama.url }) },
    { id: 'box', name: 'Box', kind: 'openai', chatModel: createOpenAiChatModel({ backend: backendFor(openai.baseUrl) }) },
  ]);
  assert.deepEqual(await router.listModels(), ['llama3.2:latest', 'qwen3:latest', '@box/gemma-3-4b-it', '@box/Qwen/Qwen2.5-7B-Instruct']);
  assert.equal((await router.describeModel('qwen3:latest')).capabilities.includes('thinking'), true);

  await ollama.close();
  assert.deepEqual(await router.listModels(), ['@box/gemma-3-4b-it', '@box/Qwen/Qwen2.5-7B-Instruct']);
  await openai.close();
  await assert.rejects(router.listModels(), (error: unknown) => error instanceof LlmError && error.failure === 'unreachable' && /Box is not answering/.test(error.message));
  await assert.rejects(
    router.streamReply({ model: '@old-box/llama', messages: withPhoto, think: false, contextTokens: 8192 }),
    (error: unknown) => error instanceof LlmError && error.failure === 'model-missing' && /"old-box", which is no longer configured/.test(error.message),
  );
});

test('a server that never answers is timed out with a message naming it, and the request is closed', async (t) => {
  const standin = await startOpenAiStandin({ defaultReply: { hang: true } });
  t.after(() => standin.close());
  const model = createOpenAiChatModel({ backend: backendFor(standin.baseUrl), firstChunkTimeoutMs: 200 });
  await assert.rejects(
    model.streamReply({ model: 'gemma-3-4b-it', messages: withPhoto, think: false, contextTokens: 8192 }),
    (error: unknown) => error instanceof LlmError && error.failure === 'timeout' && /^Box did not start answering within 200 ms\./.test(error.message),
  );
  assert.equal((await standin.waitForEnd(0)).aborted, true);
});
