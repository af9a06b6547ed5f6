import { createWorkerThread } from '../../threads/worker-thread.js';
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

/*
 * One worker thread, started on first use, renders replies one after another. A render that
 * passes the time limit ends the worker (the only way to stop it) and falls back to plain text;
 * the next render starts a fresh worker. The main thread never runs marked on a reply.
 */
export function createMarkdownRenderer(options: { timeoutMs?: number; startTimeoutMs?: number } = {}): MarkdownRenderer {
  const timeoutMs = options.timeoutMs ?? 500;
  const worker = createWorkerThread<{ text: string } | { blocks: string[]; budget: HighlightBudget }, { html?: string; budget?: HighlightBudget }>(
    new URL(import.meta.url.endsWith('.ts') ? './markdown-worker.ts' : './markdown-worker.js', import.meta.url),
    {
      timeoutMs,
      startTimeoutMs: options.startTimeoutMs ?? 20_000,
      failures: { start: 'The Markdown renderer could not start.', stopped: 'The Markdown renderer stopped.', slow: `The reply took longer than ${timeoutMs} ms to render.` },
    },
  );
  let closed = false;

  /** The worker's HTML for one request; its fallback when the worker is not there, fails or is too slow. */
  async function request(message: { text: string } | { blocks: string[]; budget: HighlightBudget }, fallback: () => string): Promise<{ html: string; budget?: HighlightBudget }> {
    if (closed) return { html: fallback() };
    const reply = await worker.request(message).catch(() => undefined);
    return reply?.html === undefined ? { html: fallback() } : { html: reply.html, budget: reply.budget };
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
      await worker.stop('Hearth is stopping.');
    },
  };
}
