/**
 * The grouped model picker in a real Chromium: an OpenAI-compatible server's model is picked from
 * its group, its reply streams with the thinking apart, and Ollama's models stay beside it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { loadConfig } from '../../src/config/config.js';
import { createChatModelFromConfig } from '../../src/engine/llm/chat-model-from-config.js';
import { assertNoPageErrors, launchBrowser } from '../support/browser.js';
import { lastAssistant, normalize, openChat, send, waitForReplyEnd } from '../support/chat-page.js';
import { startOllamaStandin } from '../support/ollama-standin.js';
import { startOpenAiStandin } from '../support/openai-standin.js';

let browser: Browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

test('picking a model from the GPU box group chats with that server; thinking shows apart; the choice stays', async (t) => {
  const ollama = await startOllamaStandin();
  const openai = await startOpenAiStandin();
  t.after(() => Promise.all([ollama.close(), openai.close()]));
  const config = loadConfig({ OLLAMA_HOST: ollama.url, OPENAI_BACKENDS: JSON.stringify([{ name: 'GPU box', baseUrl: openai.baseUrl }]) });
  const { page } = await openChat(t, browser, { app: { dependencies: { chatModel: createChatModelFromConfig(config) } } });

  const groups = await page.locator('select#model-select optgroup').evaluateAll((elements) =>
    elements.map((group) => [group.getAttribute('label'), [...group.querySelectorAll('option')].map((option) => option.textContent)]),
  );
  assert.deepEqual(groups, [
    ['Ollama', ['llama3.2 · tools', 'qwen3 · thinks · tools']],
    ['GPU box', ['gemma-3-4b-it', 'Qwen/Qwen2.5-7B-Instruct']],
  ]);

  openai.enqueue({ chunks: ['<think>Greet ', 'back.</th', 'ink>Hello ', 'from the ', 'GPU box.'], chunkDelayMs: 5 });
  await page.locator('select#model-select').selectOption('@gpu-box/Qwen/Qwen2.5-7B-Instruct');
  await send(page, 'Hi');
  assert.equal(await waitForReplyEnd(page), 'complete');
  assert.equal(openai.requests.at(-1)?.model, 'Qwen/Qwen2.5-7B-Instruct');
  assert.equal(ollama.requests.length, 0);
  const message = lastAssistant(page);
  assert.equal(normalize(await message.locator('.thinking-section .thinking-body').textContent()), 'Greet back.');
  assert.equal(normalize(await message.locator('.chat-message-body').textContent()), 'Hello from the GPU box.');

  await page.reload();
  assert.equal(await page.locator('select#model-select').inputValue(), '@gpu-box/Qwen/Qwen2.5-7B-Instruct', 'the chat keeps its server and model');
  assertNoPageErrors(page);
});
