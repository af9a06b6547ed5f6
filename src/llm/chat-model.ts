import { Ollama, type AbortableAsyncIterator, type ChatResponse } from 'ollama';
import { describeLlmError, type LlmFailure } from './llm-error.js';
import { emptyStream, ReplyControl } from './reply-control.js';

export interface ChatTurn {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /** base64 pictures, for models with the vision capability. */
  images?: string[];
}

export interface ModelDescription {
  name: string;
  capabilities: string[];
  contextLength: number | undefined;
}

export interface ReplyChunk {
  content: string;
  thinking: string;
}

export interface ReplyStream extends AsyncIterable<ReplyChunk> {
  /** Stops this one reply and its Ollama request; other replies go on. */
  abort(): void;
}

export interface ChatRequest {
  model: string;
  messages: ChatTurn[];
  think: boolean;
  contextTokens: number;
  /** Aborting it stops the reply at any point, even before Ollama answers. */
  signal?: AbortSignal;
}

/** The models of one model server, for the picker; `problem` says why it has none to offer. */
export interface ModelGroup {
  backendId: string;
  name: string;
  /** `id` is what a conversation stores; `name` is the server's own name for the model. */
  models: Array<{ id: string; name: string }>;
  problem?: string;
  /** No list came back (as opposed to a list with no models); `failure` says why. */
  unreachable?: boolean;
  failure?: LlmFailure;
}

export interface BackendHealth {
  id: string;
  name: string;
  kind: 'ollama' | 'openai';
  status: 'reachable' | 'unreachable' | 'unauthorized';
}

export interface ChatModel {
  readonly host: string;
  listModels(): Promise<string[]>;
  describeModel(name: string): Promise<ModelDescription>;
  isReachable(): Promise<boolean>;
  streamReply(request: ChatRequest): Promise<ReplyStream>;
  /** Several model servers behind one ChatModel (the model router) list theirs apart. */
  listModelGroups?(): Promise<ModelGroup[]>;
  checkBackends?(): Promise<BackendHealth[]>;
}

export interface ChatModelOptions {
  host: string;
  fetch?: typeof fetch;
  /** How long to wait for the first chunk (a model may need to load) and then between chunks. */
  firstChunkTimeoutMs?: number;
  chunkTimeoutMs?: number;
}

/** The Ollama client the app uses: ollama-js underneath, with errors turned into LlmError. */
export function createChatModel(options: ChatModelOptions): ChatModel {
  const client = new Ollama({ host: options.host, ...(options.fetch ? { fetch: options.fetch } : {}) });
  const descriptions = new Map<string, ModelDescription>();
  const firstChunkTimeoutMs = options.firstChunkTimeoutMs ?? 300_000;
  const chunkTimeoutMs = options.chunkTimeoutMs ?? 120_000;
  const context = (model: string, streaming: boolean) => ({ host: options.host, model, streaming });

  return {
    host: options.host,

    async listModels() {
      try {
        const response = await client.list();
        return response.models.map((model) => model.name).sort((a, b) => a.localeCompare(b));
      } catch (error) {
        throw describeLlmError(error, context('', false));
      }
    },

    async describeModel(name) {
      const known = descriptions.get(name);
      if (known) return known;
      try {
        const response = await client.show({ model: name });
        const info = (response.model_info ?? {}) as unknown as Record<string, unknown>;
        const contextKey = Object.keys(info).find((key) => key.endsWith('.context_length'));
        const description: ModelDescription = {
          name,
          capabilities: response.capabilities ?? [],
          contextLength: contextKey ? Number(info[contextKey]) || undefined : undefined,
        };
        descriptions.set(name, description);
        return description;
      } catch (error) {
        throw describeLlmError(error, context(name, false));
      }
    },

    async isReachable() {
      try {
        await client.version();
        return true;
      } catch {
        return false;
      }
    },

    async streamReply(request) {
      // ollama-js waits for response headers before it hands out an abortable iterator, so a
      // hung Ollama could never be stopped; a client per reply with our own signal can.
      const control = new ReplyControl(request.signal, {
        server: 'Ollama',
        firstChunkMs: firstChunkTimeoutMs,
        firstChunkMessage: `Ollama did not start answering within ${Math.round(firstChunkTimeoutMs / 1000)} s.`,
        chunkMs: chunkTimeoutMs,
        chunkMessage: `Ollama stopped sending for ${Math.round(chunkTimeoutMs / 1000)} s, so the reply was ended.`,
      });
      const baseFetch = options.fetch ?? fetch;
      const replyClient = new Ollama({
        host: options.host,
        fetch: (input, init) => baseFetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, control.signal]) : control.signal }),
      });

      let iterator: AbortableAsyncIterator<ChatResponse>;
      try {
        iterator = await replyClient.chat({
          model: request.model,
          messages: request.messages,
          stream: true,
          ...(request.think ? { think: true } : {}),
          options: { num_ctx: request.contextTokens },
        });
      } catch (error) {
        control.end();
        if (control.stopped) return emptyStream();
        throw control.timedOut ?? describeLlmError(error, context(request.model, false));
      }

      return {
        abort: control.stop,
        async *[Symbol.asyncIterator]() {
          try {
            for await (const part of iterator) {
              control.chunkArrived();
              yield { content: part.message?.content ?? '', thinking: part.message?.thinking ?? '' };
              if (part.done) return;
            }
          } catch (error) {
            if (control.stopped) return;
            throw control.timedOut ?? describeLlmError(error, context(request.model, true));
          } finally {
            control.end();
          }
        },
      };
    },
  };
}

