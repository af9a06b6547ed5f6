/**
 * A local stand-in for an OpenAI-compatible model server, as llama.cpp's llama-server and vLLM
 * speak it: GET /v1/models, POST /v1/chat/completions streamed as SSE `data:` lines ending with
 * `data: [DONE]`, a usage chunk, errors as `{"error": {"message", "type", "code"}}` (before the
 * stream as an HTTP error, during it as a `data:` line), and reasoning as `reasoning_content`
 * (llama.cpp, older vLLM) or `reasoning` (newer vLLM) deltas. llama.cpp's GET /props is served too,
 * and LM Studio's own model lists (GET /api/v1/models, /api/v0/models) when asked for.
 *
 * Scriptable per test like the Ollama stand-in: queue replies or set a handler to stream slowly,
 * fail, fail mid-stream, drop the connection, end without [DONE] or hang.
 *
 * CLI (for benchmarks): npx tsx tests/support/openai-standin.ts --port 8081 [--host 127.0.0.1]
 * OPENAI_STANDIN_REPLY_TOKENS and OPENAI_STANDIN_TOKENS_PER_SECOND set the default reply.
 */
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setImmediate as yieldToEventLoop, setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { echoedTitle, isTitleRequest, StandinServer, urlHost } from './standin-server.js';

export interface OpenAiStandinModel {
  id: string;
  /** vLLM lists it with each model; left out when undefined (llama.cpp, LM Studio). */
  maxModelLength?: number;
}

export interface OpenAiScriptedReply {
  /** Answer text, split into chunks (word-ish unless chunkSize or chunks is given). */
  content?: string;
  /** Exact content pieces, one per chunk (e.g. a `<think>` tag cut across two). */
  chunks?: string[];
  /** Reasoning streamed before the content, in `reasoning_content` (default) or `reasoning` deltas. */
  reasoning?: string;
  reasoningField?: 'reasoning_content' | 'reasoning';
  chunkSize?: number;
  chunkDelayMs?: number;
  /** Bench mode: `tokens` chunks of `tokenText` (default 'token '), paced at tokensPerSecond. */
  tokens?: number;
  tokenText?: string;
  tokensPerSecond?: number;
  /** Fail before streaming with this status and `{"error": {message, type, code}}`. */
  status?: number;
  error?: string;
  errorType?: string;
  errorCode?: string | number;
  /** After N chunks send `data: {"error": {...}}` and end (as llama.cpp does). */
  errorAfterChunks?: number;
  midStreamError?: string;
  /** After N chunks destroy the socket. */
  dropAfterChunks?: number;
  /** Finish the HTTP response cleanly after the content, but without `data: [DONE]`. */
  omitDone?: boolean;
  hang?: boolean;
  /**
   * Tool calls after the content, streamed as vLLM and llama.cpp do: a first `delta.tool_calls`
   * fragment with the index, id, type and name, then the arguments (JSON text) in
   * `argumentPieces` fragments (default 1) carrying only the index; finish_reason "tool_calls".
   */
  toolCalls?: Array<{ name: string; arguments: string }>;
  argumentPieces?: number;
}

export interface RecordedOpenAiRequest {
  model: string;
  messages: Array<{ role: string; content: unknown }>;
  body: Record<string, unknown>;
  authorization: string | undefined;
  /** True when the client closed the connection before the reply was finished. */
  aborted: boolean;
  receivedAt: number;
}

export type OpenAiReplyHandler = (request: RecordedOpenAiRequest) => OpenAiScriptedReply | Promise<OpenAiScriptedReply>;

export interface OpenAiStandinOptions {
  port?: number;
  host?: string;
  models?: OpenAiStandinModel[];
  /** When set, every request needs `Authorization: Bearer <apiKey>` (llama-server --api-key). */
  apiKey?: string;
  /** llama.cpp's /props answer; undefined: /props is 404 as on vLLM. */
  props?: { contextLength: number; vision: boolean };
  /** LM Studio's own model list, v1 (0.4+, capabilities.vision) or v0 (type "vlm"); undefined: both 404. */
  lmStudio?: { api: 'v0' | 'v1'; vision: string[] };
  defaultReply?: OpenAiScriptedReply;
}

export interface OpenAiStandin {
  /** The API root, ready for `new OpenAI({ baseURL })`: http://127.0.0.1:PORT/v1 */
  baseUrl: string;
  models: OpenAiStandinModel[];
  requests: RecordedOpenAiRequest[];
  /** Hearth naming a chat in the background, apart from `requests`; answered with `titleReply` (null: the person's first six words). */
  titleRequests: RecordedOpenAiRequest[];
  titleReply: OpenAiScriptedReply | null;
  /** Every `METHOD /path` asked, in order (model lists, /props, chats). */
  routesAsked: string[];
  enqueue(...replies: OpenAiScriptedReply[]): void;
  setHandler(handler: OpenAiReplyHandler | null): void;
  waitForRequests(count: number, timeoutMs?: number): Promise<void>;
  /** Resolves when the reply to request number `index` (0-based) has ended, by finishing or by the client closing. */
  waitForEnd(index: number, timeoutMs?: number): Promise<RecordedOpenAiRequest>;
  activeStreams(): number;
  close(): Promise<void>;
}

const defaultText = 'Hello from the OpenAI stand-in.';

export function defaultOpenAiModels(): OpenAiStandinModel[] {
  return [{ id: 'Qwen/Qwen2.5-7B-Instruct', maxModelLength: 32768 }, { id: 'gemma-3-4b-it' }];
}

export async function startOpenAiStandin(options: OpenAiStandinOptions = {}): Promise<OpenAiStandin> {
  const standin = new Standin(options);
  await standin.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  return standin;
}

class Standin extends StandinServer<OpenAiScriptedReply, OpenAiReplyHandler, RecordedOpenAiRequest> implements OpenAiStandin {
  baseUrl = '';
  models: OpenAiStandinModel[];
  routesAsked: string[] = [];
  private readonly ended = new Set<number>();

  constructor(private readonly options: OpenAiStandinOptions) {
    super((response, error) => {
      if (!response.headersSent) sendError(response, 500, String(error), 'server_error', 500);
      else response.destroy();
    });
    this.models = options.models?.map((model) => ({ ...model })) ?? defaultOpenAiModels();
  }

  async listen(port: number, host: string): Promise<void> {
    this.baseUrl = `http://${urlHost(host)}:${await this.listenOn(port, host)}/v1`;
  }

  waitForEnd(index: number, timeoutMs = 3000): Promise<RecordedOpenAiRequest> {
    return this.waitUntil(
      () => (this.ended.has(index) ? this.requests[index] : undefined),
      timeoutMs,
      () => `request ${index} had not ended within ${timeoutMs} ms`,
    );
  }

  protected override async route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? '/', 'http://standin').pathname;
    if (this.options.apiKey !== undefined && request.headers.authorization !== `Bearer ${this.options.apiKey}`) {
      // llama-server --api-key answers exactly like this.
      await drain(request);
      return sendError(response, 401, 'Invalid API Key', 'authentication_error', 401);
    }
    const route = `${request.method} ${path}`;
    this.routesAsked.push(route);
    switch (route) {
      case 'GET /health':
        return sendJson(response, 200, { status: 'ok' });
      case 'GET /props':
        if (!this.options.props) return sendError(response, 404, 'File Not Found', 'not_found_error', 404);
        return sendJson(response, 200, {
          default_generation_settings: { n_ctx: this.options.props.contextLength },
          total_slots: 1,
          model_path: '/models/standin.gguf',
          modalities: { vision: this.options.props.vision, audio: false },
        });
      case 'GET /api/v1/models':
        if (this.options.lmStudio?.api !== 'v1') return sendError(response, 404, `Unexpected endpoint or method. (GET ${path})`, 'not_found_error', 404);
        return sendJson(response, 200, {
          models: this.models.map((model) => ({
            type: 'llm',
            key: model.id,
            display_name: model.id,
            loaded_instances: [{ id: model.id, config: { context_length: 4096 } }],
            max_context_length: 32768,
            capabilities: { vision: this.options.lmStudio!.vision.includes(model.id), trained_for_tool_use: false },
          })),
        });
      case 'GET /api/v0/models':
        if (this.options.lmStudio?.api !== 'v0') return sendError(response, 404, `Unexpected endpoint or method. (GET ${path})`, 'not_found_error', 404);
        return sendJson(response, 200, {
          object: 'list',
          data: this.models.map((model) => ({
            id: model.id,
            object: 'model',
            type: this.options.lmStudio!.vision.includes(model.id) ? 'vlm' : 'llm',
            state: 'loaded',
            max_context_length: 32768,
          })),
        });
      case 'GET /v1/models':
        return sendJson(response, 200, {
          object: 'list',
          data: this.models.map((model) => ({
            id: model.id,
            object: 'model',
            created: 1_700_000_000,
            owned_by: 'standin',
            ...(model.maxModelLength === undefined ? {} : { max_model_len: model.maxModelLength }),
          })),
        });
      case 'POST /v1/chat/completions':
        return this.chat(request, response);
      default:
        await drain(request);
        return sendError(response, 404, `Not Found: ${path}`, 'not_found_error', 404);
    }
  }

  private async chat(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const text = await readBody(request);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return sendError(response, 400, 'Invalid JSON body', 'invalid_request_error', 400);
    }
    const model = typeof body.model === 'string' ? body.model : '';
    const index = this.requests.length;
    const recorded: RecordedOpenAiRequest = {
      model,
      messages: Array.isArray(body.messages) ? (body.messages as RecordedOpenAiRequest['messages']) : [],
      body,
      authorization: request.headers.authorization,
      aborted: false,
      receivedAt: Date.now(),
    };
    const naming = isTitleRequest(recorded.messages);
    (naming ? this.titleRequests : this.requests).push(recorded);
    const stopped = new AbortController();
    response.on('close', () => {
      if (!response.writableFinished && !droppedOnPurpose.has(response) && !this.closing) recorded.aborted = true;
      stopped.abort();
      if (!naming) this.ended.add(index);
      this.wake();
    });
    this.wake();

    if (!this.models.some((candidate) => candidate.id === model)) {
      // vLLM's answer to an unknown model.
      return sendError(response, 404, `The model \`${model}\` does not exist.`, 'NotFoundError', 404);
    }
    this.active++;
    try {
      const script = naming
        ? (this.titleReply ?? { content: echoedTitle(recorded.messages) })
        : (this.queue.shift() ?? (this.handler ? await this.handler(recorded) : (this.options.defaultReply ?? {})));
      if (stopped.signal.aborted) return;
      await streamReply(response, model, script, stopped.signal, body.stream === true);
    } finally {
      this.active--;
    }
  }
}

function chunkId(): string {
  return `chatcmpl-${Math.random().toString(36).slice(2, 14)}`;
}

function split(text: string, chunkSize: number | undefined): string[] {
  if (chunkSize && chunkSize > 0) {
    const characters = Array.from(text);
    const pieces: string[] = [];
    for (let index = 0; index < characters.length; index += chunkSize) pieces.push(characters.slice(index, index + chunkSize).join(''));
    return pieces;
  }
  return text.match(/\S+\s*|\s+/g) ?? [];
}

interface Delta {
  content?: string;
  reasoning_content?: string;
  reasoning?: string;
  tool_calls?: Array<{ index: number; id?: string; type?: 'function'; function: { name?: string; arguments: string } }>;
}

/** Each call's fragments in order: its head with the name, then pieces of its arguments. */
function* toolCallDeltas(script: OpenAiScriptedReply): Generator<Delta> {
  for (const [index, call] of (script.toolCalls ?? []).entries()) {
    yield { tool_calls: [{ index, id: `call_standin_${index}`, type: 'function', function: { name: call.name, arguments: '' } }] };
    const pieces = Math.max(1, script.argumentPieces ?? 1);
    const size = Math.ceil(call.arguments.length / pieces) || 1;
    for (let start = 0; start < call.arguments.length; start += size) yield { tool_calls: [{ index, function: { arguments: call.arguments.slice(start, start + size) } }] };
  }
}

function* deltasOf(script: OpenAiScriptedReply): Generator<Delta> {
  if (script.reasoning) {
    const field = script.reasoningField ?? 'reasoning_content';
    for (const piece of split(script.reasoning, script.chunkSize)) yield { [field]: piece };
  }
  if (script.tokens !== undefined) {
    for (let index = 0; index < script.tokens; index++) yield { content: script.tokenText ?? 'token ' };
  } else if (script.chunks) {
    for (const piece of script.chunks) yield { content: piece };
  } else {
    for (const piece of split(script.content ?? (script.toolCalls ? '' : defaultText), script.chunkSize)) yield { content: piece };
  }
  yield* toolCallDeltas(script);
}

/** Responses whose socket the stand-in itself destroyed, so they are not recorded as a client abort. */
const droppedOnPurpose = new WeakSet<ServerResponse>();

/** Cuts the connection once what was written has left, as a crashed server or a pulled cable would. */
async function drop(response: ServerResponse): Promise<void> {
  droppedOnPurpose.add(response);
  const socket = response.socket;
  if (!socket) return;
  await new Promise<void>((resolve) => socket.write('', () => resolve()));
  socket.destroy();
}

async function streamReply(response: ServerResponse, model: string, script: OpenAiScriptedReply, signal: AbortSignal, stream: boolean): Promise<void> {
  if (script.status !== undefined || script.error !== undefined) {
    return sendError(response, script.status ?? 500, script.error ?? 'stand-in error', script.errorType ?? 'server_error', script.errorCode ?? script.status ?? 500);
  }
  if (script.hang) return untilAborted(signal);
  const id = chunkId();
  const created = Math.floor(Date.now() / 1000);
  const frame = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'standin', choices, ...extra })}\n\n`;

  if (!stream) {
    // Not used by Hearth; enough for a curl check.
    const content = [...deltasOf(script)].map((delta) => delta.content ?? '').join('');
    return sendJson(response, 200, { id, object: 'chat.completion', created, model, choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] });
  }
  response.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
  response.flushHeaders();
  const write = async (text: string) => {
    if (!response.write(text)) await Promise.race([once(response, 'drain'), untilAborted(signal)]);
  };
  const startedAt = performance.now();
  let sent = 0;
  await write(frame([{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]));
  for (const delta of deltasOf(script)) {
    if (script.dropAfterChunks !== undefined && sent >= script.dropAfterChunks) return drop(response);
    if (script.errorAfterChunks !== undefined && sent >= script.errorAfterChunks) break;
    let waitMs = 0;
    if (script.tokensPerSecond) waitMs = startedAt + (sent * 1000) / script.tokensPerSecond - performance.now();
    else if (script.chunkDelayMs && sent > 0) waitMs = script.chunkDelayMs;
    try {
      if (waitMs >= 1) await sleep(waitMs, undefined, { signal });
      else await yieldToEventLoop(undefined, { signal });
    } catch {
      return;
    }
    if (signal.aborted) return;
    await write(frame([{ index: 0, delta, logprobs: null, finish_reason: null }]));
    sent++;
  }
  if (script.dropAfterChunks !== undefined) return drop(response);
  if (script.errorAfterChunks !== undefined || script.midStreamError !== undefined) {
    const error = { code: 500, message: script.midStreamError ?? 'stand-in mid-stream error', type: script.errorType ?? 'server_error' };
    response.end(`data: ${JSON.stringify({ error })}\n\n`);
    return;
  }
  await write(frame([{ index: 0, delta: {}, logprobs: null, finish_reason: script.toolCalls?.length ? 'tool_calls' : 'stop' }]));
  // vLLM's usage chunk: no choices, only counts.
  await write(frame([], { usage: { prompt_tokens: 12, completion_tokens: sent, total_tokens: 12 + sent } }));
  response.end(script.omitDone ? '' : 'data: [DONE]\n\n');
}

function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

async function readBody(request: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

async function drain(request: IncomingMessage): Promise<void> {
  for await (const _part of request) {
    // discard
  }
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  response.end(text);
}

function sendError(response: ServerResponse, status: number, message: string, type: string, code: string | number): void {
  sendJson(response, status, { error: { message, type, code } });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { port: { type: 'string', default: '8081' }, host: { type: 'string', default: '127.0.0.1' } } });
  const tokens = Number(process.env.OPENAI_STANDIN_REPLY_TOKENS ?? 0);
  const tokensPerSecond = Number(process.env.OPENAI_STANDIN_TOKENS_PER_SECOND ?? 0);
  const standin = await startOpenAiStandin({
    port: Number(values.port),
    host: values.host,
    ...(tokens > 0 ? { defaultReply: { tokens, ...(tokensPerSecond > 0 ? { tokensPerSecond } : {}) } } : {}),
  });
  console.log(`OpenAI stand-in listening at ${standin.baseUrl}`);
  const stop = () => void standin.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
