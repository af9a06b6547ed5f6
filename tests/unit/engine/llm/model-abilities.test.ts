import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ModelDescription } from '../../../../src/engine/llm/chat-model.js';
import { abilitiesAmong, abilitiesOf, abilityWords } from '../../../../src/engine/llm/model-abilities.js';
import { createOllamaChatModel } from '../../../../src/engine/llm/ollama-chat-model.js';
import { startOllamaStandin } from '../../../support/ollama-standin.js';

test("Ollama's capabilities from /api/show become abilities, said in a few words", async (t) => {
  const standin = await startOllamaStandin({
    models: [
      { name: 'llama3.2:latest', capabilities: ['completion', 'tools'] },
      { name: 'qwen3:8b', capabilities: ['completion', 'tools', 'thinking'] },
      { name: 'llava:latest', capabilities: ['completion', 'vision'] },
    ],
  });
  t.after(() => standin.close());
  const chatModel = createOllamaChatModel({ host: standin.url });
  const { abilities, complete } = await abilitiesAmong(chatModel, ['llama3.2:latest', 'qwen3:8b', 'llava:latest', 'gone:latest'], 30_000);
  assert.equal(complete, true);
  assert.deepEqual(abilityWords(abilities.get('qwen3:8b')!), ['thinks', 'tools']);
  assert.deepEqual(abilityWords(abilities.get('llava:latest')!), ['sees']);
  assert.deepEqual(abilityWords(abilities.get('llama3.2:latest')!), ['tools']);
  // A model that cannot be described can do nothing more than write: a photo is refused, not dropped.
  assert.deepEqual(abilities.get('gone:latest'), { sees: false, thinks: false, usesTools: false, callsNatively: false });
  // Each description is kept: asked again, the server is not asked (here it no longer knows llava).
  standin.models.splice(2, 1);
  const again = await abilitiesAmong(chatModel, ['llava:latest'], 30_000);
  assert.equal(again.abilities.get('llava:latest')?.sees, true);
});

test('a model server that does not describe its models in time does not hold the page', async () => {
  const hangs = { describeModel: (name: string) => (name === 'slow' ? new Promise<ModelDescription>(() => {}) : Promise.resolve({ name, capabilities: ['vision'], contextLength: undefined })) };
  const { abilities, complete } = await abilitiesAmong(hangs, ['fast', 'slow'], 20);
  assert.equal(complete, false);
  assert.equal(abilities.get('fast')?.sees, true);
  assert.equal(abilities.has('slow'), false);
});

test('an OpenAI-compatible description says only whether it sees: never thinks or tools', () => {
  assert.deepEqual(abilitiesOf({ capabilities: ['completion', 'vision'] }), { sees: true, thinks: false, usesTools: false, callsNatively: false });
});
