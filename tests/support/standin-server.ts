import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { titleInstructionsStart } from '../../src/replies/chat-titles.js';

/**
 * Whether a chat request is Hearth naming a chat (src/replies/chat-titles.ts) rather than a reply.
 * The stand-ins answer those apart: they take no scripted reply and are not in `requests`.
 */
export function isTitleRequest(messages: ReadonlyArray<{ role: string; content: unknown }>): boolean {
  const first = messages[0];
  return first?.role === 'system' && typeof first.content === 'string' && first.content.startsWith(titleInstructionsStart);
}

/** The stand-in's own title for a chat: the person's message, its first six words, as a small model might answer. */
export function echoedTitle(messages: ReadonlyArray<{ role: string; content: unknown }>): string {
  const question = messages.find((message) => message.role === 'user');
  const text = typeof question?.content === 'string' ? question.content : 'Chat';
  return text.replace(/\s+/g, ' ').trim().split(' ').slice(0, 6).join(' ');
}

/** How a host goes into a URL: an IPv6 address in brackets. */
export const urlHost = (host: string): string => (host.includes(':') ? `[${host}]` : host);

/**
 * What the model-server stand-ins (Ollama's wire format, OpenAI's) share: an HTTP server whose open
 * sockets close with it (hanging replies included), scripted replies, the requests it saw, and a
 * way to wait for them.
 */
export abstract class StandinServer<Reply, Handler, Recorded> {
  requests: Recorded[] = [];
  /** Requests to name a chat, apart from `requests` (see isTitleRequest). */
  titleRequests: Recorded[] = [];
  /** What a title request is answered with; null: the person's first six words (echoedTitle). */
  titleReply: Reply | null = null;
  protected readonly queue: Reply[] = [];
  protected handler: Handler | null = null;
  protected active = 0;
  protected readonly server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #waiters = new Set<() => void>();
  #closing: Promise<void> | null = null;

  constructor(onError: (response: ServerResponse, error: unknown) => void) {
    this.server = createServer((request, response) => {
      this.route(request, response).catch((error: unknown) => onError(response, error));
    });
    this.server.on('connection', (socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
  }

  protected abstract route(request: IncomingMessage, response: ServerResponse): Promise<void>;

  /** Listens and returns the port. */
  protected async listenOn(port: number, host: string): Promise<number> {
    this.server.listen(port, host);
    await once(this.server, 'listening');
    return (this.server.address() as AddressInfo).port;
  }

  enqueue(...replies: Reply[]): void {
    this.queue.push(...replies);
  }

  setHandler(handler: Handler | null): void {
    this.handler = handler;
  }

  activeStreams(): number {
    return this.active;
  }

  /** The stand-in is shutting down: connections it cuts were not aborted by the client. */
  protected get closing(): boolean {
    return this.#closing !== null;
  }

  /** Resolves with what `ready` returns once it returns something; checked again at each wake(). */
  protected waitUntil<T>(ready: () => T | undefined, timeoutMs: number, describe: () => string): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        const value = ready();
        if (value === undefined) return;
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve(value);
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new Error(describe()));
      }, timeoutMs);
      this.#waiters.add(check);
      check();
    });
  }

  /** Something a waiter may be waiting for happened (a request came, a reply ended). */
  protected wake(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }

  waitForTitleRequests(count: number, timeoutMs = 5000): Promise<void> {
    return this.#waitForCount(() => this.titleRequests.length, count, timeoutMs, 'title requests');
  }

  waitForRequests(count: number, timeoutMs = 2000): Promise<void> {
    return this.#waitForCount(() => this.requests.length, count, timeoutMs, 'chat requests');
  }

  #waitForCount(seen: () => number, count: number, timeoutMs: number, what: string): Promise<void> {
    return this.waitUntil(
      () => (seen() >= count ? true : undefined),
      timeoutMs,
      () => `expected ${count} ${what} within ${timeoutMs} ms, got ${seen()}`,
    ).then(() => undefined);
  }

  /** Stops the server and destroys open sockets: hanging replies end too (their responses emit 'close'). */
  close(): Promise<void> {
    this.#closing ??= new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      for (const socket of this.#sockets) socket.destroy();
    });
    return this.#closing;
  }
}
