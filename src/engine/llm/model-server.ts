import type { ChatRequest, ReplyChunk, ReplyStream } from './chat-model.js';
import { isNetworkError, LlmError } from './llm-error.js';
import { emptyStream, ReplyControl } from './reply-control.js';

/*
 * What every model-server client shares, whatever it speaks: a reply's time limits (the wait
 * for the first chunk, then the silence between chunks), Stop, a reachability check with a time
 * limit, and the one LlmError classification of what went wrong. A client (ollama-chat-model.ts,
 * openai-chat-model.ts) keeps only its wire format: how to open a stream and read its parts, and
 * which of its library's errors mean what.
 */

export interface ModelServerTimeouts {
  /** How long to wait for the first chunk of a reply (a model may need to load). */
  firstChunkTimeoutMs?: number;
  /** How long a reply may stay silent between chunks. */
  chunkTimeoutMs?: number;
  /** How long a model list, a reachability check or a health check of one server may take. */
  listTimeoutMs?: number;
}

export const defaultTimeouts: Required<ModelServerTimeouts> = { firstChunkTimeoutMs: 300_000, chunkTimeoutMs: 120_000, listTimeoutMs: 5000 };

export interface FailureContext {
  /** The model asked for ('' when none was: a model list). */
  model: string;
  /** The reply had begun: a lost connection then cut it off, rather than never reaching the server. */
  streaming: boolean;
}

/** What only one kind of server can tell about a failure; the rest is classified the same for all. */
export interface WireFailures {
  /** The server as the person knows it ("Ollama", "llama.cpp", "GPU box"). */
  server: string;
  /** Where it is asked, named when it does not answer. */
  address: string;
  /** What to check when it does not answer: the command to run, the variable to fix. */
  unreachableAdvice: string;
  /** Failures the wire format tells apart (an HTTP status, the server's own words); undefined leaves the error to the common rules. */
  classify(error: unknown, context: FailureContext): LlmError | undefined;
  /** The library's own way of saying the connection failed, besides fetch's. */
  isConnectionFailure?(error: unknown): boolean;
  /** The server's words for an error (default: the error's message). */
  detail?(error: unknown): string;
}

/** One reply on the wire: open the request, then turn the parts the library yields into chunks. */
export interface WireReply<Part> {
  /** Sends the request with this signal (Stop and the time limits abort it); resolves once the server answers. */
  open(signal: AbortSignal): Promise<AsyncIterable<Part>>;
  /** The reply's chunks from its parts; throws when the wire shows the reply was cut short. */
  read(parts: AsyncIterable<Part>): AsyncIterable<ReplyChunk>;
}

/** "300 ms", "5 s": time limits as the messages say them. */
export const duration = (milliseconds: number): string => (milliseconds < 1000 ? `${milliseconds} ms` : `${Math.round(milliseconds / 1000)} s`);

/** The promise, or `error` once `milliseconds` have passed (a library that ignores its signal cannot hang a caller). */
export function withinTimeLimit<T>(promise: Promise<T>, milliseconds: number, error: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(error()), milliseconds);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A fetch whose every request also ends when `signal` does. */
export function fetchWithSignal(baseFetch: typeof fetch, signal: AbortSignal): typeof fetch {
  return (input, init) => baseFetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal });
}

export type ModelServer = ReturnType<typeof createModelServer>;

export function createModelServer(failures: WireFailures, timeouts: ModelServerTimeouts = {}) {
  const { firstChunkTimeoutMs, chunkTimeoutMs, listTimeoutMs } = { ...defaultTimeouts, ...stripUndefined(timeouts) };
  const { server, address } = failures;

  /** Whatever the library or fetch threw, as the one LlmError a person is shown. */
  function fail(error: unknown, context: FailureContext): LlmError {
    if (error instanceof LlmError) return error;
    const specific = failures.classify(error, context);
    if (specific) return specific;
    if (failures.isConnectionFailure?.(error) || isNetworkError(error)) {
      return context.streaming
        ? new LlmError('connection-dropped', `The connection to ${server} at ${address} dropped in the middle of the reply. The text so far is kept; send again to retry.`, server)
        : new LlmError('unreachable', `${server} is not answering at ${address}. ${failures.unreachableAdvice}`, server);
    }
    const detail = failures.detail?.(error) ?? (error instanceof Error ? error.message : String(error));
    return new LlmError('stream-error', `${server} reported an error while writing the reply: ${detail}`, server);
  }

  /** Whether the server answers `probe` within the list time limit; the probe's requests end with the signal it is given. */
  async function answers(probe: (signal: AbortSignal) => Promise<unknown>): Promise<boolean> {
    const controller = new AbortController();
    try {
      await withinTimeLimit(probe(controller.signal), listTimeoutMs, () => new Error('no answer in time'));
      return true;
    } catch {
      return false;
    } finally {
      controller.abort();
    }
  }

  /** A request that fails as an LlmError about this server. */
  async function ask<T>(request: () => Promise<T>, model = ''): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw fail(error, { model, streaming: false });
    }
  }

  /**
   * One reply: Stop (the request's signal or the stream's abort()) and the time limits abort the
   * same request; a stopped reply ends quietly with the text so far, a timed-out one throws its
   * timeout, anything else throws the classified failure.
   */
  async function stream<Part>(request: ChatRequest, wire: WireReply<Part>): Promise<ReplyStream> {
    if (request.signal?.aborted) return emptyStream();
    const control = new ReplyControl(request.signal, {
      server,
      firstChunkMs: firstChunkTimeoutMs,
      firstChunkMessage: `${server} did not start answering within ${duration(firstChunkTimeoutMs)}.`,
      chunkMs: chunkTimeoutMs,
      chunkMessage: `${server} stopped sending for ${duration(chunkTimeoutMs)}, so the reply was ended.`,
    });
    let parts: AsyncIterable<Part>;
    try {
      parts = await wire.open(control.signal);
    } catch (error) {
      control.end();
      if (control.timedOut) throw control.timedOut;
      if (control.stopped) return emptyStream();
      throw fail(error, { model: request.model, streaming: false });
    }

    // Every part counts as a sign of life, even one with no text (a usage chunk, a role).
    async function* watched(): AsyncIterable<Part> {
      for await (const part of parts) {
        control.chunkArrived();
        yield part;
      }
      // Some libraries (openai) end a stream quietly when it is aborted: the wire must not read that as its end.
      if (control.signal.aborted) throw control.timedOut ?? new Error('stopped');
    }

    return {
      abort: control.stop,
      async *[Symbol.asyncIterator]() {
        try {
          yield* wire.read(watched());
        } catch (error) {
          if (control.timedOut) throw control.timedOut;
          if (control.stopped) return;
          throw fail(error, { model: request.model, streaming: true });
        } finally {
          control.end();
        }
      },
    };
  }

  return { server, timeouts: { firstChunkTimeoutMs, chunkTimeoutMs, listTimeoutMs }, fail, answers, ask, stream };
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as Partial<T>;
}
