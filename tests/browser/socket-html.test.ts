/**
 * The mechanism the chat socket relies on, proven on its own in a real Chromium: htmx 4's
 * WebSocket extension swaps the `<hx-partial>` elements of an HTML frame into their own targets,
 * leaves the element that holds the socket alone, does nothing with a JSON frame that has no
 * content, and never brings model text to life: inside `hx-ignore` htmx processes nothing, and
 * Markdown rendered by the sanitizer stays inert even with the page's CSP switched off.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, test, type TestContext } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { WebSocketServer, type WebSocket } from 'ws';
import { renderMarkdown } from '../../src/engine/markdown/render-markdown.js';
import { assertNoPageErrors, launchBrowser, newPage } from '../support/browser.js';
import { waitFor } from '../support/chat-page.js';
import { xssPayloads } from '../support/xss-payloads.js';

let browser: Browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

const htmxFolder = path.resolve('node_modules/htmx.org/dist');
const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Socket proof</title>
<meta name="htmx-config" content='{"includeIndicatorCSS": false, "history": false}'></head>
<body><main id="app" hx-ws:connect="/ws" hx-swap="none">
<ul id="list"><li>first</li></ul><p id="status">old status</p><section id="thread"></section><p id="kept">kept</p>
</main><script src="/htmx.min.js"></script><script src="/hx-ws.min.js"></script><script src="/listen.js"></script></body></html>`;
// Records what the page's listener sees of each frame, as a script file (the CSP allows no inline script).
const listener = `window.__frames = []; window.__requests = [];
document.addEventListener('htmx:ws:before:message:incoming', (event) => { window.__frames.push(event.detail.message.data); });
document.addEventListener('htmx:before:request', (event) => { window.__requests.push(event.detail.ctx.request.action); });
window.__xss = (number) => { (window.__fired ??= []).push(number); };`;

interface ProofServer {
  url: string;
  /** Paths the page asked for, in order. */
  requested: string[];
  /** Sends a frame to the page's socket (waits for it to be open). */
  send(frame: string): Promise<void>;
}

async function startProofServer(t: TestContext): Promise<ProofServer> {
  const requested: string[] = [];
  const server = http.createServer((request, response) => {
    const url = request.url ?? '/';
    requested.push(url);
    const files: Record<string, string> = { '/htmx.min.js': 'htmx.min.js', '/hx-ws.min.js': 'ext/hx-ws.min.js' };
    const csp = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; object-src 'none'";
    if (url === '/') return response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': csp }).end(page);
    if (url === '/listen.js') return response.writeHead(200, { 'content-type': 'text/javascript' }).end(listener);
    if (files[url]) return response.writeHead(200, { 'content-type': 'text/javascript' }).end(fs.readFileSync(path.join(htmxFolder, files[url]!)));
    response.writeHead(204).end();
  });
  const sockets = new WebSocketServer({ server, path: '/ws' });
  let connected: (socket: WebSocket) => void;
  const socket = new Promise<WebSocket>((resolve) => (connected = resolve));
  sockets.on('connection', (client) => connected(client));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(async () => {
    for (const client of sockets.clients) client.terminate();
    sockets.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requested,
    async send(frame) {
      (await socket).send(frame);
    },
  };
}

/** Opens the page, waits for its socket, and sends one frame; resolves once the page has seen it. */
async function openProof(t: TestContext, options: { bypassCSP?: boolean } = {}): Promise<{ server: ProofServer; page: Page; send(frame: string): Promise<void> }> {
  const server = await startProofServer(t);
  const { page } = await newPage(t, browser, options);
  await page.goto(server.url);
  await waitFor(page, () => Boolean((window as unknown as { htmx?: unknown }).htmx));
  let sent = 0;
  return {
    server,
    page,
    async send(frame) {
      await server.send(frame);
      sent++;
      await waitFor(page, (count) => (window as unknown as { __frames: unknown[] }).__frames.length >= count, sent);
      // The extension swaps after its incoming event, in a promise chain: two frames later it is done.
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    },
  };
}

test('an HTML frame of <hx-partial>s is swapped into each target; the element holding the socket is left alone', async (t) => {
  const { page, send } = await openProof(t);
  await send(
    '<hx-partial hx-target="#list" hx-swap="beforeend"><li>second</li></hx-partial>'
    + '<hx-partial hx-target="#status" hx-swap="outerHTML"><p id="status" class="new">new status</p></hx-partial>'
    + '<hx-partial hx-target="#missing" hx-swap="beforeend"><p>nowhere</p></hx-partial>',
  );
  assert.deepEqual(await page.locator('#list li').allTextContents(), ['first', 'second']);
  assert.equal(await page.locator('#status').textContent(), 'new status');
  assert.equal(await page.locator('#status').getAttribute('class'), 'new');
  assert.equal(await page.locator('#kept').textContent(), 'kept', 'the rest of the page is untouched');
  assert.equal(await page.locator('#app').count(), 1);
  assert.equal(await page.getByText('nowhere').count(), 0, 'a partial whose target is missing is dropped');

  // A JSON frame without content is data: htmx swaps nothing for it.
  await send('{"event":"reply-finished","conversationId":1}');
  assert.equal(await page.locator('#app').innerText().then((text) => text.includes('reply-finished')), false);
  assert.deepEqual(await page.locator('#list li').allTextContents(), ['first', 'second']);
  assertNoPageErrors(page);
});

test('inside hx-ignore nothing is processed (a control outside it is), and sanitized model text never runs', async (t) => {
  const { page, server, send } = await openProof(t, { bypassCSP: true });
  await send(
    '<hx-partial hx-target="#thread" hx-swap="beforeend">'
    + '<div class="body" hx-ignore><div hx-get="/ignored" hx-trigger="load">model text</div></div>'
    + '<div hx-get="/processed" hx-trigger="load">control</div></hx-partial>',
  );
  await waitFor(page, () => (window as unknown as { __requests: string[] }).__requests.includes('/processed'));
  assert.deepEqual(await page.evaluate(() => (window as unknown as { __requests: string[] }).__requests), ['/processed'], 'only the control outside hx-ignore was processed');

  // Every payload of the corpus, rendered by the Markdown renderer, in a message body as the chat
  // sends one. With the CSP off, only the sanitizer and hx-ignore stand in the way.
  const corpus = xssPayloads.map((payload, index) => `zqx${index} ${payload}`).join('\n\n');
  await send(`<hx-partial hx-target="#thread" hx-swap="beforeend"><article id="reply"><div class="body" hx-ignore>${renderMarkdown(corpus)}</div></article></hx-partial>`);
  await page.locator('#reply').waitFor();
  await page.evaluate(() => {
    for (const element of document.querySelectorAll('#reply *')) element.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
  });
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => (window as unknown as { __fired?: number[] }).__fired), undefined, 'no payload ran');
  assert.deepEqual(await page.evaluate(() => (window as unknown as { __requests: string[] }).__requests), ['/processed'], 'no hx-* request from the reply');
  assert.ok(!server.requested.some((url) => /logout|ignored/.test(url)), `requests: ${server.requested.join(', ')}`);
  // The payload that spells an <hx-partial> is text on the page, not a swap into <body>.
  assert.match(await page.locator('#reply').innerText(), /<hx-partial hx-target="body"/);
  assert.equal(await page.locator('body > img').count(), 0);
  assertNoPageErrors(page);
});
