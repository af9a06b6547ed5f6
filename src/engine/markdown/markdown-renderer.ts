import { Worker } from 'node:worker_threads';
import { plainBlockHtml, plainTextHtml, type HighlightBudget } from './render-markdown.js';

/** Bumped when rendering changes, so stored HTML from an older renderer is made again. */
export const markdownRendererVersion = 2;

export interface MarkdownRenderer {
  readonly version: number;
  /** Safe HTML for a finished reply: Markdown within the time limit, else the text as plain text. */
  render(markdown: string): Promise<string>;
  /**
   * Safe HTML for finished blocks of a streaming reply (markdown-blocks.ts), each rendered on its
   * own, and what is left of the reply's highlighting budget; blocks that take too long are their text.
   */
  renderBlocks(blocks: string[], budget: HighlightBudget): Promise<{ html: string; budget: HighlightBudget }>;
  close(): Promise<void>;
}

interface Pending {
  resolve(reply: { html: string; budget?: HighlightBudget }): void;
  fallback(): string;
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

  const settle = (id: number, html: string | undefined, budget?: HighlightBudget) => {
    const entry = pending.get(id);
    if (!entry) return;
    pending.delete(id);
    clearTimeout(entry.timer);
    entry.resolve(html === undefined ? { html: entry.fallback() } : { html, budget });
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
    thread.on('message', (reply: { ready?: true; id?: number; html?: string; budget?: HighlightBudget }) => {
      if (reply.ready) {
        clearTimeout(startTimer);
        markReady(true);
      } else if (reply.id !== undefined) settle(reply.id, reply.html, reply.budget);
    });
    thread.on('error', gone);
    thread.on('exit', gone);
    return started;
  }

  /** Sends one request to the worker; its fallback when the worker is not there, fails or is too slow. */
  async function request(message: { text: string } | { blocks: string[]; budget: HighlightBudget }, fallback: () => string): Promise<{ html: string; budget?: HighlightBudget }> {
    if (closed) return { html: fallback() };
    const current = (worker ??= startWorker());
    if (!(await current.ready) || worker !== current) return { html: fallback() };
    return new Promise((resolve) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        // Too slow: whatever it is stuck on, start over with a new worker next time.
        settle(id, undefined);
        if (worker === current) stopWorker();
      }, timeoutMs);
      pending.set(id, { resolve, fallback, timer });
      current.thread.postMessage({ id, ...message });
    });
  }

  return {
    version: markdownRendererVersion,
    async render(markdown) {
      return (await request({ text: markdown }, () => plainTextHtml(markdown))).html;
    },
    async renderBlocks(blocks, budget) {
      const rendered = await request({ blocks, budget }, () => blocks.map(plainBlockHtml).join(''));
      return { html: rendered.html, budget: rendered.budget ?? budget };
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
