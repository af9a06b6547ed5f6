/**
 * `npm start` runs dist/src/server.bundle.js (scripts/bundle-server.js): one file for what start-up
 * loads, with tools/, the lazily imported features and the Markdown worker's renderer left as
 * files. This drives that bundled server through what crosses the line between the two: a tool
 * from dist/tools whose ToolError the bundled tool runner must recognise as its own class, a reply
 * rendered by the worker found beside its file, and the chat page.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { startOllamaStandin } from '../support/ollama-standin.js';
import { freePort } from '../support/free-port.js';
import { launchEnvironment, logIn, npmStartCommand, root, startServer, waitForOutput } from '../support/server-process.js';

test('the bundled server runs a tool from dist/tools (its ToolError is the one class), renders Markdown in its worker, and shows the chat page', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-bundle-'));
  const standin = await startOllamaStandin();
  const port = await freePort();
  const hash = (await import('bcrypt')).default.hashSync('bundle test password', 4);
  t.after(async () => {
    await standin.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const server = startServer(
    { ...launchEnvironment, PORT: String(port), DATA_DIR: dataDir, OLLAMA_HOST: standin.url, MEMORY_FILE: path.join(dataDir, 'memory.md'), PASSWORD_HASH: hash, SECRET_KEY: 'b'.repeat(40) },
    npmStartCommand(),
  );
  t.after(() => server.child.kill('SIGKILL'));
  // The first start after a change builds dist/ first.
  await waitForOutput(server, /Hearth is running/, 180_000);
  assert.ok(fs.existsSync(path.join(root, 'dist', 'src', 'server.bundle.js')), 'npm start built the bundle it runs');

  const baseUrl = `http://127.0.0.1:${port}`;
  const { cookies } = await logIn(baseUrl, 'bundle test password');
  const { openChatSocket } = await import('../support/test-app.js');
  const socket = await openChatSocket(baseUrl, cookies);
  standin.enqueue({ content: 'Let me see. [TOOL:calculator]6 * ![/TOOL]' }, { content: 'That is **not** a sum.' });
  socket.send({ type: 'send', message: 'What is 6 times exclamation mark?' });
  await socket.waitFor((message) => message.event === 'reply-finished', 20_000);
  socket.socket.terminate();

  const page = await fetch(`${baseUrl}/c/1`, { headers: { cookie: cookies } });
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.match(html, /That is <strong>not<\/strong> a sum\./, 'the Markdown worker rendered the final reply');
  assert.match(html, /What is 6 times exclamation mark\?/, 'the sidebar and thread list the chat (their times written by format-when)');

  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);
  // Its start-up check asked the stand-in's /api/version (node:http, not fetch) and got an answer.
  assert.doesNotMatch(server.output(), /Ollama does not answer/);
  const { default: Database } = await import('better-sqlite3');
  const database = new Database(path.join(dataDir, 'hearth.sqlite'), { readonly: true });
  const call = database.prepare('SELECT name, status, result FROM tool_calls ORDER BY id DESC LIMIT 1').get() as { name: string; status: string; result: string };
  database.close();
  assert.equal(call.name, 'calculator');
  assert.equal(call.status, 'failed');
  // A ToolError's own words; any other error would read "the tool failed: ...".
  assert.match(call.result, /^Error from calculator: "!" is not allowed\./);
});
