import type { Config } from '../../config/config.js';
import { createModelRouter, type ModelRouter } from './model-router.js';
import { createOllamaChatModel } from './ollama-chat-model.js';
import { createOpenAiChatModel } from './openai-chat-model.js';

export interface ChatModelTimeouts {
  firstChunkTimeoutMs?: number;
  chunkTimeoutMs?: number;
  /** How long a model list or health check of one server may take. */
  listTimeoutMs?: number;
}

/** Ollama (always, the zero-config default) plus every OpenAI-compatible server in the config, as one ChatModel. */
export function createChatModelFromConfig(config: Pick<Config, 'ollamaHost' | 'openAiBackends'>, timeouts: ChatModelTimeouts = {}): ModelRouter {
  const { listTimeoutMs, ...streamTimeouts } = timeouts;
  return createModelRouter(
    [
      { id: 'ollama', name: 'Ollama', kind: 'ollama', chatModel: createOllamaChatModel({ host: config.ollamaHost, ...streamTimeouts }) },
      ...config.openAiBackends.map((backend) => ({
        id: backend.id,
        name: backend.name,
        kind: 'openai' as const,
        chatModel: createOpenAiChatModel({ backend, ...timeouts }),
      })),
    ],
    { listTimeoutMs },
  );
}
