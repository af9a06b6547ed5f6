import { Ollama, type ChatResponse, type Message } from 'ollama';
import { healthFromModelList, type ChatModel, type ChatTurn, type ModelDescription, type NativeToolCall, type NativeToolSpec } from './chat-model.js';
import { LlmError } from './llm-error.js';
import { createModelServer, fetchWithSignal, type FailureContext, type ModelServerTimeouts } from './model-server.js';

/**
 * Ollama's words when its model process ended under it: "llama runner process has terminated:
 * signal: killed" (or ": exit status 2"), "llama runner process no longer running", and newer
 * versions' "model runner has unexpectedly stopped".
 */
const runnerEndedPattern = /runner process (has terminated|no longer running)|model runner has unexpectedly stopped/i;

/** What only Ollama's answers tell: its model process ending, a missing model, thinking refused, an HTTP status. */
function classifyOllamaError(error: unknown, context: FailureContext): LlmError | undefined {
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
  if (status !== undefined) return new LlmError('request-rejected', `Ollama refused the request (HTTP ${status}): ${message}`, server);
  return undefined;
}

/** JSON text as the object Ollama wants; arguments that are not an object go as `{}` (the call was already answered with an error). */
function argumentsObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A turn on Ollama's wire: native calls with object arguments, a tool's result with its name. */
export function toOllamaMessage(turn: ChatTurn): Message {
  const message: Message = { role: turn.role, content: turn.content };
  if (turn.images) message.images = turn.images;
  if (turn.toolCalls?.length) message.tool_calls = turn.toolCalls.map((call) => ({ function: { name: call.name, arguments: argumentsObject(call.arguments) } }));
  if (turn.role === 'tool' && turn.toolName) message.tool_name = turn.toolName;
  return message;
}

export const toOllamaTools = (tools: NativeToolSpec[]) =>
  tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } }));

/** Ollama's `message.tool_calls` (each whole, arguments an object) as JSON-text calls. */
export function readOllamaToolCalls(calls: unknown): NativeToolCall[] {
  if (!Array.isArray(calls)) return [];
  return calls.flatMap((call: { id?: unknown; function?: { name?: unknown; arguments?: unknown } }) => {
    const name = call?.function?.name;
    if (typeof name !== 'string') return [];
    const input = call.function?.arguments;
    const text = typeof input === 'string' ? input : JSON.stringify(input ?? {});
    return [{ ...(typeof call.id === 'string' ? { id: call.id } : {}), name, arguments: text }];
  });
}

export interface OllamaChatModelOptions extends ModelServerTimeouts {
  host: string;
  fetch?: typeof fetch;
}

/** The Ollama client the app uses: ollama-js for the wire format, the shared skeleton (model-server.ts) for the rest. */
export function createOllamaChatModel(options: OllamaChatModelOptions): ChatModel {
  const baseFetch = options.fetch ?? fetch;
  const client = new Ollama({ host: options.host, fetch: baseFetch });
  const modelServer = createModelServer(
    { server: 'Ollama', address: options.host, unreachableAdvice: 'Check that it is running (ollama serve) and that OLLAMA_HOST is right.', classify: classifyOllamaError },
    options,
  );
  const descriptions = new Map<string, ModelDescription>();
  // ollama-js takes no signal per request: a client whose fetch carries one can be stopped.
  const clientWith = (signal: AbortSignal) => new Ollama({ host: options.host, fetch: fetchWithSignal(baseFetch, signal) });

  const model: ChatModel = {
    host: options.host,

    async listModels() {
      const response = await modelServer.ask(() => client.list());
      return response.models.map((model) => model.name).sort((a, b) => a.localeCompare(b));
    },

    async describeModel(name) {
      const known = descriptions.get(name);
      if (known) return known;
      const response = await modelServer.ask(() => client.show({ model: name }), name);
      const info = (response.model_info ?? {}) as unknown as Record<string, unknown>;
      const contextKey = Object.keys(info).find((key) => key.endsWith('.context_length'));
      const description: ModelDescription = {
        name,
        capabilities: response.capabilities ?? [],
        contextLength: contextKey ? Number(info[contextKey]) || undefined : undefined,
      };
      descriptions.set(name, description);
      return description;
    },

    async checkBackends() {
      return [{ id: 'ollama', name: 'Ollama', kind: 'ollama', status: await healthFromModelList(model.listModels()) }];
    },

    isReachable: () => modelServer.answers((signal) => clientWith(signal).version()),

    streamReply(request) {
      return modelServer.stream<ChatResponse>(request, {
        // ollama-js waits for response headers before it hands out an abortable iterator, so a
        // hung Ollama could never be stopped; a client per reply with the reply's signal can.
        open: (signal) =>
          clientWith(signal).chat({
            model: request.model,
            messages: request.messages.map(toOllamaMessage),
            stream: true,
            ...(request.tools?.length ? { tools: toOllamaTools(request.tools) } : {}),
            ...(request.think === undefined ? {} : { think: request.think }),
            options: { num_ctx: request.contextTokens },
          }),
        async *read(parts) {
          for await (const part of parts) {
            const toolCalls = readOllamaToolCalls(part.message?.tool_calls);
            yield { content: part.message?.content ?? '', thinking: part.message?.thinking ?? '', ...(toolCalls.length > 0 ? { toolCalls } : {}) };
            if (part.done) return;
          }
        },
      });
    },
  };
  return model;
}
