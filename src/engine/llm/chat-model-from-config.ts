import type { Config } from '../../config/config.js';
import { createModelRouter, type ModelRouter } from './model-router.js';
import { createOllamaChatModel } from './ollama-chat-model.js';
import type { ModelServerTimeouts } from './model-server.js';
import { createOpenAiChatModel } from './openai-chat-model.js';

/** Ollama (always, the zero-config default) plus every OpenAI-compatible server in the config, as one ChatModel. */
export function createChatModelFromConfig(config: Pick<Config, 'ollamaHost' | 'openAiBackends'>, timeouts: ModelServerTimeouts = {}): ModelRouter {
  return createModelRouter(
    [
      { id: 'ollama', name: 'Ollama', kind: 'ollama', chatModel: createOllamaChatModel({ host: config.ollamaHost, ...timeouts }) },
      ...config.openAiBackends.map((backend) => ({
        id: backend.id,
        name: backend.name,
        kind: 'openai' as const,
        chatModel: createOpenAiChatModel({ backend, ...timeouts }),
      })),
    ],
    { listTimeoutMs: timeouts.listTimeoutMs },
  );
}
