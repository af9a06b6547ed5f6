import { Worker } from 'node:worker_threads';

/** Why a request got no reply, in the words of the one asking. */
export interface WorkerFailures {
  /** The worker did not say it was ready in time, or ended while loading. */
  start: string;
  /** The worker ended (it threw, ran out of memory or was ended) while holding the request. */
  stopped: string;
  /** The request took longer than the time limit; the worker was ended. */
  slow: string;
}

export interface WorkerThread<Request extends object, Reply> {
  /**
   * The worker's reply to `request` (it is sent with an `id` the reply carries back). The worker
   * is started first when none runs: the first use, or after one ended. Rejects with one of the
   * failures' words.
   */
  request(request: Request): Promise<Reply>;
  /** Ends the worker if one runs; what it still holds is rejected with `reason`. The next request starts a new one. */
  stop(reason: string): Promise<void>;
  /** Nothing is waiting for the worker. */
  readonly idle: boolean;
}

interface Pending<Reply> {
  resolve(reply: Reply): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

interface Started {
  thread: Worker;
  /** True once the worker said `{ ready: true }`; false when it did not in time or ended first. */
  ready: Promise<boolean>;
}

/*
 * One worker thread for work the server must not do on its main thread (it may take seconds or
 * never finish), started on first use and sent requests one after another. A request that passes
 * the time limit ends the worker, the only way to stop it; so does a crash. Either way the next
 * request starts a fresh one. The worker file posts `{ ready: true }` once it has loaded, so the
 * time limits count work, not start-up, and answers each `{ id, … }` with `{ id, … }`.
 */
export function createWorkerThread<Request extends object, Reply>(
  source: URL,
  options: { timeoutMs: number; startTimeoutMs: number; failures: WorkerFailures },
): WorkerThread<Request, Reply> {
  const { timeoutMs, startTimeoutMs, failures } = options;
  let worker: Started | undefined;
  let nextId = 1;
  const pending = new Map<number, Pending<Reply>>();

  function settle(id: number, outcome: { reply: Reply } | { failure: string }): void {
    const entry = pending.get(id);
    if (!entry) return;
    pending.delete(id);
    clearTimeout(entry.timer);
    if ('reply' in outcome) entry.resolve(outcome.reply);
    else entry.reject(new Error(outcome.failure));
  }

  function stop(reason: string): Promise<void> {
    const stopping = worker;
    worker = undefined;
    const ended = stopping ? stopping.thread.terminate().then(() => undefined) : Promise.resolve();
    for (const id of [...pending.keys()]) settle(id, { failure: reason });
    return ended;
  }

  function start(): Started {
    // Under tsx (tests, npm run dev) the worker is TypeScript too: it registers tsx's loader
    // first (on Node 20 `execArgv: ['--import', 'tsx']` registers it too late for the entry file).
    const thread = source.pathname.endsWith('.ts')
      ? new Worker(`import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(source.href)}); });`, { eval: true })
      : new Worker(source);
    thread.unref();
    let markReady!: (ready: boolean) => void;
    const ready = new Promise<boolean>((resolve) => (markReady = resolve));
    const startTimer = setTimeout(() => markReady(false), startTimeoutMs).unref();
    const started = { thread, ready };
    const gone = () => {
      clearTimeout(startTimer);
      markReady(false);
      if (worker === started) void stop(failures.stopped);
    };
    thread.on('message', (message: { ready?: true; id?: number }) => {
      if (message.ready) {
        clearTimeout(startTimer);
        markReady(true);
      } else if (message.id !== undefined) settle(message.id, { reply: message as Reply });
    });
    thread.on('error', gone);
    thread.on('exit', gone);
    return started;
  }

  return {
    async request(request) {
      const current = (worker ??= start());
      if (!(await current.ready) || worker !== current) {
        // One that never said it was ready is ended, so the next request tries a fresh one.
        if (worker === current) void stop(failures.start);
        throw new Error(failures.start);
      }
      return new Promise<Reply>((resolve, reject) => {
        const id = nextId++;
        const timer = setTimeout(() => {
          // Too slow: whatever it is stuck on, the next request starts over with a new worker.
          settle(id, { failure: failures.slow });
          if (worker === current) void stop(failures.slow);
        }, timeoutMs);
        pending.set(id, { resolve, reject, timer });
        current.thread.postMessage({ ...request, id });
      });
    },
    stop,
    get idle() {
      return pending.size === 0;
    },
  };
}
