/**
 * A local stand-in for the Ollama HTTP API, used by tests and benchmarks.
 *
 * It speaks Ollama's real wire format (NDJSON chat streams, `{"error": ...}` bodies,
 * /api/tags and /api/show metadata) and is scriptable per test: queue replies, or set a
 * handler, to make it stream slowly, fail, fail mid-stream, drop the connection or hang.
 * Built on node:http alone so it stays light enough for hundreds of concurrent streams.
 *
 * CLI: npx tsx tests/support/ollama-standin.ts --port 11500 [--host 127.0.0.1] [--script file.json]
 * The script file is `{ "models": [...], "defaultReply": {...} }`; the environment variables
 * OLLAMA_STANDIN_REPLY_TOKENS and OLLAMA_STANDIN_TOKENS_PER_SECOND override the default reply.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setImmediate as yieldToEventLoop, setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { echoedTitle, isTitleRequest, StandinServer, urlHost } from './standin-server.js';

export interface StandinModel {
  name: string;
  /** Default ['completion']. Add 'thinking' to allow `think: true`. */
  capabilities?: string[];
  /** Default 8192; reported as `<family>.context_length` by /api/show. */
  contextLength?: number;
  /** Default: the leading letters of the name, e.g. 'llama' for 'llama3.2:latest'. */
  family?: string;
}

export interface StandinToolCall {
  function: { name: string; arguments: Record<string, unknown> };
}

export interface ScriptedReply {
  /** Full answer text, split into chunks. Defaults to the stand-in greeting unless `tokens` or `toolCalls` is set. */
  content?: string;
  /** Reasoning text, streamed before the content as `message.thinking` (left out when the request says `think: false`). */
  thinking?: string;
  /** Tool calls, sent as one chunk after the content, as Ollama does. */
  toolCalls?: StandinToolCall[];
  /** Characters per chunk. Default: word-ish tokens (a word plus its trailing whitespace). */
  chunkSize?: number;
  /** Delay between chunks. Default 0: as fast as possible, yielding to the event loop between chunks. */
  chunkDelayMs?: number;
  /** Bench mode: stream `tokens` chunks of `tokenText` (default 'token ') instead of `content`. */
  tokens?: number;
  tokenText?: string;
  /** Pace the chunks at this rate (overrides chunkDelayMs); 0 or undefined means full speed. */
  tokensPerSecond?: number;
  /** Default 'stop'; e.g. 'length' to simulate hitting num_predict. */
  doneReason?: string;
  /** Fail before streaming: answers `status` (default 500) with `{"error": error}`. */
  status?: number;
  error?: string;
  /** After N chunks (or instead of the final line, if the reply is shorter) send `{"error": midStreamError}` and end. */
  errorAfterChunks?: number;
  midStreamError?: string;
  /** After N chunks, destroy the socket without finishing the response. */
  dropAfterChunks?: number;
  /** Accept the request and never answer, until the client gives up or the stand-in is closed. */
  hang?: boolean;
  /** Send the headers and N chunks, then stall like `hang`. */
  hangAfterChunks?: number;
}

export interface RecordedMessage {
  role: string;
  content: string;
  thinking?: string;
  tool_calls?: unknown;
  tool_name?: string;
}

export interface RecordedChatRequest {
  model: string;
  messages: RecordedMessage[];
  think?: unknown;
  options?: unknown;
  /** Ollama streams unless the body says `stream: false`. */
  stream: boolean;
  /** True when the client closed the connection before the reply was finished. */
  aborted: boolean;
  /** Date.now() when the request arrived. */
  receivedAt: number;
  /** The raw JSON body, for fields not lifted out above (tools, format, keep_alive...). */
  body: Record<string, unknown>;
}

export type ReplyHandler = (request: RecordedChatRequest) => ScriptedReply | Promise<ScriptedReply>;

export interface OllamaStandin {
  /** e.g. http://127.0.0.1:PORT, ready for `new Ollama({ host: url })`. */
  url: string;
  /** Mutable: tests may push or remove models at any time. */
  models: StandinModel[];
  /** Every /api/chat request with a valid body, in arrival order (title requests apart). */
  requests: RecordedChatRequest[];
  /** Hearth naming a chat in the background: answered with `titleReply`, never with a scripted reply. */
  titleRequests: RecordedChatRequest[];
  /** null (the default): the person's first six words. */
  titleReply: ScriptedReply | null;
  waitForTitleRequests(count: number, timeoutMs?: number): Promise<void>;
  /** Replies for the next /api/chat calls, first in first out. Requests rejected with 404/400 do not consume one. */
  enqueue(...replies: ScriptedReply[]): void;
  /** Used when the queue is empty; null restores the default reply. */
  setHandler(handler: ReplyHandler | null): void;
  waitForRequests(count: number, timeoutMs?: number): Promise<void>;
  /** Chat replies in progress, hanging ones included. */
  activeStreams(): number;
  /** Stops the server and destroys open sockets, hanging ones included. */
  close(): Promise<void>;
}

export interface StandinOptions {
  /** Default 0: any free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  models?: StandinModel[];
  /** Reply used when neither the queue nor a handler gives one. */
  defaultReply?: ScriptedReply;
}

const DEFAULT_TEXT = 'Hello from the Ollama stand-in.';
const MAX_BODY_BYTES = 64 * 1024 * 1024; // images travel base64-encoded in the body

export function defaultModels(): StandinModel[] {
  return [
    { name: 'llama3.2:latest', capabilities: ['completion', 'tools'] },
    { name: 'qwen3:latest', capabilities: ['completion', 'tools', 'thinking'] },
  ];
}

export async function startOllamaStandin(options: StandinOptions = {}): Promise<OllamaStandin> {
  const standin = new Standin(options);
  await standin.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  return standin;
}

class Standin extends StandinServer<ScriptedReply, ReplyHandler, RecordedChatRequest> implements OllamaStandin {
  url = '';
  models: StandinModel[];
  private readonly defaultReply: ScriptedReply;

  constructor(options: StandinOptions) {
    super(fail);
    this.models = options.models?.map((model) => ({ ...model })) ?? defaultModels();
    this.defaultReply = options.defaultReply ?? {};
  }

  async listen(port: number, host: string): Promise<void> {
    this.url = `http://${urlHost(host)}:${await this.listenOn(port, host)}`;
  }

  protected override async route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? '/', 'http://standin').pathname;
    const route = `${request.method} ${path}`;
    switch (route) {
      case 'GET /':
      case 'HEAD /':
        response.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
        response.end('Ollama is running');
        return;
      case 'GET /api/version':
        return sendJson(response, 200, { version: '0.12.0' });
      case 'GET /api/tags':
        return sendJson(response, 200, { models: this.models.map(describeModel) });
      case 'POST /api/show':
        return this.show(request, response);
      case 'POST /api/chat':
        return this.chat(request, response);
      default:
        return sendJson(response, 404, { error: 'not found' });
    }
  }

  private async show(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readJson(request);
    if (!body) return sendJson(response, 400, { error: 'invalid JSON body' });
    const name = typeof body.model === 'string' ? body.model : typeof body.name === 'string' ? body.name : '';
    if (!name) return sendJson(response, 400, { error: 'model is required' });
    const model = this.findModel(name);
    if (!model) return sendJson(response, 404, { error: `model '${name}' not found` });
    const { details } = describeModel(model);
    sendJson(response, 200, {
      license: '',
      modelfile: `# Modelfile generated by the Ollama stand-in\nFROM ${canonicalName(model.name)}\n`,
      parameters: 'temperature 0.7',
      template: '{{ .Prompt }}',
      details,
      model_info: {
        'general.architecture': details.family,
        'general.parameter_count': 3_212_749_888,
        [`${details.family}.context_length`]: model.contextLength ?? 8192,
      },
      capabilities: capabilitiesOf(model),
      modified_at: MODIFIED_AT,
    });
  }

  private async chat(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readJson(request);
    if (!body) return sendJson(response, 400, { error: 'invalid JSON body' });
    const modelName = typeof body.model === 'string' ? body.model : '';
    if (!modelName) return sendJson(response, 400, { error: 'model is required' });

    const recorded: RecordedChatRequest = {
      model: modelName,
      messages: Array.isArray(body.messages) ? body.messages.map(recordMessage) : [],
      think: body.think,
      options: body.options,
      stream: body.stream !== false,
      aborted: false,
      receivedAt: Date.now(),
      body,
    };
    const naming = isTitleRequest(recorded.messages);
    (naming ? this.titleRequests : this.requests).push(recorded);
    this.wake();

    const model = this.findModel(modelName);
    if (!model) return sendJson(response, 404, { error: `model '${modelName}' not found` });
    if (thinkRequested(body.think) && !capabilitiesOf(model).includes('thinking')) {
      return sendJson(response, 400, { error: `"${modelName}" does not support thinking` });
    }

    // One signal per reply: it fires when the connection closes, so every wait can stop early.
    const stopped = new AbortController();
    const reply: ReplyState = { dropped: false };
    response.on('close', () => {
      if (!response.writableFinished && !reply.dropped && !this.closing) recorded.aborted = true;
      stopped.abort();
    });

    this.active++;
    try {
      const script = naming ? (this.titleReply ?? { content: echoedTitle(recorded.messages) }) : await this.nextReply(recorded);
      if (stopped.signal.aborted) return;
      await sendReply(response, recorded, script, stopped.signal, reply);
    } finally {
      this.active--;
    }
  }

  private async nextReply(request: RecordedChatRequest): Promise<ScriptedReply> {
    const queued = this.queue.shift();
    if (queued) return queued;
    if (this.handler) {
      try {
        return await this.handler(request);
      } catch (error) {
        return { status: 500, error: `stand-in handler failed: ${errorMessage(error)}` };
      }
    }
    return this.defaultReply;
  }

  private findModel(name: string): StandinModel | undefined {
    const wanted = canonicalName(name);
    return this.models.find((model) => canonicalName(model.name) === wanted);
  }
}

interface ReplyState {
  /** Set when the stand-in drops the connection on purpose, so it is not recorded as a client abort. */
  dropped: boolean;
}

interface Chunk {
  content: string;
  thinking?: string;
  tool_calls?: StandinToolCall[];
}

async function sendReply(
  response: ServerResponse,
  request: RecordedChatRequest,
  script: ScriptedReply,
  signal: AbortSignal,
  state: ReplyState,
): Promise<void> {
  if (script.status !== undefined || script.error !== undefined) {
    return sendJson(response, script.status ?? 500, { error: script.error ?? 'stand-in error' });
  }
  if (script.hang) return untilAborted(signal);

  const startedAt = process.hrtime.bigint();
  const chunks = chunksOf(script, request.think === false);
  const errorAt =
    script.errorAfterChunks !== undefined || script.midStreamError !== undefined ? (script.errorAfterChunks ?? 0) : undefined;
  const answer: Chunk = { content: '' };
  let thinking = '';

  if (request.stream) {
    response.writeHead(200, { 'Content-Type': 'application/x-ndjson' });
    response.flushHeaders(); // so the client sees the response even if we stall before the first chunk
  }

  // Returns true when a scripted failure ended the reply after `sent` chunks.
  const interrupt = async (sent: number, finished: boolean): Promise<boolean> => {
    const reached = (limit: number | undefined): boolean => limit !== undefined && (sent >= limit || finished);
    if (reached(script.hangAfterChunks)) {
      await untilAborted(signal);
      return true;
    }
    if (reached(script.dropAfterChunks)) {
      await flushed(response, signal); // let the chunks already written reach the client first
      state.dropped = true;
      response.socket?.destroy();
      return true;
    }
    if (reached(errorAt)) {
      const error = script.midStreamError ?? 'stand-in mid-stream error';
      // Ollama answers a failed non-streamed request with a plain error response.
      if (request.stream) response.end(`${JSON.stringify({ error })}\n`);
      else sendJson(response, 500, { error });
      return true;
    }
    return false;
  };

  let sent = 0;
  const pace = pacer(script);
  for (const chunk of chunks) {
    if (await interrupt(sent, false)) return;
    await pace(sent, signal);
    if (signal.aborted) return;
    if (request.stream) {
      const message = { role: 'assistant', ...chunk };
      await writeLine(response, { model: request.model, created_at: now(), message, done: false }, signal);
      if (signal.aborted) return;
    }
    answer.content += chunk.content;
    thinking += chunk.thinking ?? '';
    if (chunk.tool_calls) answer.tool_calls = chunk.tool_calls;
    sent++;
  }
  if (await interrupt(sent, true)) return;

  const evalDuration = Math.max(1, Number(process.hrtime.bigint() - startedAt));
  const promptEvalCount = request.messages.reduce((count, message) => count + wordCount(message.content), 0);
  const loadDuration = 1_000_000;
  const promptEvalDuration = promptEvalCount * 50_000;
  const summary = {
    done: true,
    done_reason: script.doneReason ?? 'stop',
    total_duration: loadDuration + promptEvalDuration + evalDuration,
    load_duration: loadDuration,
    prompt_eval_count: promptEvalCount,
    prompt_eval_duration: promptEvalDuration,
    eval_count: sent,
    eval_duration: evalDuration,
  };
  if (request.stream) {
    const message = { role: 'assistant', content: '' };
    response.end(`${JSON.stringify({ model: request.model, created_at: now(), message, ...summary })}\n`);
  } else {
    const message = { role: 'assistant', ...answer, ...(thinking ? { thinking } : {}) };
    sendJson(response, 200, { model: request.model, created_at: now(), message, ...summary });
  }
}

function* chunksOf(script: ScriptedReply, thinkingDisabled: boolean): Generator<Chunk> {
  if (script.thinking && !thinkingDisabled) {
    for (const text of split(script.thinking, script.chunkSize)) yield { content: '', thinking: text };
  }
  if (script.tokens !== undefined) {
    const text = script.tokenText ?? 'token ';
    for (let index = 0; index < script.tokens; index++) yield { content: text };
  } else {
    const content = script.content ?? (script.toolCalls ? '' : DEFAULT_TEXT);
    for (const text of split(content, script.chunkSize)) yield { content: text };
  }
  if (script.toolCalls?.length) yield { content: '', tool_calls: script.toolCalls };
}

function split(text: string, chunkSize: number | undefined): string[] {
  if (chunkSize && chunkSize > 0) {
    const characters = Array.from(text); // code points, so emoji are never cut in half
    const pieces: string[] = [];
    for (let index = 0; index < characters.length; index += chunkSize) {
      pieces.push(characters.slice(index, index + chunkSize).join(''));
    }
    return pieces;
  }
  // A word with its trailing whitespace; the second branch keeps leading whitespace, so the pieces rejoin exactly.
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/** Waits before chunk number `index`: on a fixed schedule, a fixed delay, or just a turn of the event loop. */
function pacer(script: ScriptedReply): (index: number, signal: AbortSignal) => Promise<void> {
  const startedAt = performance.now();
  return async (index, signal) => {
    let waitMs = 0;
    if (script.tokensPerSecond && script.tokensPerSecond > 0) {
      // Scheduled against the start, so timer overshoot does not accumulate over a long stream.
      waitMs = startedAt + (index * 1000) / script.tokensPerSecond - performance.now();
    } else if (script.chunkDelayMs && index > 0) {
      waitMs = script.chunkDelayMs;
    }
    try {
      // Even at full speed, yield so one fast stream cannot starve the other sockets.
      if (waitMs >= 1) await sleep(waitMs, undefined, { signal });
      else await yieldToEventLoop(undefined, { signal });
    } catch {
      // Aborted: the caller checks the signal.
    }
  };
}

/** Writes one NDJSON line and waits until it is handed to the OS, which gives natural backpressure. */
function writeLine(response: ServerResponse, value: unknown, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done);
    response.write(`${JSON.stringify(value)}\n`, done);
  });
}

/** Waits until everything written so far has left the socket's buffer. */
async function flushed(response: ServerResponse, signal: AbortSignal): Promise<void> {
  await yieldToEventLoop(); // node:http corks chunked writes until the next tick
  const socket = response.socket;
  if (socket && socket.writableLength > 0 && !signal.aborted) {
    await once(socket, 'drain', { signal }).catch(() => undefined);
  }
}

function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of request as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > MAX_BODY_BYTES) return undefined;
    parts.push(part);
  }
  const text = Buffer.concat(parts).toString('utf8');
  if (!text.trim()) return {};
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function sendJson(response: ServerResponse, status: number, value: unknown): void {
  if (response.headersSent || response.destroyed) return;
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(value));
}

function fail(response: ServerResponse, error: unknown): void {
  if (!response.headersSent) sendJson(response, 500, { error: errorMessage(error) });
  else response.destroy();
}

const MODIFIED_AT = '2026-01-01T00:00:00Z';

function describeModel(model: StandinModel) {
  const name = canonicalName(model.name);
  const family = model.family ?? familyOf(name);
  return {
    name,
    model: name,
    modified_at: MODIFIED_AT,
    size: 2_019_393_189,
    digest: createHash('sha256').update(name).digest('hex'),
    details: {
      parent_model: '',
      format: 'gguf',
      family,
      families: [family],
      parameter_size: '3.2B',
      quantization_level: 'Q4_K_M',
    },
  };
}

/** Ollama treats a name without a tag as `:latest`; the tag is after the last '/', since a registry host may carry a port. */
function canonicalName(name: string): string {
  const lastSegment = name.slice(name.lastIndexOf('/') + 1);
  return lastSegment.includes(':') ? name : `${name}:latest`;
}

function familyOf(name: string): string {
  const base = name.slice(name.lastIndexOf('/') + 1).split(':')[0] ?? name;
  return /^[a-z]+/i.exec(base)?.[0]?.toLowerCase() ?? base;
}

function capabilitiesOf(model: StandinModel): string[] {
  return model.capabilities ?? ['completion'];
}

/** `think` is a boolean, or a level such as "high" for gpt-oss. */
function thinkRequested(think: unknown): boolean {
  return think === true || (typeof think === 'string' && think !== '');
}

function recordMessage(value: unknown): RecordedMessage {
  const message = isRecord(value) ? value : {};
  return {
    ...message,
    role: typeof message.role === 'string' ? message.role : '',
    content: typeof message.content === 'string' ? message.content : '',
  };
}

function wordCount(text: string): number {
  return text.match(/\S+/g)?.length ?? 0;
}

function now(): string {
  return new Date().toISOString();
}


function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// ---- CLI ----

interface ScriptFile {
  models?: StandinModel[];
  defaultReply?: ScriptedReply;
}

function replyFromEnvironment(): ScriptedReply {
  const reply: ScriptedReply = {};
  const tokens = process.env.OLLAMA_STANDIN_REPLY_TOKENS;
  const tokensPerSecond = process.env.OLLAMA_STANDIN_TOKENS_PER_SECOND;
  if (tokens) reply.tokens = Number(tokens);
  if (tokensPerSecond) reply.tokensPerSecond = Number(tokensPerSecond);
  return reply;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '11500' },
      host: { type: 'string', default: '127.0.0.1' },
      script: { type: 'string' },
    },
  });
  const script: ScriptFile = values.script ? (JSON.parse(await readFile(values.script, 'utf8')) as ScriptFile) : {};
  const standin = await startOllamaStandin({
    port: Number(values.port),
    host: values.host,
    models: script.models,
    defaultReply: { ...script.defaultReply, ...replyFromEnvironment() },
  });
  console.log(standin.url);
  const stop = (): void => {
    void standin.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
