import { Ollama, type AbortableAsyncIterator, type ChatResponse } from 'ollama';
import { healthFromModelList, type ChatModel, type ModelDescription } from './chat-model.js';
import { isNetworkError, LlmError } from './llm-error.js';
import { emptyStream, ReplyControl } from './reply-control.js';

interface ErrorContext {
  host: string;
  model: string;
  streaming: boolean;
}

/**
 * Ollama's words when its model process ended under it: "llama runner process has terminated:
 * signal: killed" (or ": exit status 2"), "llama runner process no longer running", and newer
 * versions' "model runner has unexpectedly stopped".
 */
const runnerEndedPattern = /runner process (has terminated|no longer running)|model runner has unexpectedly stopped/i;

/** Maps whatever ollama-js or fetch threw to one LlmError with a specific, actionable message. */
function describeOllamaError(error: unknown, context: ErrorContext): LlmError {
  if (error instanceof LlmError) return error;
  const server = 'Ollama';
  const status = (error as { status_code?: number }).status_code;
  const message = error instanceof Error ? error.message : String(error);

  // Before the network check: "has terminated" is the model process, not the connection.
  if (runnerEndedPattern.test(message)) {
    const killed = /signal: killed/i.test(message);
    return new LlmError(
      killed ? 'model-killed' : 'model-crashed',
      `Ollama's model process ended ${context.streaming ? 'while writing the reply' : 'before it could answer'} (Ollama said: "${message}").` +
        `${context.streaming ? ' The text so far is kept.' : ''}${killed ? ' "Killed" is nearly always the system running out of memory.' : ''}` +
        ` A smaller model (or a smaller quantization), or a new chat with less to read, needs less memory.`,
      server,
    );
  }
  if (status === 404 && /not found/i.test(message)) {
    return new LlmError(
      'model-missing',
      `The model "${context.model}" is not installed in Ollama. Pick another model, or run: ollama pull ${context.model}`,
      server,
    );
  }
  if (status === 400 && /does not support thinking/i.test(message)) {
    return new LlmError('thinking-unsupported', `The model "${context.model}" does not support thinking: ${message}`, server);
  }
  if (status !== undefined) {
    return new LlmError('request-rejected', `Ollama refused the request (HTTP ${status}): ${message}`, server);
  }
  if (isNetworkError(error)) {
    return context.streaming
      ? new LlmError(
          'connection-dropped',
          `The connection to Ollama at ${context.host} dropped in the middle of the reply. The text so far is kept; send again to retry.`,
          server,
        )
      : new LlmError(
          'unreachable',
          `Ollama is not answering at ${context.host}. Check that it is running (ollama serve) and that OLLAMA_HOST is right.`,
          server,
        );
  }
  return new LlmError('stream-error', `Ollama reported an error while writing the reply: ${message}`, server);
}

export interface OllamaChatModelOptions {
  host: string;
  fetch?: typeof fetch;
  /** How long to wait for the first chunk (a model may need to load) and then between chunks. */
  firstChunkTimeoutMs?: number;
  chunkTimeoutMs?: number;
}

/** The Ollama client the app uses: ollama-js underneath, with errors turned into LlmError. */
export function createOllamaChatModel(options: OllamaChatModelOptions): ChatModel {
  const client = new Ollama({ host: options.host, ...(options.fetch ? { fetch: options.fetch } : {}) });
  const descriptions = new Map<string, ModelDescription>();
  const firstChunkTimeoutMs = options.firstChunkTimeoutMs ?? 300_000;
  const chunkTimeoutMs = options.chunkTimeoutMs ?? 120_000;
  const context = (model: string, streaming: boolean) => ({ host: options.host, model, streaming });

  const model: ChatModel = {
    host: options.host,

    async listModels() {
      try {
        const response = await client.list();
        return response.models.map((model) => model.name).sort((a, b) => a.localeCompare(b));
      } catch (error) {
        throw describeOllamaError(error, context('', false));
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
        throw describeOllamaError(error, context(name, false));
      }
    },

    async checkBackends() {
      return [{ id: 'ollama', name: 'Ollama', kind: 'ollama', status: await healthFromModelList(model.listModels()) }];
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
        throw control.timedOut ?? describeOllamaError(error, context(request.model, false));
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
            throw control.timedOut ?? describeOllamaError(error, context(request.model, true));
          } finally {
            control.end();
          }
        },
      };
    },
  };
  return model;
}

