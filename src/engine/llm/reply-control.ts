import type { ReplyStream } from './chat-model.js';
import { LlmError } from './llm-error.js';

export interface ReplyLimits {
  /** The model server, as the person knows it: named in a timeout's headline. */
  server: string;
  /** How long to wait for the first chunk (a model may need to load), and the message then. */
  firstChunkMs: number;
  firstChunkMessage: string;
  /** How long a stream may stay silent between chunks, and the message then. */
  chunkMs: number;
  chunkMessage: string;
}

/**
 * One reply's request: Stop (the caller's signal, or the stream's own abort()), the wait for a
 * first chunk and the silence between chunks all abort the same request, and the stream can tell
 * afterwards which one it was. One idle timer, pushed back at each chunk with refresh().
 */
export class ReplyControl {
  readonly #controller = new AbortController();
  readonly #external: AbortSignal | undefined;
  #stopped = false;
  #timedOut: LlmError | undefined;
  readonly #firstTimer: NodeJS.Timeout;
  #idleTimer: NodeJS.Timeout | undefined;

  constructor(
    external: AbortSignal | undefined,
    private readonly limits: ReplyLimits,
  ) {
    this.#external = external;
    external?.addEventListener('abort', this.stop, { once: true });
    this.#firstTimer = this.#timer(limits.firstChunkMs, limits.firstChunkMessage);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The person (or the server) stopped the reply. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** A time limit passed: the error to report. */
  get timedOut(): LlmError | undefined {
    return this.#timedOut;
  }

  readonly stop = (): void => {
    this.#stopped = true;
    this.#controller.abort();
  };

  /** Called at each chunk: the first ends the wait for a start, the others push back the silence limit. */
  chunkArrived(): void {
    if (this.#idleTimer) this.#idleTimer.refresh();
    else {
      clearTimeout(this.#firstTimer);
      this.#idleTimer = this.#timer(this.limits.chunkMs, this.limits.chunkMessage);
    }
  }

  /** The stream is over, however it ended. */
  end(): void {
    clearTimeout(this.#firstTimer);
    clearTimeout(this.#idleTimer);
    this.#external?.removeEventListener('abort', this.stop);
  }

  #timer(milliseconds: number, message: string): NodeJS.Timeout {
    return setTimeout(() => {
      this.#timedOut = new LlmError('timeout', message, this.limits.server);
      this.#controller.abort();
    }, milliseconds);
  }
}

/** A reply stopped before it began: nothing to read. */
export function emptyStream(): ReplyStream {
  return {
    abort() {},
    async *[Symbol.asyncIterator]() {},
  };
}
