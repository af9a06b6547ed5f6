/*
 * What the Ollama and the OpenAI-compatible clients share (src/engine/llm/model-server.ts): the
 * reachability check's time limit, Stop before a reply starts, and the words of the time limits.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { test, type TestContext } from 'node:test';
import type { ChatModel, ChatTurn } from '../../../../src/engine/llm/chat-model.js';
import { LlmError } from '../../../../src/engine/llm/llm-error.js';
import { createOllamaChatModel } from '../../../../src/engine/llm/ollama-chat-model.js';
import { createOpenAiChatModel } from '../../../../src/engine/llm/openai-chat-model.js';
import { startOllamaStandin } from '../../../support/ollama-standin.js';
import { startOpenAiStandin } from '../../../support/openai-standin.js';

const messages: ChatTurn[] = [{ role: 'user', content: 'Hello' }];
const backend = (baseUrl: string) => ({ id: 'box', name: 'Box', baseUrl, apiKey: undefined, apiKeyVariable: undefined, visionModels: [] });

/** A server that takes connections and never says a word: a hung model server. */
async function silentServer(t: TestContext): Promise<string> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

/** The answer, or 'still waiting' when none came in `milliseconds` (generous: only a hang fails). */
function answerWithin<T>(promise: Promise<T>, milliseconds: number): Promise<T | 'still waiting'> {
  let timer: NodeJS.Timeout | undefined;
  const waiting = new Promise<'still waiting'>((resolve) => (timer = setTimeout(() => resolve('still waiting'), milliseconds)));
  return Promise.race([promise, waiting]).finally(() => clearTimeout(timer));
}

test('a model server that takes the connection but never answers is reported down within the list time limit, Ollama and OpenAI-compatible alike', async (t) => {
  const address = await silentServer(t);
  const models: Array<[string, ChatModel]> = [
    ['Ollama', createOllamaChatModel({ host: address, listTimeoutMs: 200 })],
    ['OpenAI-compatible', createOpenAiChatModel({ backend: backend(`${address}/v1`), listTimeoutMs: 200 })],
  ];
  for (const [kind, model] of models) {
    assert.equal(await answerWithin(model.isReachable(), 10_000), false, `${kind}: reported down, not left waiting`);
  }
});

test('a reply whose Stop came before it started sends nothing to the server and reads as empty', async (t) => {
  const ollama = await startOllamaStandin();
  const openai = await startOpenAiStandin();
  t.after(() => Promise.all([ollama.close(), openai.close()]));
  const stopped = AbortSignal.abort();
  const replies = [
    await createOllamaChatModel({ host: ollama.url }).streamReply({ model: 'llama3.2:latest', messages, think: false, contextTokens: 8192, signal: stopped }),
    await createOpenAiChatModel({ backend: backend(openai.baseUrl) }).streamReply({ model: 'gemma-3-4b-it', messages, think: false, contextTokens: 8192, signal: stopped }),
  ];
  for (const reply of replies) {
    for await (const chunk of reply) assert.fail(`nothing to read, got ${JSON.stringify(chunk)}`);
  }
  assert.equal(ollama.requests.length, 0, 'Ollama was not asked');
  assert.equal(openai.requests.length, 0, 'the OpenAI-compatible server was not asked');
});

test('both clients say their time limits the same way, naming the server, and close the request', async (t) => {
  const ollama = await startOllamaStandin({ defaultReply: { hang: true } });
  const openai = await startOpenAiStandin({ defaultReply: { hang: true } });
  t.after(() => Promise.all([ollama.close(), openai.close()]));
  const limits = { firstChunkTimeoutMs: 200, chunkTimeoutMs: 200 };
  await assert.rejects(
    createOllamaChatModel({ host: ollama.url, ...limits }).streamReply({ model: 'llama3.2:latest', messages, think: false, contextTokens: 8192 }),
    (error: unknown) => error instanceof LlmError && error.failure === 'timeout' && error.message === 'Ollama did not start answering within 200 ms.',
  );
  await assert.rejects(
    createOpenAiChatModel({ backend: backend(openai.baseUrl), ...limits }).streamReply({ model: 'gemma-3-4b-it', messages, think: false, contextTokens: 8192 }),
    (error: unknown) => error instanceof LlmError && error.failure === 'timeout' && error.message === 'Box did not start answering within 200 ms.',
  );
  await ollama.waitForRequests(1);
  for (const [server, standin] of [['Ollama', ollama], ['Box', openai]] as const) {
    for (let waited = 0; standin.activeStreams() > 0 && waited < 5000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(standin.activeStreams(), 0, `no request to ${server} left hanging`);
  }
});
