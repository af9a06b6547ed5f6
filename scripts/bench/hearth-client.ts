/**
 * The benchmark's clients: a logged-in user talking to Hearth over its WebSocket, and an ollama-js
 * client reading the same Ollama directly. Both note when each token arrives, on one clock.
 */
import http from 'node:http';
import zlib from 'node:zlib';
import { Ollama, type AbortableAsyncIterator, type ChatResponse } from 'ollama';
import WebSocket from 'ws';
import { logIn } from '../../tests/support/server-process.js';

export interface HttpResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Body bytes as they came over the wire (compressed when the server compressed). */
  wireBytes: number;
  /** Status line and headers, roughly as sent. */
  headerBytes: number;
  body: Buffer;
  ms: number;
}

const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 8 });

/** A plain GET that neither follows redirects nor decompresses, so sizes are what a browser receives. */
export function httpGet(url: string, headers: Record<string, string> = {}, timeoutMs = 30_000): Promise<HttpResult> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers, agent: keepAlive, timeout: timeoutMs }, (response) => {
      const parts: Buffer[] = [];
      response.on('data', (part: Buffer) => parts.push(part));
      response.on('end', () => {
        const body = Buffer.concat(parts);
        const headerBytes =
          `HTTP/1.1 ${response.statusCode} ${response.statusMessage}\r\n`.length +
          response.rawHeaders.reduce((total, value, index) => total + value.length + (index % 2 === 0 ? 2 : 2), 0) +
          2;
        resolve({ status: response.statusCode ?? 0, headers: response.headers, wireBytes: body.length, headerBytes, body, ms: performance.now() - started });
      });
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error(`GET ${url} timed out`)));
    request.on('error', reject);
  });
}

/** The body as the page sees it, whatever Content-Encoding it came in. */
export function decodeBody(response: HttpResult): Buffer {
  const encoding = String(response.headers['content-encoding'] ?? 'identity');
  if (encoding === 'br') return zlib.brotliDecompressSync(response.body);
  if (encoding === 'gzip') return zlib.gunzipSync(response.body);
  if (encoding === 'deflate') return zlib.inflateSync(response.body);
  if (encoding === 'zstd') throw new Error('zstd bodies are not decoded here');
  return response.body;
}

export function closeHttpClients(): void {
  keepAlive.destroy();
}

/** Logs in through the real form with the tests' helper; returns the Cookie header. */
export async function login(baseUrl: string, password: string): Promise<string> {
  const { status, cookies } = await logIn(baseUrl, password);
  if (status !== 303) throw new Error(`login failed: ${status}`);
  if (!cookies.includes('hearth_session=')) throw new Error('login answered 303 but set no hearth_session cookie');
  return cookies;
}

/** What one stream delivered: when it was asked for, and when each token arrived (performance.now()). */
export interface StreamRecord {
  marker: string;
  /** When the request was made: the WebSocket "send", or the ollama-js chat() call. */
  requestedAt: number;
  arrivals: number[];
  /** Characters received (escaped text undone). */
  characters: number;
  finishedAt: number;
  /** WebSocket frames (or NDJSON parts) that carried text. */
  textFrames: number;
  error?: string;
}

const htmlEntities: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&#x27;': "'" };
const unescapeText = (text: string) => text.replace(/&(?:amp|lt|gt|quot|#39|#x27);/g, (entity) => htmlEntities[entity]!);

export interface RelayedChatOptions {
  baseUrl: string;
  cookie: string;
  model: string;
  marker: string;
  /** The message typed; it must contain the marker so the stand-in can report the stream start. */
  message: string;
  /** Characters per token; arrivals are recorded per token (0 = per text frame). */
  tokenChars: number;
  timeoutMs: number;
  /** Resolves once the socket is open, before sending (lets a caller start streams together). */
  beforeSend?: () => Promise<void>;
}

/**
 * Opens /ws as the logged-in browser does (Cookie + Origin), sends one message in a new
 * conversation and records the streamed text until `reply-finished`.
 */
export async function relayedChat(options: RelayedChatOptions): Promise<StreamRecord> {
  const record: StreamRecord = { marker: options.marker, requestedAt: Number.NaN, arrivals: [], characters: 0, finishedAt: Number.NaN, textFrames: 0 };
  const socket = new WebSocket(`${options.baseUrl.replace(/^http/, 'ws')}/ws?conversation=`, {
    headers: { cookie: options.cookie, origin: options.baseUrl },
    perMessageDeflate: false,
  });
  let bodyTarget: string | undefined;
  let settle!: () => void;
  const finished = new Promise<void>((resolve) => (settle = resolve));
  const fail = (message: string) => {
    record.error ??= message;
    settle();
  };
  const timer = setTimeout(() => fail(`no reply-finished within ${options.timeoutMs} ms`), options.timeoutMs);

  socket.on('message', (data: Buffer) => {
    const now = performance.now();
    const payload = data.toString('utf8');
    // Swaps come as HTML (<hx-partial> frames); streamed text and events as JSON data frames.
    if (payload.startsWith('<')) {
      if (payload.includes('class="chat-error"') || payload.includes('chat-message-failed')) {
        return fail(`the server showed an error: ${payload.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 200)}`);
      }
      return;
    }
    let frame: { target?: string; swap?: string; content?: string; text?: string; event?: string; conversationId?: number };
    try {
      frame = JSON.parse(payload);
    } catch {
      return fail(`a frame that is neither HTML nor JSON: ${payload.slice(0, 100)}`);
    }
    if (frame.event === 'reply-finished') {
      record.finishedAt = now;
      return settle();
    }
    // Streamed text: data frames `{"event":"append","target":"#message-N-tail","text"}`, added by
    // chat.js as text (the reply's thinking goes to `-thinking`).
    if (frame.event === 'append' && typeof frame.text === 'string' && frame.target?.endsWith('-tail')) {
      // The first body the server streams into is the reply's (the user's bubble arrives whole).
      bodyTarget ??= frame.target;
      if (frame.target !== bodyTarget) return;
      countText(frame.text, now);
      return;
    }
    if (frame.content === undefined || frame.target === undefined) return;
    if (frame.content.includes('class="chat-error"') || frame.content.includes('chat-message-failed')) {
      return fail(`the server showed an error: ${frame.content.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 200)}`);
    }
    // Older servers swapped escaped text into the body as HTML.
    if (frame.swap !== 'beforeend' || !frame.target.endsWith('-body')) return;
    bodyTarget ??= frame.target;
    if (frame.target !== bodyTarget) return;
    countText(unescapeText(frame.content), now);
  });
  function countText(text: string, now: number): void {
    const before = options.tokenChars > 0 ? Math.floor(record.characters / options.tokenChars) : record.textFrames;
    record.characters += text.length;
    record.textFrames += 1;
    const after = options.tokenChars > 0 ? Math.floor(record.characters / options.tokenChars) : record.textFrames;
    for (let index = before; index < after; index++) record.arrivals.push(now);
  }
  socket.on('error', (error) => fail(`socket error: ${error.message}`));
  socket.on('close', (code) => fail(`socket closed (${code}) before the reply finished`));
  socket.on('unexpected-response', (_request, response) => fail(`upgrade refused: ${response.statusCode}`));

  await new Promise<void>((resolve) => {
    socket.once('open', () => resolve());
    void finished.then(() => resolve());
  });
  if (!record.error) {
    await options.beforeSend?.();
    record.requestedAt = performance.now();
    socket.send(JSON.stringify({ type: 'send', message: options.message, conversationId: '', model: options.model }));
  }
  await finished;
  clearTimeout(timer);
  socket.removeAllListeners('close');
  socket.on('error', () => undefined);
  socket.terminate();
  return record;
}

export interface DirectChatOptions {
  host: string;
  model: string;
  marker: string;
  message: string;
  tokenChars: number;
  timeoutMs: number;
}

/** The baseline: ollama-js reading the same Ollama directly, as Hearth's server does. */
export async function directChat(options: DirectChatOptions): Promise<StreamRecord> {
  const record: StreamRecord = { marker: options.marker, requestedAt: Number.NaN, arrivals: [], characters: 0, finishedAt: Number.NaN, textFrames: 0 };
  const client = new Ollama({ host: options.host });
  let stream: AbortableAsyncIterator<ChatResponse> | undefined;
  const timer = setTimeout(() => {
    record.error ??= `not finished within ${options.timeoutMs} ms`;
    stream?.abort();
  }, options.timeoutMs);
  try {
    record.requestedAt = performance.now();
    stream = await client.chat({ model: options.model, messages: [{ role: 'user', content: options.message }], stream: true });
    for await (const part of stream) {
      const now = performance.now();
      const text = part.message?.content ?? '';
      if (text) {
        const before = options.tokenChars > 0 ? Math.floor(record.characters / options.tokenChars) : record.textFrames;
        record.characters += text.length;
        record.textFrames += 1;
        const after = options.tokenChars > 0 ? Math.floor(record.characters / options.tokenChars) : record.textFrames;
        for (let index = before; index < after; index++) record.arrivals.push(now);
      }
      if (part.done) {
        record.finishedAt = now;
        break;
      }
    }
  } catch (error) {
    record.error ??= error instanceof Error ? error.message : String(error);
  } finally {
    clearTimeout(timer);
  }
  return record;
}
