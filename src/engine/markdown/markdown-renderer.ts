import { Worker } from 'node:worker_threads';
import { plainTextHtml } from './render-markdown.js';

/** Bumped when rendering changes, so stored HTML from an older renderer is made again. */
export const markdownRendererVersion = 2;

export interface MarkdownRenderer {
  readonly version: number;
  /** Safe HTML for a finished reply: Markdown within the time limit, else the text as plain text. */
  render(markdown: string): Promise<string>;
  close(): Promise<void>;
}

interface Pending {
  resolve(html: string): void;
  text: string;
  timer: NodeJS.Timeout;
}

/*
 * One worker thread, started on first use, renders replies one after another. A render that
 * passes the time limit ends the worker (the only way to stop it) and falls back to plain text;
 * the next render starts a fresh worker. The main thread never runs marked on a reply.
 */
export function createMarkdownRenderer(options: { timeoutMs?: number; startTimeoutMs?: number } = {}): MarkdownRenderer {
  const timeoutMs = options.timeoutMs ?? 500;
  const startTimeoutMs = options.startTimeoutMs ?? 20_000;
  const source = new URL(import.meta.url.endsWith('.ts') ? './markdown-worker.ts' : './markdown-worker.js', import.meta.url);
  let worker: { thread: Worker; ready: Promise<boolean> } | undefined;
  let nextId = 1;
  let closed = false;
  const pending = new Map<number, Pending>();

  const settle = (id: number, html: string | undefined) => {
    const entry = pending.get(id);
    if (!entry) return;
    pending.delete(id);
    clearTimeout(entry.timer);
    entry.resolve(html ?? plainTextHtml(entry.text));
  };

  function stopWorker(): void {
    const stopping = worker;
    worker = undefined;
    void stopping?.thread.terminate();
    // Everything it still held falls back to plain text.
    for (const id of [...pending.keys()]) settle(id, undefined);
  }

  function startWorker(): { thread: Worker; ready: Promise<boolean> } {
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
      if (worker === started) stopWorker();
    };
    thread.on('message', (reply: { ready?: true; id?: number; html?: string }) => {
      if (reply.ready) {
        clearTimeout(startTimer);
        markReady(true);
      } else if (reply.id !== undefined) settle(reply.id, reply.html);
    });
    thread.on('error', gone);
    thread.on('exit', gone);
    return started;
  }

  return {
    version: markdownRendererVersion,
    async render(markdown) {
      if (closed) return plainTextHtml(markdown);
      const current = (worker ??= startWorker());
      if (!(await current.ready) || worker !== current) return plainTextHtml(markdown);
      return new Promise((resolve) => {
        const id = nextId++;
        const timer = setTimeout(() => {
          // Too slow: whatever it is stuck on, start over with a new worker next time.
          settle(id, undefined);
          if (worker === current) stopWorker();
        }, timeoutMs);
        pending.set(id, { resolve, text: markdown, timer });
        current.thread.postMessage({ id, text: markdown });
      });
    },
    async close() {
      closed = true;
      const stopping = worker;
      worker = undefined;
      for (const id of [...pending.keys()]) settle(id, undefined);
      await stopping?.thread.terminate();
    },
  };
}
