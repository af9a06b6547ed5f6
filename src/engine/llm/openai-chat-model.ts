import type OpenAI from 'openai';
import type { APIError } from 'openai';
import type { ChatCompletionChunk, ChatCompletionContentPart, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { OpenAiBackendSettings } from '../../config/config.js';
import { healthFromModelList, type ChatModel, type ChatTurn, type ModelDescription } from './chat-model.js';
import { LlmError } from './llm-error.js';
import { createModelServer, type FailureContext, type ModelServerTimeouts } from './model-server.js';
import { ThinkTagSplitter } from './think-tag-splitter.js';
import { ToolCallJoiner, type ToolCallFragment } from './openai-tool-calls.js';

export interface OpenAiChatModelOptions extends ModelServerTimeouts {
  backend: OpenAiBackendSettings;
  fetch?: typeof fetch;
}

type OpenAiPackage = typeof import('openai');

const contextTooLongPattern = /context (length|size|window)|maximum context|exceed(s|ed)?_?\s?(the )?(available )?context|too many tokens|prompt is too long/i;
const modelMissingPattern = /model.*(not found|does not exist|not loaded|unknown)|unknown model|no such model/i;

/** The server's own words: the API error's message when it sent one, without its full stop (the messages go on after it). */
function errorDetail(error: unknown, openai: OpenAiPackage | undefined): string {
  const inner = openai && error instanceof openai.APIError ? (error.error as { message?: unknown } | undefined) : undefined;
  return (typeof inner?.message === 'string' ? inner.message : error instanceof Error ? error.message : String(error)).trim().replace(/\.+$/, '');
}

/** What only an OpenAI-style answer tells: its HTTP status and error type, which name the backend and what to do. */
function classifyOpenAiError(error: unknown, context: FailureContext, backend: OpenAiBackendSettings, openai: OpenAiPackage | undefined): LlmError | undefined {
  // The error can only be the package's own once the package is loaded.
  if (!openai || !(error instanceof openai.APIError) || error instanceof openai.APIConnectionError) return undefined;
  const { model } = context;
  const detail = errorDetail(error, openai);
  const inner = (error as APIError).error as { type?: unknown; code?: unknown } | undefined;
  const kind = `${String(inner?.type ?? '')} ${String(inner?.code ?? '')}`;
  const status = error.status;
  if (status === 401 || status === 403) {
    const where = backend.apiKeyVariable
      ? `Check ${backend.apiKeyVariable} in .env`
      : 'Set its API key in .env (OPENAI_API_KEY, or apiKeyEnv in OPENAI_BACKENDS)';
    return new LlmError('unauthorized', `${backend.name} refused the API key (HTTP ${status}): ${detail}. ${where}, then restart Hearth.`, backend.name);
  }
  if (contextTooLongPattern.test(detail) || /context_length|exceed_context/i.test(kind)) {
    return new LlmError(
      'context-too-long',
      `The conversation is too long for "${model}" on ${backend.name}: ${detail}. Start a new chat, or give the model a larger context on the server (llama-server -c, vLLM --max-model-len).`,
      backend.name,
    );
  }
  if (status === 404 || modelMissingPattern.test(detail) || /model_not_found/i.test(kind)) {
    return new LlmError(
      'model-missing',
      `The model "${model}" is not available on ${backend.name}: ${detail}. Pick another model, or load it on that server.`,
      backend.name,
    );
  }
  if (status === undefined) {
    return new LlmError('stream-error', `${backend.name} reported an error while writing the reply: ${detail}. The text so far is kept; send again to retry.`, backend.name);
  }
  return new LlmError('request-rejected', `${backend.name} refused the request (HTTP ${status}): ${detail}`, backend.name);
}

/** Pictures travel base64 without a type; the first bytes tell it. */
function imageMimeType(base64: string): string {
  if (base64.startsWith('iVBOR')) return 'image/png';
  if (base64.startsWith('R0lGOD')) return 'image/gif';
  if (base64.startsWith('UklGR')) return 'image/webp';
  return 'image/jpeg';
}

function toOpenAiMessage(turn: ChatTurn, vision: boolean): ChatCompletionMessageParam {
  if (turn.role === 'system') return { role: 'system', content: turn.content };
  if (turn.role === 'assistant' && turn.toolCalls?.length) {
    return {
      role: 'assistant',
      content: turn.content || null,
      tool_calls: turn.toolCalls.map((call, index) => ({ id: call.id ?? `call_${index}`, type: 'function' as const, function: { name: call.name, arguments: call.arguments } })),
    };
  }
  if (turn.role === 'assistant') return { role: 'assistant', content: turn.content };
  if (turn.role === 'tool') return { role: 'tool', tool_call_id: turn.toolCallId ?? '', content: turn.content };
  // Tool results reach the model as text in a user turn (the [TOOL:] protocol), never as OpenAI tool messages.
  if (!vision || !turn.images?.length) return { role: 'user', content: turn.content };
  const parts: ChatCompletionContentPart[] = [{ type: 'text', text: turn.content }];
  for (const image of turn.images) {
    parts.push({ type: 'image_url', image_url: { url: `data:${imageMimeType(image)};base64,${image}` } });
  }
  return { role: 'user', content: parts };
}

/** The server root (without /v1), where llama.cpp answers /props. */
function serverRoot(baseUrl: string): string {
  return baseUrl.replace(/\/v1\/?$/, '');
}

interface StreamDelta {
  content?: string | null;
  tool_calls?: ToolCallFragment[] | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
}

/**
 * Watches an SSE body go by and remembers whether it ended with `data: [DONE]`. The openai package
 * ends a stream quietly either way, but a stream cut off without [DONE] lost the end of the reply.
 * Keeps only the last few characters: bounded memory, linear time.
 */
function watchForDone(baseFetch: typeof fetch, seen: { done: boolean }): typeof fetch {
  return async (input, init) => {
    const response = await baseFetch(input, init);
    if (!response.body || !/event-stream/i.test(response.headers.get('content-type') ?? '')) return response;
    const decoder = new TextDecoder();
    let tail = '';
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          tail = (tail + decoder.decode(chunk, { stream: true })).slice(-64);
          controller.enqueue(chunk);
        },
        flush() {
          seen.done = /data:\s*\[DONE\]\s*$/.test(tail);
        },
      }),
    );
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/**
 * A ChatModel for one OpenAI-compatible server, through the official openai package for the wire
 * format and the shared skeleton (model-server.ts) for the rest. The package (about 12 MB of
 * memory and 0.2 s to load) is loaded when the server is first asked something, so a Hearth
 * whose servers are all Ollama never loads it.
 */
export function createOpenAiChatModel(options: OpenAiChatModelOptions): ChatModel {
  const { backend } = options;
  const baseFetch = options.fetch ?? fetch;
  let openai: OpenAiPackage | undefined;
  const modelServer = createModelServer(
    {
      server: backend.name,
      address: backend.baseUrl,
      unreachableAdvice: 'Check that the server is running and that its address (OPENAI_BASE_URL or OPENAI_BACKENDS) is right.',
      classify: (error, context) => classifyOpenAiError(error, context, backend, openai),
      isConnectionFailure: (error) => openai !== undefined && error instanceof openai.APIConnectionError,
      detail: (error) => errorDetail(error, openai),
    },
    options,
  );
  const { firstChunkTimeoutMs, listTimeoutMs } = modelServer.timeouts;

  async function makeClient(fetchFunction: typeof fetch): Promise<OpenAI> {
    openai ??= await import('openai');
    return new openai.OpenAI({
      baseURL: backend.baseUrl,
      // The package insists on a key; servers without one ignore the header.
      apiKey: backend.apiKey ?? 'no-key',
      organization: null,
      project: null,
      maxRetries: 0,
      timeout: firstChunkTimeoutMs,
      fetch: fetchFunction,
    });
  }
  let sharedClient: Promise<OpenAI> | undefined;
  const client = () => (sharedClient ??= makeClient(baseFetch));
  // vLLM reports max_model_len with each model; remembered when the list is read.
  const contextLengths = new Map<string, number>();
  const descriptions = new Map<string, ModelDescription>();

  async function readModels(): Promise<string[]> {
    const page = await (await client()).models.list({ timeout: listTimeoutMs });
    const names: string[] = [];
    for (const model of page.data) {
      names.push(model.id);
      const maxModelLength = Number((model as unknown as { max_model_len?: unknown }).max_model_len);
      if (Number.isFinite(maxModelLength) && maxModelLength > 0) contextLengths.set(model.id, maxModelLength);
    }
    return names.sort((a, b) => a.localeCompare(b));
  }

  /**
   * A JSON answer from the server's own API beside the OpenAI one (llama.cpp's /props, LM Studio's
   * model lists): undefined when the server has no such route; throws when it does not answer.
   */
  async function readServerJson(route: string): Promise<unknown> {
    const response = await baseFetch(`${serverRoot(backend.baseUrl)}${route}`, {
      headers: backend.apiKey ? { authorization: `Bearer ${backend.apiKey}` } : {},
      signal: AbortSignal.timeout(listTimeoutMs),
    });
    return response.ok ? response.json() : undefined;
  }

  /** llama.cpp's /props: the context it was started with, and whether it loaded a vision projector. */
  async function readLlamaCppProps(): Promise<{ contextLength?: number; vision?: boolean }> {
    try {
      const props = (await readServerJson('/props')) as { default_generation_settings?: { n_ctx?: unknown }; n_ctx?: unknown; modalities?: { vision?: unknown } } | undefined;
      if (!props) return {};
      const contextLength = Number(props.default_generation_settings?.n_ctx ?? props.n_ctx);
      return {
        ...(Number.isFinite(contextLength) && contextLength > 0 ? { contextLength } : {}),
        ...(typeof props.modalities?.vision === 'boolean' ? { vision: props.modalities.vision } : {}),
      };
    } catch {
      return {};
    }
  }

  /**
   * LM Studio's own model lists, read once for all the models one page asks about (kept 30 s):
   * its v1 REST API (0.4+) and the older v0 one. Other servers answer 404 to both: empty lists.
   * Undefined when the server did not answer at all (a timeout while it loads a model): then
   * nothing is concluded from it.
   */
  type LmStudioLists = {
    v1?: Array<{ key?: unknown; capabilities?: { vision?: unknown }; loaded_instances?: Array<{ id?: unknown }> }>;
    v0?: Array<{ id?: unknown; type?: unknown }>;
  };
  let lmStudioLists: { readAt: number; lists: Promise<LmStudioLists | undefined> } | undefined;
  function readLmStudioLists(): Promise<LmStudioLists | undefined> {
    if (lmStudioLists && performance.now() - lmStudioLists.readAt < 30_000) return lmStudioLists.lists;
    const lists = (async (): Promise<LmStudioLists | undefined> => {
      try {
        const v1 = (await readServerJson('/api/v1/models')) as { models?: LmStudioLists['v1'] } | undefined;
        if (Array.isArray(v1?.models)) return { v1: v1.models };
        const v0 = (await readServerJson('/api/v0/models')) as { data?: LmStudioLists['v0'] } | undefined;
        return Array.isArray(v0?.data) ? { v0: v0.data } : {};
      } catch {
        return undefined;
      }
    })();
    lmStudioLists = { readAt: performance.now(), lists };
    // Not answered: ask again next time rather than keep the failure for 30 s.
    void lists.then((answer) => {
      if (answer === undefined && lmStudioLists?.lists === lists) lmStudioLists = undefined;
    });
    return lists;
  }

  /** Whether LM Studio says this model sees; undefined when it says nothing of it, or did not answer. */
  async function readLmStudioVision(name: string): Promise<{ answered: boolean; vision?: boolean }> {
    const lists = await readLmStudioLists();
    if (!lists) return { answered: false };
    // The OpenAI-style list names a model by its key, or by a loaded instance's id (key:2).
    const v1 = lists.v1?.find((candidate) => candidate.key === name || candidate.loaded_instances?.some((instance) => instance.id === name));
    if (v1) return { answered: true, vision: v1.capabilities?.vision === true };
    const v0 = lists.v0?.find((candidate) => candidate.id === name);
    return { answered: true, ...(v0 ? { vision: v0.type === 'vlm' } : {}) };
  }

  async function describeModel(name: string): Promise<ModelDescription> {
    const known = descriptions.get(name);
    if (known) return known;
    const answered = contextLengths.has(name) || (await readModels().then(() => true, () => false));
    const props = await readLlamaCppProps();
    const listed = backend.visionModels.includes('*') || backend.visionModels.includes(name);
    // The person's list first; then what the server itself says (llama.cpp's /props, LM Studio's list).
    // (Not asked of a server that did not answer its model list: two more waits for nothing.)
    const lmStudio = listed || props.vision !== undefined || !answered ? undefined : await readLmStudioVision(name);
    const vision = listed || props.vision === true || lmStudio?.vision === true;
    const description: ModelDescription = {
      name,
      capabilities: ['completion', ...(vision ? ['vision'] : [])],
      contextLength: contextLengths.get(name) ?? props.contextLength,
    };
    // Asked while the server was down, or LM Studio's list did not come: decide again next time rather than keep a guess.
    if (answered && lmStudio?.answered !== false) descriptions.set(name, description);
    return description;
  }

  return {
    host: backend.baseUrl,

    listModels: () => modelServer.ask(readModels),

    describeModel,

    async checkBackends() {
      return [{ id: backend.id, name: backend.name, kind: 'openai', status: await healthFromModelList(modelServer.ask(readModels)) }];
    },

    isReachable: () => modelServer.answers(async (signal) => (await client()).models.list({ timeout: listTimeoutMs, signal })),

    streamReply(request) {
      const wire = { done: false };
      return modelServer.stream<ChatCompletionChunk>(request, {
        async open(signal) {
          const vision = (await describeModel(request.model).catch(() => undefined))?.capabilities.includes('vision') ?? false;
          const replyClient = await makeClient(watchForDone(baseFetch, wire));
          return replyClient.chat.completions.create(
            {
              model: request.model,
              messages: request.messages.map((turn) => toOpenAiMessage(turn, vision)),
              stream: true,
              ...(request.tools?.length
                ? { tools: request.tools.map((tool) => ({ type: 'function' as const, function: { name: tool.name, description: tool.description, parameters: tool.parameters } })) }
                : {}),
            },
            { signal },
          );
        },
        async *read(parts) {
          const splitter = new ThinkTagSplitter();
          // Calls stream in fragments joined by index; whole, they come after the text.
          const joiner = new ToolCallJoiner();
          for await (const chunk of parts) {
            // A usage-only chunk has no choices.
            const delta = (chunk.choices?.[0]?.delta ?? {}) as StreamDelta;
            joiner.push(delta.tool_calls);
            const reasoning = delta.reasoning_content ?? delta.reasoning ?? '';
            const split = delta.content ? splitter.push(delta.content) : { content: '', thinking: '' };
            const thinking = reasoning + split.thinking;
            if (split.content || thinking) yield { content: split.content, thinking };
          }
          const end = splitter.finish();
          if (end.content || end.thinking) yield end;
          if (!wire.done) {
            throw new LlmError(
              'connection-dropped',
              `${backend.name} stopped the reply without finishing it (the stream ended before [DONE]). The text so far is kept; send again to retry.`,
              backend.name,
            );
          }
          // Only a finished stream's calls run: one cut off may have half its arguments.
          const toolCalls = joiner.finish();
          if (toolCalls.length > 0) yield { content: '', thinking: '', toolCalls };
        },
      });
    },
  };
}
