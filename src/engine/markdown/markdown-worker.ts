/*
 * Renders Markdown off the main thread: marked has inputs that cost quadratic time or overflow
 * the stack (small models do loop), and a reply must never freeze the server for everyone.
 */
import { parentPort } from 'node:worker_threads';
import { loadRenderingLibraries, renderMarkdown, renderMarkdownBlocks, type HighlightBudget } from './render-markdown.js';

/** A whole text (`text`), or a streaming reply's finished blocks with its highlighting budget. */
type RenderRequest = { id: number; text: string } | { id: number; blocks: string[]; budget: HighlightBudget };

parentPort!.on('message', (request: RenderRequest) => {
  let html: string | undefined;
  try {
    html = 'text' in request ? renderMarkdown(request.text) : renderMarkdownBlocks(request.blocks, request.budget);
  } catch {
    html = undefined; // the caller shows plain text
  }
  parentPort!.postMessage({ id: request.id, html, budget: 'budget' in request ? request.budget : undefined });
});
// Loaded (marked, highlight.js, sanitize-html): time limits start from here, not from start-up.
loadRenderingLibraries();
parentPort!.postMessage({ ready: true });
