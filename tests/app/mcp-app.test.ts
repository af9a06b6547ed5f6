/*
 * MCP through the whole app, from an mcp.json as a person writes it: servers start in the
 * background, their tools reach the chat and the tools page, a bad entry is reported there, and
 * closing the app leaves no server process behind.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { everythingServerFile, filesystemServerFile, waitForStatus } from '../support/mcp-servers.js';
import { buildTestApp, cookieHeader, csrfTokenFrom, startChatHarness } from '../support/test-app.js';

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function appWithMcpFile(t: TestContext, servers: Record<string, unknown>, environment: Record<string, string> = {}) {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-mcp-app-'));
  t.after(() => fs.rmSync(folder, { recursive: true, force: true }));
  const notes = path.join(folder, 'notes');
  fs.mkdirSync(notes);
  fs.writeFileSync(path.join(notes, 'shopping.txt'), 'eggs\nflour\n');
  const file = path.join(folder, 'mcp.json');
  fs.writeFileSync(file, JSON.stringify({ mcpServers: servers }, null, 2).replaceAll('NOTES', notes));
  const started = performance.now();
  const harness = await buildTestApp(t, { environment: { MCP_CONFIG: file }, dependencies: { environment } });
  return { ...harness, notes, buildMs: performance.now() - started };
}

test('servers from mcp.json start in the background; their tools appear in the prompt and on the tools page', async (t) => {
  const { app, login, buildMs } = await appWithMcpFile(
    t,
    {
      files: { command: process.execPath, args: [filesystemServerFile, 'NOTES'] },
      typo: { comand: 'node' },
      off: { command: 'does-not-exist', enabled: false },
      home: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer ${HA_TOKEN}' } },
    },
    {},
  );
  assert.ok(buildMs < 3000, `the app was built in ${Math.round(buildMs)} ms, not waiting for servers`);
  await waitForStatus(app.mcp.servers, () => app.mcp.servers.status().find((status) => status.name === 'files')?.state === 'up');
  assert.ok(app.registry.find('files.read_text_file'), 'the tool is in the registry');

  assert.ok(app.mcp.problems.some((problem) => /server "typo": unknown key "comand" \(did you mean "command"\?\)/.test(problem)), app.mcp.problems.join('\n'));
  assert.ok(app.mcp.problems.some((problem) => /HA_TOKEN/.test(problem)), 'an unset ${VAR} is named');

  const cookies = await login();
  const page = await app.inject({ method: 'GET', url: '/tools', headers: { cookie: cookies } });
  assert.match(page.body, /id="mcp-server-files" data-state="up"[\s\S]*?Running, \d+ tools \(stdio\)/);
  assert.match(page.body, /id="mcp-server-off" data-state="disabled"/);
  assert.match(page.body, /class="mcp-problem">[^<]*unknown key &quot;comand&quot;/);
  assert.match(page.body, /id="tool-files\.read_text_file"[\s\S]*?MCP: files[\s\S]*?Runs without asking: it only reads\./);
  assert.match(page.body, /id="tool-files\.write_file"[\s\S]*?Asks you before it acts\./);

  // Restart from the page: the server comes back with a new process.
  const pidBefore = app.mcp.servers.status().find((status) => status.name === 'files')!.pid!;
  const restart = await app.inject({
    method: 'POST',
    url: '/tools/servers/restart',
    headers: { cookie: cookieHeader(page.headers['set-cookie'], cookies) },
    payload: { server: 'files', _csrf: csrfTokenFrom(page.body) },
  });
  assert.equal(restart.statusCode, 303);
  await waitForStatus(app.mcp.servers, () => {
    const files = app.mcp.servers.status().find((status) => status.name === 'files');
    return files?.state === 'up' && files.pid !== pidBefore;
  });
  assert.ok(!isRunning(pidBefore) || (await new Promise((resolve) => setTimeout(() => resolve(!isRunning(pidBefore)), 2000))), 'the old process is gone');
});

test('a url that does not parse is shown on the tools page and in the log as written, never with its ${VAR} secret', async (t) => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-mcp-app-'));
  t.after(() => fs.rmSync(folder, { recursive: true, force: true }));
  const file = path.join(folder, 'mcp.json');
  fs.writeFileSync(file, JSON.stringify({ mcpServers: { home: { url: 'homeassistant.local:8123/api/mcp?token=${HA_TOKEN}' } } }));
  let log = '';
  const logger = { level: 'info', stream: { write: (line: string) => (log += line) } };
  const { app, login } = await buildTestApp(t, { environment: { MCP_CONFIG: file }, dependencies: { environment: { HA_TOKEN: 'eyJ-very-secret' }, logger } });
  const page = await app.inject({ method: 'GET', url: '/tools', headers: { cookie: await login() } });
  assert.match(page.body, /class="mcp-problem">[^<]*homeassistant\.local:8123\/api\/mcp\?token=\$\{HA_TOKEN\}[^<]*is not an http or https URL/);
  assert.match(log, /token=\$\{HA_TOKEN\}/, 'the log names the entry as written');
  assert.doesNotMatch(page.body + log, /eyJ-very-secret/);
});

test('closing the app stops every MCP server process: nothing is orphaned', async (t) => {
  const { app } = await appWithMcpFile(t, { files: { command: process.execPath, args: [filesystemServerFile, 'NOTES'] } });
  await waitForStatus(app.mcp.servers, () => app.mcp.servers.status()[0]?.state === 'up');
  const pid = app.mcp.servers.status()[0]!.pid!;
  assert.ok(isRunning(pid));
  await app.close();
  // Zombies are reaped by init on its own schedule: allow a moment.
  for (let waited = 0; waited < 2000 && isRunning(pid); waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.ok(!isRunning(pid), `server process ${pid} still running after close`);
});

test('in a chat, a long MCP call shows its progress on the card and Stop cancels it', async (t) => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-mcp-app-'));
  t.after(() => fs.rmSync(folder, { recursive: true, force: true }));
  const file = path.join(folder, 'mcp.json');
  fs.writeFileSync(file, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everythingServerFile, 'stdio'], allowTools: ['trigger-long-running-operation'] } } }));
  const { app, socket, standin, toolCalls, turnFinished } = await startChatHarness(t, { environment: { MCP_CONFIG: file } });
  await waitForStatus(app.mcp.servers, () => app.mcp.servers.status()[0]?.state === 'up');

  standin.enqueue({ content: '[TOOL:everything.trigger-long-running-operation]{"duration": 30, "steps": 60}[/TOOL]' }, { content: 'never asked' });
  socket.send({ type: 'send', message: 'Run the long thing' });
  const progress = await socket.waitFor((message) => String(message.content).includes('class="tool-call-progress"'), 15_000);
  assert.match(String(progress.content), /Progress: \d+ of 60/);
  const started = performance.now();
  socket.send({ type: 'stop' });
  await turnFinished();
  assert.ok(performance.now() - started < 2000, 'Stop ended the call promptly');
  const [call] = toolCalls.listForConversation(1);
  assert.equal(call!.status, 'failed');
  assert.match(call!.result, /stopped by the person/);
  assert.equal(standin.requests.length, 1, 'the model is not asked again after Stop');
  assert.equal(app.mcp.servers.status()[0]!.state, 'up', 'the server stays up');
});
