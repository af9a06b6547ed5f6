import assert from 'node:assert/strict';
import { test } from 'node:test';
import { watchLoadedPackages } from '../../../support/loaded-packages.js';

// Before anything under test is imported: the code below is loaded with import().
const loaded = watchLoadedPackages();

test('an OpenAI-compatible server in the config loads the openai package when it is first asked, not before', async (t) => {
  const { createChatModelFromConfig } = await import('../../../../src/engine/llm/chat-model-from-config.js');
  const { startOpenAiStandin } = await import('../../../support/openai-standin.js');
  const { startOllamaStandin } = await import('../../../support/ollama-standin.js');
  const ollama = await startOllamaStandin();
  const openai = await startOpenAiStandin();
  t.after(() => Promise.all([ollama.close(), openai.close()]));

  const chatModel = createChatModelFromConfig({
    ollamaHost: ollama.url,
    openAiBackends: [{ id: 'box', name: 'Box', baseUrl: openai.baseUrl, apiKey: undefined, apiKeyVariable: undefined, visionModels: [] }],
  });
  assert.equal((await loaded.names()).has('openai'), false, 'building the chat model loads no openai');
  assert.deepEqual(await chatModel.listModels(), ['llama3.2:latest', 'qwen3:latest', '@box/gemma-3-4b-it', '@box/Qwen/Qwen2.5-7B-Instruct']);
  assert.equal((await loaded.names()).has('openai'), true, 'asking the server for its models loaded it');
});
