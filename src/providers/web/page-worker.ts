/*
 * Extracts pages off the main thread: a 2 MB page of deep markup costs Readability seconds, and
 * a reply for one person must never freeze the server for everyone.
 */
import { parentPort } from 'node:worker_threads';
import { extractHtml } from './page-extract.js';

interface ExtractRequest {
  id: number;
  html: string;
  address: string;
}

parentPort!.on('message', (request: ExtractRequest) => {
  try {
    parentPort!.postMessage({ id: request.id, page: extractHtml(request.html, request.address) });
  } catch (error) {
    parentPort!.postMessage({ id: request.id, error: (error as Error).message });
  }
});
parentPort!.postMessage({ ready: true });
