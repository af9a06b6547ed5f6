import { Worker } from 'node:worker_threads';
import type { ExtractedPage } from './page-extract.js';

export interface PageExtractor {
  /** The page's title and main text; rejects when the page cannot be read in time. */
  extract(html: string, address: string): Promise<ExtractedPage>;
  close(): Promise<void>;
}

interface Pending {
  resolve(page: ExtractedPage): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/*
 * One worker thread, started on first use (linkedom, Readability and Turndown load there, not in
 * the server), extracts pages one after another. One that takes longer than the limit ends the
 * worker, the only way to stop it; the next page starts a fresh one. An idle worker is ended too,
 * so a Hearth that read one page does not keep the libraries in memory.
 */
export function createPageExtractor(options: { timeoutMs?: number; idleMs?: number; startTimeoutMs?: number } = {}): PageExtractor {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const idleMs = options.idleMs ?? 60_000;
  const startTimeoutMs = options.startTimeoutMs ?? 20_000;
  const source = new URL(import.meta.url.endsWith('.ts') ? './page-worker.ts' : './page-worker.js', import.meta.url);
  let worker: { thread: Worker; ready: Promise<boolean> } | undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  let nextId = 1;
  const pending = new Map<number, Pending>();

  function stopWorker(reason: string): void {
    const stopping = worker;
    worker = undefined;
    void stopping?.thread.terminate();
    for (const [id, entry] of pending) {
      pending.delete(id);
      clearTimeout(entry.timer);
      entry.reject(new Error(reason));
    }
  }

  function startWorker(): { thread: Worker; ready: Promise<boolean> } {
    // Under tsx (tests, npm run dev) the worker registers tsx's loader first, as the Markdown worker does.
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
      if (worker === started) stopWorker('The page reader stopped.');
    };
    thread.on('message', (reply: { ready?: true; id?: number; page?: ExtractedPage; error?: string }) => {
      if (reply.ready) {
        clearTimeout(startTimer);
        markReady(true);
        return;
      }
      const entry = reply.id === undefined ? undefined : pending.get(reply.id);
      if (!entry) return;
      pending.delete(reply.id!);
      clearTimeout(entry.timer);
      if (reply.page) entry.resolve(reply.page);
      else entry.reject(new Error(reply.error ?? 'The page could not be read.'));
    });
    thread.on('error', gone);
    thread.on('exit', gone);
    return started;
  }

  return {
    async extract(html, address) {
      clearTimeout(idleTimer);
      const current = (worker ??= startWorker());
      if (!(await current.ready) || worker !== current) throw new Error('The page reader could not start.');
      try {
        return await new Promise<ExtractedPage>((resolve, reject) => {
          const id = nextId++;
          const timer = setTimeout(() => {
            if (worker === current) stopWorker(`The page took longer than ${timeoutMs / 1000} s to read.`);
          }, timeoutMs);
          pending.set(id, { resolve, reject, timer });
          current.thread.postMessage({ id, html, address });
        });
      } finally {
        if (pending.size === 0) idleTimer = setTimeout(() => stopWorker('idle'), idleMs).unref();
      }
    },
    async close() {
      clearTimeout(idleTimer);
      const stopping = worker;
      stopWorker('Hearth is stopping.');
      await stopping?.thread.terminate();
    },
  };
}
