// Drives the Ollama stand-in through the real `ollama` client, so the wire format is checked
// against what the application will actually parse.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { Ollama, type ChatResponse } from 'ollama';
import { startOllamaStandin, type OllamaStandin, type StandinModel } from '../../support/ollama-standin.js';

async function setup(t: TestContext, models?: StandinModel[]): Promise<{ standin: OllamaStandin; ollama: Ollama }> {
  const standin = await startOllamaStandin({ models });
  t.after(() => standin.close());
  return { standin, ollama: new Ollama({ host: standin.url }) };
}

async function waitUntil(condition: () => boolean, timeoutMs = 1000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** ollama-js does not export ResponseError, so match on its shape. */
function responseError(status: number, message: string | RegExp) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof Error);
    assert.equal(error.name, 'ResponseError');
    assert.equal((error as Error & { status_code?: number }).status_code, status);
    if (typeof message === 'string') assert.equal(error.message, message);
    else assert.match(error.message, message);
    return true;
  };
}

test('list() returns the models', async (t) => {
  const { ollama } = await setup(t);
  const { models } = await ollama.list();
  assert.deepEqual(
    models.map((model) => model.name),
    ['llama3.2:latest', 'qwen3:latest'],
  );
  assert.equal(models[0]?.details.family, 'llama');
  assert.match(models[0]?.digest ?? '', /^[0-9a-f]{64}$/);
});

test('list() reflects models added by the test', async (t) => {
  const { standin, ollama } = await setup(t, [{ name: 'tiny' }]);
  standin.models.push({ name: 'gpt-oss:20b', capabilities: ['completion', 'thinking'] });
  const { models } = await ollama.list();
  assert.deepEqual(
    models.map((model) => model.name),
    ['tiny:latest', 'gpt-oss:20b'],
  );
});

test('show() returns capabilities and context length', async (t) => {
  const { ollama } = await setup(t, [{ name: 'qwen3:latest', capabilities: ['completion', 'thinking'], contextLength: 40960 }]);
  const shown = await ollama.show({ model: 'qwen3' });
  assert.deepEqual(shown.capabilities, ['completion', 'thinking']);
  const info = shown.model_info as unknown as Record<string, unknown>;
  assert.equal(info['general.architecture'], 'qwen');
  assert.equal(info['qwen.context_length'], 40960);
  await assert.rejects(ollama.show({ model: 'missing' }), responseError(404, "model 'missing' not found"));
});

test('show accepts the legacy name field', async (t) => {
  const { standin } = await setup(t);
  const response = await fetch(`${standin.url}/api/show`, { method: 'POST', body: JSON.stringify({ name: 'llama3.2' }) });
  assert.equal(response.status, 200);
  const shown = (await response.json()) as { capabilities: string[] };
  assert.deepEqual(shown.capabilities, ['completion', 'tools']);
});

test('plain routes: root, version and unknown paths', async (t) => {
  const { standin, ollama } = await setup(t);
  const root = await fetch(standin.url);
  assert.equal(await root.text(), 'Ollama is running');
  assert.deepEqual(await ollama.version(), { version: '0.12.0' });
  const missing = await fetch(`${standin.url}/api/nope`);
  assert.equal(missing.status, 404);
  assert.deepEqual(await missing.json(), { error: 'not found' });
});

test('a streamed chat yields the scripted content in order, then a done chunk', async (t) => {
  const { standin, ollama } = await setup(t);
  standin.enqueue({ content: 'The quick brown fox jumps.' });
  const stream = await ollama.chat({
    model: 'llama3.2',
    messages: [{ role: 'user', content: 'Tell me about the fox' }],
    stream: true,
    options: { temperature: 0 },
  });
  const parts: ChatResponse[] = [];
  for await (const part of stream) parts.push(part);

  const content = parts.filter((part) => !part.done).map((part) => part.message.content);
  assert.deepEqual(content, ['The ', 'quick ', 'brown ', 'fox ', 'jumps.']);
  const last = parts.at(-1);
  assert.equal(last?.done, true);
  assert.equal(last?.done_reason, 'stop');
  assert.equal(last?.message.content, '');
  assert.equal(last?.eval_count, 5);
  assert.equal(last?.prompt_eval_count, 5);
  assert.ok((last?.eval_duration ?? 0) > 0);
  assert.ok((last?.total_duration ?? 0) >= (last?.eval_duration ?? 0));

  const [recorded] = standin.requests;
  assert.equal(recorded?.model, 'llama3.2');
  assert.equal(recorded?.stream, true);
  assert.equal(recorded?.aborted, false);
  assert.deepEqual(recorded?.messages, [{ role: 'user', content: 'Tell me about the fox' }]);
  assert.deepEqual(recorded?.options, { temperature: 0 });
});

test('chunkSize splits by characters and the default reply is used when nothing is queued', async (t) => {
  const { standin, ollama } = await setup(t);
  standin.enqueue({ content: 'abcdefg', chunkSize: 3 });
  const parts: string[] = [];
  for await (const part of await ollama.chat({ model: 'llama3.2', messages: [], stream: true })) {
    if (!part.done) parts.push(part.message.content);
  }
  assert.deepEqual(parts, ['abc', 'def', 'g']);

  const fallback = await ollama.chat({ model: 'llama3.2', messages: [] });
  assert.equal(fallback.message.content, 'Hello from the Ollama stand-in.');
});

test('stream:false returns one object with the whole message', async (t) => {
  const { standin, ollama } = await setup(t);
  standin.enqueue({ content: 'All at once.', thinking: 'Hmm.' });
  const response = await ollama.chat({ model: 'qwen3', messages: [{ role: 'user', content: 'hi' }], stream: false });
  assert.equal(response.done, true);
  assert.equal(response.message.content, 'All at once.');
  assert.equal(response.message.thinking, 'Hmm.');
  assert.equal(response.eval_count, 4);
  assert.equal(standin.requests[0]?.stream, false);
});

test('thinking arrives in message.thinking before the content', async (t) => {
  const { standin, ollama } = await setup(t);
  standin.enqueue({ thinking: 'Let me think.', content: 'Answer.' });
  const parts: ChatResponse[] = [];
  const stream = await ollama.chat({ model: 'qwen3', messages: [{ role: 'user', content: 'why?' }], stream: true, think: true });
  for await (const part of stream) parts.push(part);
  assert.deepEqual(
    parts.filter((part) => !part.done).map((part) => [part.message.thinking ?? null, part.message.content]),
    [
      ['Let ', ''],
      ['me ', ''],
      ['think.', ''],
      [null, 'Answer.'],
    ],
  );
  assert.equal(standin.requests[0]?.think, true);
});

test('tool calls are streamed as their own chunk', async (t) => {
  const { standin, ollama } = await setup(t);
  const toolCalls = [{ function: { name: 'get_time', arguments: { zone: 'UTC' } } }];
  standin.enqueue({ toolCalls });
  const parts: ChatResponse[] = [];
  for await (const part of await ollama.chat({ model: 'llama3.2', messages: [], stream: true })) parts.push(part);
  assert.deepEqual(parts[0]?.message.tool_calls, toolCalls);
  assert.equal(parts.at(-1)?.done, true);
});

test('a missing model rejects with a 404 "not found"', async (t) => {
  const { standin, ollama } = await setup(t);
  standin.enqueue({ content: 'kept for the next valid request' });
  await assert.rejects(
    ollama.chat({ model: 'nope', messages: [{ role: 'user', content: 'hi' }], stream: true }),
    responseError(404, "model 'nope' not found"),
  );
  // The rejected request is recorded but does not consume the queued reply.
  assert.equal(standin.requests.length, 1);
  const response = await ollama.chat({ model: 'llama3.2', messages: [] });
  assert.equal(response.message.content, 'kept for the next valid request');
});

test('think:true on a model without thinking is a 400 with the exact message', async (t) => {
  const { ollama } = await setup(t);
  await assert.rejects(
    ollama.chat({ model: 'llama3.2', messages: [{ role: 'user', content: 'hi' }], stream: true, think: true }),
    responseError(400, '"llama3.2" does not support thinking'),
  );
});

test('a scripted status fails before streaming', async (t) => {
  const { standin, ollama } = await setup(t);
  standin.enqueue({ status: 503, error: 'server busy, please try again' });
  await assert.rejects(
    ollama.chat({ model: 'llama3.2', messages: [], stream: true }),
    responseError(503, 'server busy, please try again'),
  );
});

test('a mid-stream error line makes the iteration throw that message', async (t) => {
  const { standin, ollama } = await setup(t);
  standin.enqueue({ content: 'one two three four', errorAfterChunks: 2, midStreamError: 'model runner crashed' });
  const stream = await ollama.chat({ model: 'llama3.2', messages: [], stream: true });
  const content: string[] = [];
  await assert.rejects(
    async () => {
      for await (const part of stream) content.push(part.message.content);
    },
    (error: unknown) => {
      // A plain Error, not a ResponseError: the status was already 200.
      assert.ok(error instanceof Error);
      assert.equal(error.name, 'Error');
      assert.equal(error.message, 'model runner crashed');
      return true;
    },
  );
  assert.deepEqual(content, ['one ', 'two ']);
});

test('a dropped connection makes the iteration throw', async (t) => {
  const { standin, ollama } = await setup(t);
  standin.enqueue({ content: 'one two three four', dropAfterChunks: 2 });
  const stream = await ollama.chat({ model: 'llama3.2', messages: [], stream: true });
  const content: string[] = [];
  await assert.rejects(
    async () => {
      for await (const part of stream) content.push(part.message.content);
    },
    (error: unknown) => {
      // undici reports the half-read body as TypeError('terminated'), caused by a SocketError.
      assert.ok(error instanceof TypeError);
      assert.equal(error.message, 'terminated');
      return true;
    },
  );
  assert.deepEqual(content, ['one ', 'two ']);
  await waitUntil(() => standin.activeStreams() === 0);
  assert.equal(standin.requests[0]?.aborted, false, 'a scripted drop is not a client abort');
});

test('stream.abort() is recorded as aborted', async (t) => {
  const { standin, ollama } = await setup(t);
  standin.enqueue({ content: 'a b c d e f g h i j', chunkDelayMs: 20 });
  const stream = await ollama.chat({ model: 'llama3.2', messages: [], stream: true });
  const content: string[] = [];
  await assert.rejects(
    async () => {
      for await (const part of stream) {
        content.push(part.message.content);
        stream.abort();
      }
    },
    { name: 'AbortError' },
  );
  assert.deepEqual(content, ['a ']);
  await waitUntil(() => standin.requests[0]?.aborted === true);
  await waitUntil(() => standin.activeStreams() === 0);
});

test('hangAfterChunks stalls after the chunks until the client aborts', async (t) => {
  const { standin, ollama } = await setup(t);
  standin.enqueue({ content: 'a b c', hangAfterChunks: 1 });
  const stream = await ollama.chat({ model: 'llama3.2', messages: [], stream: true });
  const iterator = stream[Symbol.asyncIterator]();
  assert.equal((await iterator.next()).value?.message.content, 'a ');
  const next = iterator.next();
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(standin.activeStreams(), 1);
  stream.abort();
  await assert.rejects(next, { name: 'AbortError' });
  await waitUntil(() => standin.requests[0]?.aborted === true && standin.activeStreams() === 0);
});

test('hang never answers; close() ends it', async (t) => {
  const { standin, ollama } = await setup(t);
  standin.enqueue({ hang: true });
  const pending = ollama.chat({ model: 'llama3.2', messages: [], stream: true });
  await standin.waitForRequests(1);
  assert.equal(standin.activeStreams(), 1);
  await standin.close();
  // No headers ever arrived, so it is fetch itself that fails.
  await assert.rejects(pending, { name: 'TypeError', message: 'fetch failed' });
});

test('a handler answers when the queue is empty', async (t) => {
  const { standin, ollama } = await setup(t);
  standin.setHandler((request) => ({ content: `echo: ${request.messages.at(-1)?.content ?? ''}` }));
  const response = await ollama.chat({ model: 'llama3.2', messages: [{ role: 'user', content: 'ping' }] });
  assert.equal(response.message.content, 'echo: ping');
  await assert.rejects(standin.waitForRequests(2, 20), /expected 2 chat requests/);
});

test('bench mode streams tokens at a pace', async (t) => {
  const { standin, ollama } = await setup(t);
  standin.enqueue({ tokens: 10, tokenText: 'x', tokensPerSecond: 200 });
  const startedAt = performance.now();
  let text = '';
  let evalCount = 0;
  for await (const part of await ollama.chat({ model: 'llama3.2', messages: [], stream: true })) {
    text += part.message.content;
    if (part.done) evalCount = part.eval_count;
  }
  assert.equal(text, 'xxxxxxxxxx');
  assert.equal(evalCount, 10);
  assert.ok(performance.now() - startedAt >= 40, '10 tokens at 200/s take about 45 ms');
});

test('serves 250 concurrent streams', async (t) => {
  const { standin, ollama } = await setup(t);
  const count = 250;
  // Hold every reply until all requests are in, so they are truly concurrent.
  standin.setHandler(async (request) => {
    await standin.waitForRequests(count, 5000);
    return { content: `reply to ${request.messages[0]?.content ?? ''}`, chunkDelayMs: 1 };
  });
  const answers = await Promise.all(
    Array.from({ length: count }, async (_, index) => {
      let text = '';
      const stream = await ollama.chat({ model: 'llama3.2', messages: [{ role: 'user', content: `#${index}` }], stream: true });
      for await (const part of stream) text += part.message.content;
      return text;
    }),
  );
  assert.deepEqual(
    answers,
    Array.from({ length: count }, (_, index) => `reply to #${index}`),
  );
  assert.equal(standin.activeStreams(), 0);
});
