import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, type TestContext } from 'node:test';
import bcrypt from 'bcrypt';
import WebSocket from 'ws';
import { buildApp, type AppOptions, type HearthApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config/config.js';
import { createOllamaChatModel } from '../../src/engine/llm/ollama-chat-model.js';
import { createMarkdownRenderer, type MarkdownRenderer } from '../../src/engine/markdown/markdown-renderer.js';
import { createServices, type ServiceOptions, type Services } from '../../src/services.js';
import { createConversationStore, type ConversationStore } from '../../src/storage/conversation-store.js';
import { openDatabase, type SqliteDatabase } from '../../src/storage/database.js';
import { createToolCallStore, type ToolCallStore } from '../../src/storage/tool-call-store.js';
import { readFrame } from './socket-frames.js';
import { startOllamaStandin, type OllamaStandin, type StandinOptions } from './ollama-standin.js';

export const testPassword = 'correct horse battery staple';
// Cost 4 keeps tests fast; the server itself hashes with cost 12.
const testPasswordHash = bcrypt.hashSync(testPassword, 4);
const testSecretKey = 'a-test-secret-that-is-long-enough-0123456789';
// One Markdown worker for every app a test file builds: a worker under tsx costs about a second of
// CPU to start, and each app would start its own. Closed when the file's tests end: under tsx even
// an unref'd worker keeps the process (and so `node --test`) waiting. Outside `node --test` (the
// benchmarks build apps with this file too) each app keeps its own worker, closed with it.
// The hook is registered here, while the test file loads this module, so it belongs to the file:
// registered from inside a test it would close the worker after that test, and every later test's
// replies would come back as plain text.
let sharedMarkdown: MarkdownRenderer | undefined;
if (process.env.NODE_TEST_CONTEXT) after(() => sharedMarkdown?.close());
function testMarkdown(): MarkdownRenderer | undefined {
  if (!process.env.NODE_TEST_CONTEXT) return undefined;
  return (sharedMarkdown ??= createMarkdownRenderer());
}

/** Everything server.ts hands over: the services' parts and the listener's limits. */
export type HearthDependencies = ServiceOptions & AppOptions;

/** The app as tests use it: Fastify, with the services they look into at hand. */
export type TestHearth = HearthApp & Pick<Services, 'hub' | 'registry' | 'memory' | 'mcp'> & { services: Services };

// An empty database with every migration applied, made once per process: each test app starts
// from a copy of its bytes instead of running all the migrations again (a fifth of a test app's
// start-up). The folder it is made in is gone before the first test app is built.
let migratedBytes: Buffer | undefined;
function openMigratedDatabase(dataDir: string): SqliteDatabase {
  if (!migratedBytes) {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-migrated-'));
    try {
      openDatabase(folder).close();
      migratedBytes = fs.readFileSync(path.join(folder, 'hearth.sqlite'));
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  }
  fs.writeFileSync(path.join(dataDir, 'hearth.sqlite'), migratedBytes, { mode: 0o600 });
  return openDatabase(dataDir);
}

/** The services, then the app on them, as server.ts builds them; closing the app closes both. */
export async function buildHearth(dependencies: HearthDependencies): Promise<TestHearth> {
  const services = await createServices({ markdown: testMarkdown(), ...dependencies });
  let app: HearthApp;
  try {
    app = await buildApp(services, dependencies);
  } catch (error) {
    await services.close();
    throw error;
  }
  return Object.assign(app, { services, hub: services.hub, registry: services.registry, memory: services.memory, mcp: services.mcp });
}

export interface TestApp {
  app: TestHearth;
  standin: OllamaStandin;
  database: SqliteDatabase;
  config: Config;
  dataDir: string;
  /** Logs in through the real form and returns the Cookie header for later requests. */
  login(): Promise<string>;
  /** Starts listening on a random port (for WebSocket clients and browsers); returns the base URL. */
  listen(): Promise<string>;
}

export interface TestAppOptions {
  environment?: Record<string, string>;
  standin?: StandinOptions;
  dependencies?: Partial<HearthDependencies>;
  chatModel?: { firstChunkTimeoutMs?: number; chunkTimeoutMs?: number };
}

export function cookieHeader(setCookie: string | string[] | undefined, previous = ''): string {
  const jar = new Map(previous.split('; ').filter(Boolean).map((pair) => pair.split('=', 2) as [string, string]));
  for (const line of [setCookie ?? []].flat()) {
    const [pair] = line.split(';');
    const index = pair!.indexOf('=');
    jar.set(pair!.slice(0, index), pair!.slice(index + 1));
  }
  return [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
}

export function csrfTokenFrom(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html) ?? /"x-csrf-token": "([^"]+)"/.exec(html);
  if (!match) throw new Error('no CSRF token in page');
  return match[1]!;
}

export async function buildTestApp(t: TestContext, options: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-test-'));
  // Registered before anything can fail, so the folder goes even when building the app throws.
  const built: { database?: SqliteDatabase; app?: TestHearth } = {};
  const standin = await startOllamaStandin(options.standin);
  t.after(async () => {
    await built.app?.close();
    await standin.close();
    built.database?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const config = loadConfig({
    OLLAMA_HOST: standin.url,
    DATA_DIR: dataDir,
    MEMORY_FILE: path.join(dataDir, 'memory.md'),
    TOKENS_DIR: path.join(dataDir, 'tokens'),
    // Never the developer's own ./mcp.json: tests that want MCP servers write their own.
    MCP_CONFIG: path.join(dataDir, 'mcp.json'),
    // The stand-in's models report `tools`: most tests read the [TOOL:] history; native-calls.test.ts sets its own.
    TOOL_CALLS: 'inline',
    ...options.environment,
  });
  const database = (built.database = openMigratedDatabase(dataDir));
  const app = (built.app = await buildHearth({
    config,
    database,
    chatModel: createOllamaChatModel({ host: standin.url, ...options.chatModel }),
    credentials: { passwordHash: testPasswordHash, secretKey: testSecretKey },
    ...options.dependencies,
  }));

  let baseUrl: string | undefined;
  return {
    app,
    standin,
    database,
    config,
    dataDir,
    async login() {
      const page = await app.inject({ method: 'GET', url: '/login' });
      let cookies = cookieHeader(page.headers['set-cookie']);
      const response = await app.inject({
        method: 'POST',
        url: '/login',
        headers: { cookie: cookies },
        payload: { password: testPassword, _csrf: csrfTokenFrom(page.body) },
      });
      if (response.statusCode !== 303) throw new Error(`login failed: ${response.statusCode} ${response.body}`);
      cookies = cookieHeader(response.headers['set-cookie'], cookies);
      return cookies;
    },
    async listen() {
      if (!baseUrl) {
        await app.listen({ host: '127.0.0.1', port: 0 });
        const address = app.server.address() as import('node:net').AddressInfo;
        baseUrl = `http://127.0.0.1:${address.port}`;
      }
      return baseUrl;
    },
  };
}

/** A new app on the data of `first` (closed by then), as Hearth is after a restart. */
export async function restartTestApp(t: TestContext, first: TestApp, dependencies: Partial<HearthDependencies> = {}): Promise<TestHearth> {
  const app = await buildHearth({
    config: first.config,
    database: first.database,
    chatModel: createOllamaChatModel({ host: first.standin.url }),
    credentials: { passwordHash: testPasswordHash, secretKey: testSecretKey },
    ...dependencies,
  });
  t.after(() => app.close());
  return app;
}

/**
 * A WebSocket client that records every message the server sends: a data frame as its JSON, an
 * HTML frame as one `{ target, swap, content }` per `<hx-partial>` in it, as htmx swaps them.
 */
export interface ChatSocket {
  socket: WebSocket;
  messages: Array<Record<string, unknown>>;
  send(command: Record<string, unknown>): void;
  /** Resolves with the first recorded message (from the start) that matches. */
  waitFor(predicate: (message: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function openChatSocket(baseUrl: string, cookies: string, conversationId = '', origin = baseUrl): Promise<ChatSocket> {
  const socket = new WebSocket(`${baseUrl.replace('http', 'ws')}/ws?conversation=${conversationId}`, {
    headers: { cookie: cookies, origin },
  });
  const messages: Array<Record<string, unknown>> = [];
  const waiters = new Set<() => void>();
  socket.on('message', (data) => {
    messages.push(...readFrame(String(data)));
    for (const wake of waiters) wake();
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
    socket.once('unexpected-response', (_request, response) => reject(new Error(`upgrade refused: ${response.statusCode}`)));
  });
  return {
    socket,
    messages,
    send: (command) => socket.send(JSON.stringify(command)),
    waitFor(predicate, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = messages.find(predicate);
          if (found) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(found);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out; messages so far: ${JSON.stringify(messages).slice(0, 2000)}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async close() {
      if (socket.readyState === WebSocket.CLOSED) return;
      const closed = new Promise((resolve) => socket.once('close', resolve));
      socket.close();
      await closed;
    },
  };
}

export interface ChatHarness extends TestApp {
  cookies: string;
  baseUrl: string;
  /** A logged-in socket on a new chat, closed when the test ends. */
  socket: ChatSocket;
  store: ConversationStore;
  toolCalls: ToolCallStore;
  /** Resolves when the current turn (all its tool rounds) has ended. */
  turnFinished(timeoutMs?: number): Promise<Record<string, unknown>>;
}

/** The usual start of a chat test: an app on a real port, logged in, with one chat socket open. */
export async function startChatHarness(t: TestContext, options: TestAppOptions = {}): Promise<ChatHarness> {
  const harness = await buildTestApp(t, options);
  const cookies = await harness.login();
  const baseUrl = await harness.listen();
  const socket = await openChatSocket(baseUrl, cookies);
  t.after(() => socket.close());
  return {
    ...harness,
    cookies,
    baseUrl,
    socket,
    store: createConversationStore(harness.database),
    toolCalls: createToolCallStore(harness.database),
    turnFinished: (timeoutMs = 30_000) => socket.waitFor((message) => message.event === 'reply-finished', timeoutMs),
  };
}

/** One login attempt through the form, claiming `address` when given (an app that trusts 127.0.0.1 as its proxy believes it); the answer's status. */
export async function loginAttempt(app: TestHearth, password: string, address?: string): Promise<number> {
  const headers: Record<string, string> = address ? { 'x-forwarded-for': address } : {};
  const page = await app.inject({ url: '/login', headers });
  const response = await app.inject({
    method: 'POST',
    url: '/login',
    headers: { ...headers, cookie: cookieHeader(page.headers['set-cookie']) },
    payload: { password, _csrf: csrfTokenFrom(page.body) },
  });
  return response.statusCode;
}
