/**
 * Lighthouse as a phone (the npm package's default mobile emulation, 4x CPU and slow-4G simulation)
 * on the login page, a chat with messages, a code block, a tool card and an approval card, and the
 * memory page. The app runs in this process against the Ollama stand-in; the chat is made through
 * the real WebSocket, and the browser gets the session cookie of a real login. Prints each page's
 * four scores (the median run by performance when --runs > 1) and the audits that failed.
 *
 *   npx tsx scripts/bench/lighthouse.ts [--runs 3] [--json] [--screenshots DIR]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase } from '../../src/storage/database.js';
import { auditPage, formatScores, launchAuditedBrowser, type PageScores } from '../../tests/support/lighthouse.js';
import { startOllamaStandin } from '../../tests/support/ollama-standin.js';
import { openChatSocket } from '../../tests/support/test-app.js';
import { createTestRegistry } from '../../tests/support/test-tools.js';
import { closeHttpClients, login } from './hearth-client.js';
import { buildBenchApp, listenLocally, type BenchApp } from './in-process-app.js';

const { values: options } = parseArgs({
  options: {
    runs: { type: 'string', default: '1' },
    json: { type: 'boolean', default: false },
    screenshots: { type: 'string' },
  },
});
const runs = Math.max(1, Number(options.runs));
const password = 'a bench password that is long enough';

/** The run with the median performance score, as Lighthouse advises for a noisy machine. */
async function medianRun(audit: () => Promise<PageScores>): Promise<PageScores> {
  const all: PageScores[] = [];
  for (let run = 0; run < runs; run++) all.push(await audit());
  all.sort((a, b) => a.scores.performance - b.scores.performance);
  return all[Math.floor(all.length / 2)]!;
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-bench-lighthouse-'));
  const standin = await startOllamaStandin();
  const database = openDatabase(dataDir);
  let app: BenchApp | undefined;
  let browser: Awaited<ReturnType<typeof launchAuditedBrowser>> | undefined;
  try {
    // A tool that asks before it acts, so the chat can show an approval card.
    app = await buildBenchApp({ dataDir, database, ollamaUrl: standin.url, password, registry: createTestRegistry().registry });
    const baseUrl = await listenLocally(app);

    // The chat, made as the page makes it: two turns over the WebSocket, the second waiting for approval.
    const cookie = await login(baseUrl, password);
    const socket = await openChatSocket(baseUrl, cookie);
    standin.enqueue(
      { content: 'Let me calculate. [TOOL:calculator]6 * 7[/TOOL]' },
      { content: 'The answer is **42**.\n\n```js\nconst answer = 42; // a long line that has to scroll sideways on a phone screen\n```\n' },
      { content: '[TOOL:send_note]buy milk[/TOOL]' },
    );
    socket.send({ type: 'send', message: 'What is 6 times 7?', conversationId: '' });
    await socket.waitFor((message) => message.event === 'reply-finished', 10_000);
    socket.send({ type: 'send', message: 'Send a note to buy milk', conversationId: '1' });
    await socket.waitFor((message) => String(message.content).includes('data-status="awaiting-approval"'), 10_000);
    await socket.close();

    browser = await launchAuditedBrowser();
    const loginScores = await medianRun(() => auditPage(browser!, `${baseUrl}/login`));
    // The browser now holds the same session as a person who logged in.
    await browser.context.addCookies(
      cookie.split('; ').map((pair) => {
        const index = pair.indexOf('=');
        return { name: pair.slice(0, index), value: pair.slice(index + 1), url: baseUrl };
      }),
    );
    const chatScores = await medianRun(() => auditPage(browser!, `${baseUrl}/c/1`));
    const memoryScores = await medianRun(() => auditPage(browser!, `${baseUrl}/memory`));
    const pages = [loginScores, chatScores, memoryScores];
    for (const page of pages) {
      if (new URL(page.finalUrl).pathname !== new URL(page.url).pathname) throw new Error(`${page.url} ended on ${page.finalUrl}: not logged in?`);
    }
    if (options.screenshots) saveScreenshots(options.screenshots, pages);

    if (options.json) {
      console.log(JSON.stringify({ runs, pages: pages.map(({ url, screenshot: _screenshot, ...rest }) => ({ page: new URL(url).pathname, ...rest })) }, null, 2));
      return;
    }
    console.log(`Lighthouse ${runs === 1 ? '(one run per page)' : `(median of ${runs} runs per page)`}, mobile, simulated slow 4G and 4x CPU`);
    for (const page of pages) {
      console.log(`${new URL(page.url).pathname.padEnd(8)} ${formatScores(page.scores)}  (${page.durationMs} ms)`);
      for (const audit of page.failingAudits) console.log(`         failing ${audit}`);
      for (const request of page.foreignRequests) console.log(`         foreign request ${request}`);
    }
  } finally {
    closeHttpClients();
    await browser?.close();
    await app?.close();
    database.close();
    await standin.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Lighthouse's own picture of each page at the end of loading, for a person to look at. */
function saveScreenshots(folder: string, pages: PageScores[]): void {
  fs.mkdirSync(folder, { recursive: true });
  for (const page of pages) {
    if (!page.screenshot) continue;
    const name = new URL(page.url).pathname.replace(/\W+/g, '-').replace(/^-|-$/g, '') || 'root';
    const [, base64] = page.screenshot.split(',', 2);
    fs.writeFileSync(path.join(folder, `lighthouse-${name}.jpg`), Buffer.from(base64!, 'base64'));
  }
}

await main();
