/**
 * A long conversation: 5,000 messages written through the store (replies with their rendered HTML and
 * some tool cards, as finished replies are kept), then opened over real HTTP by a logged-in client
 * with a browser's Accept-Encoding. Server time is Fastify's own (reply.elapsedTime, from request to
 * response sent); bytes are the body as sent (compressed) plus headers. Also times the earlier-messages
 * page when the server has one (a 404 there means the build pages nothing, as before paging), and a
 * reply in that chat: from the message sent over the chat socket to the model being asked (the
 * history read and fitted to the model's window), in Fastify's process, on the stand-in's clock.
 *
 *   npx tsx scripts/bench/long-conversation.ts [--messages 5000] [--runs 30] [--json]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { markdownRendererVersion } from '../../src/engine/markdown/markdown-renderer.js';
import { renderMarkdown } from '../../src/engine/markdown/render-markdown.js';
import { createConversationStore } from '../../src/storage/conversation-store.js';
import { openDatabase } from '../../src/storage/database.js';
import { createToolCallStore } from '../../src/storage/tool-call-store.js';
import { startOllamaStandin, type OllamaStandin } from '../../tests/support/ollama-standin.js';
import { closeHttpClients, decodeBody, httpGet, login } from './hearth-client.js';
import { buildBenchApp, listenLocally, type BenchApp } from './in-process-app.js';
import { median, percentile, randomSource, round } from './stats.js';

const { values: options } = parseArgs({
  options: {
    messages: { type: 'string', default: '5000' },
    runs: { type: 'string', default: '30' },
    json: { type: 'boolean', default: false },
  },
});
const messageCount = Number(options.messages);
const runs = Number(options.runs);
const password = 'a bench password that is long enough';
const browserHeaders = { 'accept-encoding': 'gzip, deflate, br, zstd', 'user-agent': 'Mozilla/5.0 (Linux; Android 14) hearth-bench' };

const random = randomSource(20_261_123);
const common = 'the of and to a in is it you that was for on are with as this be at have from or by but what can out all when use how'.split(' ');
const syllables = ['ka', 'lo', 'mi', 'ren', 'ta', 'vor', 'sel', 'du', 'fin', 'gra', 'ne', 'po', 'shi', 'tur', 'wel', 'zan', 'bri', 'cor', 'dal', 'ex'];
const vocabulary = Array.from({ length: 4000 }, () =>
  Array.from({ length: 2 + Math.floor(random() * 3) }, () => syllables[Math.floor(random() * syllables.length)]).join(''),
);
const word = () => (random() < 0.45 ? common[Math.floor(random() * common.length)]! : vocabulary[Math.floor(random() * vocabulary.length)]!);
const sentence = (words: number) => {
  const text = Array.from({ length: words }, word).join(' ');
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
};

/** A reply of a few paragraphs, a list and now and then a code block: about what a chat holds. */
function replyText(index: number): string {
  const blocks = [`${sentence(14)} ${sentence(10)} **${word()}** ${sentence(8)}`, `- ${sentence(6)}\n- ${sentence(5)}\n- ${sentence(7)}`];
  if (index % 5 === 0) blocks.push('```js\n' + `const ${word()} = ${index};\nconsole.log(${word()}(${index}));\n` + '```');
  blocks.push(sentence(12));
  return blocks.join('\n\n');
}

function seed(dataDir: string): { conversationId: number; seconds: number } {
  const started = performance.now();
  const database = openDatabase(dataDir);
  const store = createConversationStore(database);
  const toolCalls = createToolCallStore(database);
  const conversation = store.createConversation('A very long chat', 'llama3.2:1b');
  const fill = database.transaction(() => {
    for (let index = 1; index <= messageCount; index++) {
      if (index % 2 === 1) {
        store.addMessage(conversation.id, 'user', `${sentence(6 + Math.floor(random() * 14))}?`);
      } else {
        const markdown = replyText(index);
        const message = store.addMessage(conversation.id, 'assistant', markdown, { model: 'llama3.2:1b' });
        store.updateMessage(message.id, { html: renderMarkdown(markdown), html_version: markdownRendererVersion });
        if (index % 10 === 0) toolCalls.add(message.id, conversation.id, 'web_search', JSON.stringify({ query: `question ${index}` }), 'done');
      }
    }
  });
  fill();
  database.close();
  return { conversationId: conversation.id, seconds: (performance.now() - started) / 1000 };
}

interface Measure {
  path: string;
  status: number;
  messages: number;
  encoding: string;
  htmlBytes: number;
  wireBytes: number;
  serverMsP50: number;
  serverMsP90: number;
  clientMsP50: number;
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-bench-long-'));
  const standin = await startOllamaStandin();
  let app: BenchApp | undefined;
  let database: ReturnType<typeof openDatabase> | undefined;
  try {
    const seeded = seed(dataDir);
    database = openDatabase(dataDir);
    app = await buildBenchApp({ dataDir, database, ollamaUrl: standin.url, password });
    // Fastify's own clock for each request: from its arrival to the response sent.
    const serverMs = new Map<string, number>();
    app.addHook('onResponse', async (request, reply) => {
      serverMs.set(String(request.headers['x-bench-id'] ?? ''), reply.elapsedTime);
    });
    const baseUrl = await listenLocally(app);
    const cookie = await login(baseUrl, password);

    let requestNumber = 0;
    async function measure(pathname: string): Promise<Measure> {
      const server: number[] = [];
      const client: number[] = [];
      let last: Awaited<ReturnType<typeof httpGet>> | undefined;
      // Two unmeasured warm-ups (template compile, statement caches), then the measured runs.
      for (let run = -2; run < runs; run++) {
        const id = String(++requestNumber);
        const response = await httpGet(`${baseUrl}${pathname}`, { ...browserHeaders, cookie, 'x-bench-id': id });
        if (run < 0) continue;
        last = response;
        client.push(response.ms);
        server.push(serverMs.get(id) ?? Number.NaN);
      }
      const html = last!.status === 200 ? decodeBody(last!).toString('utf8') : '';
      return {
        path: pathname,
        status: last!.status,
        messages: (html.match(/<article class="chat-message/g) ?? []).length,
        encoding: String(last!.headers['content-encoding'] ?? 'identity'),
        htmlBytes: Buffer.byteLength(html),
        wireBytes: last!.wireBytes + last!.headerBytes,
        serverMsP50: round(median(server)),
        serverMsP90: round(percentile(server, 0.9)),
        clientMsP50: round(median(client)),
      };
    }

    const open = await measure(`/c/${seeded.conversationId}`);
    const pageHtml = decodeBody(await httpGet(`${baseUrl}/c/${seeded.conversationId}`, { ...browserHeaders, cookie })).toString('utf8');
    const earlierPath = /class="load-earlier" hx-get="([^"]+)"/.exec(pageHtml)?.[1]?.replace(/&amp;/g, '&');
    const earlier = earlierPath ? await measure(earlierPath) : undefined;
    // The oldest page: the deepest the index walk goes.
    const firstPage = earlierPath ? await measure(earlierPath.replace(/before=\d+/, 'before=40')) : undefined;
    const replyStart = await measureReplyStart(baseUrl, cookie, seeded.conversationId, standin);
    const result = { messages: messageCount, seedSeconds: round(seeded.seconds), runs, open, earlier, firstPage, replyStart };
    if (options.json) {
      console.log(JSON.stringify(result, null, 2));
      return;
    }
    console.log(`${messageCount} messages seeded in ${round(seeded.seconds)} s; ${runs} runs each (after 2 warm-ups)`);
    for (const row of [open, earlier, firstPage]) {
      if (!row) continue;
      console.log(
        `GET ${row.path}: ${row.status}, ${row.messages} messages, server p50 ${row.serverMsP50} ms (p90 ${row.serverMsP90}), ` +
          `client p50 ${row.clientMsP50} ms, ${round(row.htmlBytes / 1024, 1)} KB HTML, ${round(row.wireBytes / 1024, 1)} KB on the wire (${row.encoding})`,
      );
    }
    if (!earlier) console.log('no load-earlier sentinel on the page: this build renders every message');
    console.log(`a reply in this chat: message sent -> model asked p50 ${replyStart.p50} ms (p90 ${replyStart.p90}), ${replyStart.turnsSent} turns sent to the model`);
  } finally {
    closeHttpClients();
    await app?.close();
    database?.close();
    await standin.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * Sends `runs` messages in the long chat, one after the other, and times each from the socket
 * send to the stand-in receiving the chat request (both in this process).
 */
async function measureReplyStart(baseUrl: string, cookie: string, conversationId: number, standin: OllamaStandin) {
  const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/ws?conversation=${conversationId}`, { headers: { cookie, origin: baseUrl } });
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  let finished: (() => void) | undefined;
  socket.on('message', (data: Buffer) => {
    if ((JSON.parse(data.toString('utf8')) as { event?: string }).event === 'reply-finished') finished?.();
  });
  const times: number[] = [];
  for (let run = -2; run < runs; run++) {
    const replyFinished = new Promise<void>((resolve) => (finished = resolve));
    const asked = standin.requests.length + 1;
    const started = performance.now();
    socket.send(JSON.stringify({ type: 'send', message: `One more question, number ${run}?`, conversationId: String(conversationId), model: 'llama3.2:latest' }));
    await standin.waitForRequests(asked, 10_000);
    if (run >= 0) times.push(performance.now() - started);
    await replyFinished;
  }
  socket.close();
  return { p50: round(median(times)), p90: round(percentile(times, 0.9)), turnsSent: standin.requests.at(-1)!.messages.length - 1 };
}

await main();
