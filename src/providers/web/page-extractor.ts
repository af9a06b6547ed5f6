import { createWorkerThread } from '../../threads/worker-thread.js';
import type { ExtractedPage } from './page-extract.js';

export interface PageExtractor {
  /** The page's title and main text; rejects when the page cannot be read in time. */
  extract(html: string, address: string): Promise<ExtractedPage>;
  close(): Promise<void>;
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
  const worker = createWorkerThread<{ html: string; address: string }, { page?: ExtractedPage; error?: string }>(
    new URL(import.meta.url.endsWith('.ts') ? './page-worker.ts' : './page-worker.js', import.meta.url),
    {
      timeoutMs,
      startTimeoutMs: options.startTimeoutMs ?? 20_000,
      failures: { start: 'The page reader could not start.', stopped: 'The page reader stopped.', slow: `The page took longer than ${timeoutMs / 1000} s to read.` },
    },
  );
  let idleTimer: NodeJS.Timeout | undefined;

  return {
    async extract(html, address) {
      clearTimeout(idleTimer);
      try {
        const reply = await worker.request({ html, address });
        if (reply.page) return reply.page;
        throw new Error(reply.error ?? 'The page could not be read.');
      } finally {
        if (worker.idle) idleTimer = setTimeout(() => void worker.stop('idle'), idleMs).unref();
      }
    },
    async close() {
      clearTimeout(idleTimer);
      await worker.stop('Hearth is stopping.');
    },
  };
}
