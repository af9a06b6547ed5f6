/*
 * Renders Markdown off the main thread: marked has inputs that cost quadratic time or overflow
 * the stack (small models do loop), and a reply must never freeze the server for everyone.
 */
import { parentPort } from 'node:worker_threads';
import { loadRenderingLibraries, renderMarkdown } from './render-markdown.js';

parentPort!.on('message', (request: { id: number; text: string }) => {
  let html: string | undefined;
  try {
    html = renderMarkdown(request.text);
  } catch {
    html = undefined; // the caller shows plain text
  }
  parentPort!.postMessage({ id: request.id, html });
});
// Loaded (marked, highlight.js, sanitize-html): time limits start from here, not from start-up.
loadRenderingLibraries();
parentPort!.postMessage({ ready: true });
