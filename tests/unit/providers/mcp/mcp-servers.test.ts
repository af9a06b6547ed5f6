import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import type { McpServerConfig } from '../../../../src/providers/mcp/mcp-config.js';
import { McpServerManager } from '../../../../src/providers/mcp/mcp-servers.js';
import { startMcpServers } from '../../../../src/providers/mcp/mcp-setup.js';
import { createMcpTools, type McpTool } from '../../../../src/providers/mcp/mcp-tool.js';
import { ToolError } from '../../../../src/engine/tools/tool.js';
import { testToolServices } from '../../../support/test-tools.js';
import {
  crashingServer,
  descendantProcesses,
  everythingServer,
  filesystemServer,
  filesystemServerFile,
  httpServer,
  isAlive,
  silentLogger,
  startEverythingOverHttp,
  stdioServer,
  waitForStatus,
} from '../../../support/mcp-servers.js';

const services = testToolServices();

function temporaryFolder(t: TestContext): string {
  const folder = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-mcp-')));
  t.after(() => fs.rmSync(folder, { recursive: true, force: true }));
  return folder;
}

/** A started manager, closed after the test; every child pid it ever had is checked to be gone. */
async function startServers(t: TestContext, configs: McpServerConfig[], options = {}): Promise<McpServerManager> {
  const manager = new McpServerManager(configs, silentLogger, { initialRestartDelayMs: 100, ...options });
  const pids = new Set<number>();
  manager.on('status-changed', () => {
    for (const status of manager.status()) if (status.pid) pids.add(status.pid);
  });
  t.after(async () => {
    await manager.close();
    for (const pid of pids) assert.equal(isAlive(pid), false, `child process ${pid} is still running after close()`);
  });
  manager.start();
  await manager.whenStarted();
  return manager;
}

function toolNamed(manager: McpServerManager, name: string): McpTool {
  const tool = createMcpTools(manager, services).find((candidate) => candidate.name === name);
  assert.ok(tool, `no tool ${name} among ${manager.tools().map((info) => info.name).join(', ')}`);
  return tool;
}

const context = (signal = new AbortController().signal, reportProgress: (text: string) => void = () => {}) => ({
  signal,
  conversationId: 1,
  turn: { memoryRevision: '', vision: false },
  reportProgress,
});

/** The marker file's text once the server has written it (or '' after 5 s). */
async function markerText(file: string): Promise<string> {
  const deadline = Date.now() + 5000;
  const read = () => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');
  while (read() === '' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return read();
}

/** SIGKILL cannot be refused, but a busy machine may take a moment to carry it out: wait up to 2 s. */
async function stillAliveAfterKill(pid: number): Promise<boolean> {
  const deadline = Date.now() + 2000;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  return isAlive(pid);
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  assert.fail('expected the call to fail');
}

test('start-up does not wait for servers: start() returns at once and the server comes up in the background', async (t) => {
  const folder = temporaryFolder(t);
  // A server that never answers: if start() waited for any server, it would never return. No
  // stopwatch is needed (one failed under load), the silent server proves it.
  const silent = stdioServer('silent', ['-e', 'process.stdin.resume()']);
  const manager = new McpServerManager([filesystemServer(folder), silent], silentLogger);
  t.after(() => manager.close());
  assert.equal(manager.start(), undefined, 'start() hands back no promise to wait on');
  assert.deepEqual(manager.status().map((status) => status.state), ['starting', 'starting']);
  assert.deepEqual(manager.tools(), []);
  await waitForStatus(manager, () => manager.status()[0]!.state === 'up');
  assert.equal(manager.status()[1]!.state, 'starting', 'the silent server is still starting while the good one is up');
});

test('startMcpServers: a config with a typo starts the good servers and logs a line naming the bad entry', async (t) => {
  const folder = temporaryFolder(t);
  const file = path.join(folder, 'mcp.json');
  fs.writeFileSync(file, JSON.stringify({
    mcpServers: {
      files: { command: process.execPath, args: [filesystemServerFile, '${NOTES_DIR}'] },
      broken: { comand: 'npx' },
    },
  }));
  const warnings: string[] = [];
  const logger = { ...silentLogger, warn: (_object: object, message: string) => warnings.push(message) };
  const { servers, problems } = startMcpServers(file, { NOTES_DIR: folder }, logger);
  t.after(() => servers.close());
  assert.equal(servers.status()[0]!.state, 'starting', 'start-up goes on while the server starts');
  await servers.whenStarted();
  assert.deepEqual(servers.status().map((status) => [status.name, status.state]), [['files', 'up']]);
  assert.equal(problems.length, 2);
  assert.deepEqual(warnings, problems);
  assert.match(problems[0]!, /^mcp\.json, server "broken": unknown key "comand" \(did you mean "command"\?\)/);

  fs.writeFileSync(file, '{"mcpServers": {');
  const unreadable = startMcpServers(file, {}, logger);
  assert.deepEqual(unreadable.servers.status(), []);
  assert.match(unreadable.problems[0]!, /^mcp\.json: not valid JSON at line 1, column 17/);
  await unreadable.servers.close();
});

test('filesystem server over stdio: list a folder, read a file; reads run without asking, writes ask first', async (t) => {
  const folder = temporaryFolder(t);
  fs.writeFileSync(path.join(folder, 'shopping.txt'), 'eggs\nflour\n');
  fs.mkdirSync(path.join(folder, 'recipes'));
  const manager = await startServers(t, [filesystemServer(folder)]);

  const [status] = manager.status();
  assert.equal(status!.transport, 'stdio');
  assert.ok(status!.toolCount >= 10);

  const list = toolNamed(manager, 'files.list_directory');
  assert.equal(list.actsOnWorld, false);
  assert.match(list.description, /Arguments: \{"path": string \(required\)\}/);
  assert.deepEqual(list.examples, ['[TOOL:files.list_directory]{"path": "…"}[/TOOL]']);
  const listing = await list.run(JSON.stringify({ path: folder }), context());
  assert.match(String(listing), /\[FILE\] shopping\.txt/);
  assert.match(String(listing), /\[DIR\] recipes/);

  // Plain text is the one required string argument.
  const read = toolNamed(manager, 'files.read_text_file');
  assert.equal(await read.run(path.join(folder, 'shopping.txt'), context()), 'eggs\nflour');
  // One Stop signal serves a whole reply: finished calls must not leave listeners on it.
  const replyStop = new AbortController();
  for (let index = 0; index < 3; index++) await read.run(path.join(folder, 'shopping.txt'), context(replyStop.signal));
  assert.equal(getEventListeners(replyStop.signal, 'abort').length, 0);

  const write = toolNamed(manager, 'files.write_file');
  assert.equal(write.actsOnWorld, true, 'write_file is not read-only, so the person is asked');
  assert.equal(toolNamed(manager, 'files.move_file').actsOnWorld, true);

  const refused = await rejection(write.run(JSON.stringify({ path: path.join(os.tmpdir(), 'outside-hearth.txt'), content: 'x' }), context()));
  assert.ok(refused instanceof ToolError);
  assert.match(refused.message, /Access denied|outside allowed directories/i);
  assert.equal(fs.existsSync(path.join(os.tmpdir(), 'outside-hearth.txt')), false);

  const wrong = await rejection(read.run('{"head": 2}', context()));
  assert.ok(wrong instanceof ToolError);
  assert.equal(wrong.message, 'files.read_text_file expects {"path": string (required), "tail": number, "head": number}; "path" is missing.');
});

test('allowTools in mcp.json lets a writing tool run without asking', async (t) => {
  const folder = temporaryFolder(t);
  const manager = await startServers(t, [filesystemServer(folder, { allowTools: ['write_file'] })]);
  const write = toolNamed(manager, 'files.write_file');
  assert.equal(write.actsOnWorld, false);
  assert.equal(toolNamed(manager, 'files.move_file').actsOnWorld, true);
  await write.run(JSON.stringify({ path: path.join(folder, 'a.txt'), content: 'hello' }), context());
  assert.equal(fs.readFileSync(path.join(folder, 'a.txt'), 'utf8'), 'hello');
});

/** Starts the long-running tool, waits for its first progress, then presses Stop. */
async function stopLongRunningOperation(manager: McpServerManager) {
  const tool = toolNamed(manager, 'everything.trigger-long-running-operation');
  const stop = new AbortController();
  const progress: string[] = [];
  let firstProgress!: () => void;
  const progressed = new Promise<void>((resolve) => (firstProgress = resolve));
  const call = tool.run(
    '{"duration": 30, "steps": 60}',
    context(stop.signal, (text) => {
      progress.push(text);
      firstProgress();
    }),
  );
  await progressed;
  const stoppedAt = performance.now();
  stop.abort();
  const error = await rejection(call);
  return { error, progress, stopDelayMs: performance.now() - stoppedAt };
}

test('everything server over stdio: progress reaches the card, Stop ends a long call at once, the server stays usable', async (t) => {
  const manager = await startServers(t, [everythingServer()]);
  const { error, progress, stopDelayMs } = await stopLongRunningOperation(manager);
  assert.ok(error instanceof ToolError);
  assert.equal(error.message, 'stopped by the person');
  assert.ok(stopDelayMs < 1000, `stopped in ${stopDelayMs} ms`);
  assert.equal(progress[0], 'Progress: 1 of 60');
  assert.equal(await toolNamed(manager, 'everything.echo').run('still here', context()), 'Echo: still here');
});

test('everything server: an image goes to a vision model, and is described as omitted for others', async (t) => {
  const manager = await startServers(t, [everythingServer()]);
  const image = toolNamed(manager, 'everything.get-tiny-image');
  const seen = await image.runForModel('', context(), { vision: true });
  assert.equal(seen.images.length, 1);
  assert.equal(seen.images[0]!.mimeType, 'image/png');
  assert.ok(Buffer.from(seen.images[0]!.data, 'base64').subarray(1, 4).equals(Buffer.from('PNG')));
  assert.match(seen.text, /^Here's the image you requested:\n\[image: image\/png, \d+ KB\]\nThe image above is the MCP logo\.$/);
  const blind = await image.run('', context());
  assert.match(String(blind), /\[image: image\/png, \d+ KB, omitted: this model cannot see images\]/);
});

test('everything server over Streamable HTTP: tools listed, a call works, Stop ends a long call', async (t) => {
  const { url } = await startEverythingOverHttp(t, 'streamableHttp');
  const manager = await startServers(t, [httpServer('everything', url)]);
  const [status] = manager.status();
  assert.equal(status!.state, 'up', status!.lastError);
  assert.equal(status!.transport, 'streamable-http');
  assert.equal(await toolNamed(manager, 'everything.get-sum').run('{"a": 2, "b": "3"}', context()), 'The sum of 2 and 3 is 5.');
  const { error, progress, stopDelayMs } = await stopLongRunningOperation(manager);
  assert.equal(error.message, 'stopped by the person');
  assert.ok(stopDelayMs < 1000, `stopped in ${stopDelayMs} ms`);
  assert.equal(progress[0], 'Progress: 1 of 60');
});

test('an HTTP server that goes away: the call says so, and the server is marked down and retried', async (t) => {
  const { url, kill } = await startEverythingOverHttp(t, 'streamableHttp');
  const manager = await startServers(t, [httpServer('everything', url)]);
  const echo = toolNamed(manager, 'everything.echo');
  await kill();
  const error = await rejection(echo.run('hello', context()));
  assert.ok(error instanceof ToolError);
  assert.match(error.message, /^calling "everything" failed: fetch failed$/);
  await waitForStatus(manager, () => manager.status()[0]!.restarts >= 1 && manager.status()[0]!.state === 'down');
  assert.match(manager.status()[0]!.lastError!, /^could not start: /);
  assert.deepEqual(manager.tools(), []);
});

test('an HTTP server that restarted and forgot the session: Hearth initializes again by itself', async (t) => {
  const first = await startEverythingOverHttp(t, 'streamableHttp');
  const manager = await startServers(t, [httpServer('everything', first.url)]);
  await first.kill();
  await startEverythingOverHttp(t, 'streamableHttp', Number(new URL(first.url).port));
  const error = await rejection(toolNamed(manager, 'everything.echo').run('hello', context()));
  assert.match(error.message, /restarted and forgot this session; reconnecting/);
  await waitForStatus(manager, () => manager.status()[0]!.state === 'up');
  assert.equal(await toolNamed(manager, 'everything.echo').run('hello again', context()), 'Echo: hello again');
});

test('a call that outlives its time-out fails with a clear message and is cancelled on the server', async (t) => {
  const folder = temporaryFolder(t);
  const marker = path.join(folder, 'marker');
  const manager = await startServers(t, [{ ...crashingServer({ MARKER_FILE: marker }), timeoutMs: 300 }]);
  const wait = toolNamed(manager, 'crashy.wait');
  assert.equal(wait.timeoutMs, 300, 'the engine uses the same time-out');
  const error = await rejection(wait.run('', context()));
  assert.ok(error instanceof ToolError);
  assert.equal(error.message, 'no answer from "crashy" within 0.3 s');
  assert.equal(await markerText(marker), 'cancelled');
});

test('a server that only speaks the older SSE transport is reached through the fallback', async (t) => {
  const { url } = await startEverythingOverHttp(t, 'sse');
  const manager = await startServers(t, [httpServer('legacy', url)]);
  const [status] = manager.status();
  assert.equal(status!.state, 'up', status!.lastError);
  assert.equal(status!.transport, 'sse');
  assert.equal(await toolNamed(manager, 'legacy.echo').run('{"message": "hi"}', context()), 'Echo: hi');
});

test('Stop sends notifications/cancelled: the server sees its call cancelled', async (t) => {
  const folder = temporaryFolder(t);
  const marker = path.join(folder, 'marker');
  const manager = await startServers(t, [crashingServer({ MARKER_FILE: marker })]);
  const stop = new AbortController();
  const call = toolNamed(manager, 'crashy.wait').run('', context(stop.signal));
  await new Promise((resolve) => setTimeout(resolve, 100));
  stop.abort();
  assert.equal((await rejection(call)).message, 'stopped by the person');
  // The notification is one line on the server's stdin; give it a moment to be read.
  assert.equal(await markerText(marker), 'cancelled');
});

test('a server that crashes mid-call: the call fails with a clear message, the server is marked down, then restarted', async (t) => {
  const manager = await startServers(t, [crashingServer()]);
  const firstPid = manager.status()[0]!.pid!;
  const states: string[] = [];
  manager.on('status-changed', () => states.push(manager.status()[0]!.state));

  const error = await rejection(toolNamed(manager, 'crashy.crash').run('', context()));
  assert.ok(error instanceof ToolError);
  assert.match(error.message, /^the MCP server "crashy" stopped during the call \(fatal: simulated crash in the middle of a call\); it is being restarted$/);

  await waitForStatus(manager, () => manager.status()[0]!.state === 'up' && manager.status()[0]!.restarts === 1);
  assert.deepEqual(states.slice(0, 3), ['down', 'starting', 'up']);
  const [status] = manager.status();
  assert.notEqual(status!.pid, firstPid);
  assert.equal(isAlive(firstPid), false);
  assert.match(String(await toolNamed(manager, 'crashy.ping').run('', context())), new RegExp(`^pong from ${status!.pid}$`));
});

test('restart() replaces the server process at once and leaves the old one stopped', async (t) => {
  const manager = await startServers(t, [crashingServer()]);
  const firstPid = manager.status()[0]!.pid!;
  await manager.restart('crashy');
  const [status] = manager.status();
  assert.equal(status!.state, 'up');
  assert.equal(status!.restarts, 1);
  assert.notEqual(status!.pid, firstPid);
  assert.equal(isAlive(firstPid), false);
  assert.match(String(await toolNamed(manager, 'crashy.ping').run('', context())), new RegExp(`^pong from ${status!.pid}$`));
});

test('a server that fails at start shows its stderr as the error and is retried with growing back-off', async (t) => {
  const manager = await startServers(t, [crashingServer({ FAIL_AT_START: 'error: HA_TOKEN rejected' })], { initialRestartDelayMs: 50, maxRestartDelayMs: 200 });
  const [status] = manager.status();
  assert.equal(status!.state, 'down');
  assert.match(status!.lastError!, /^could not start: error: HA_TOKEN rejected$/);
  assert.ok(status!.retryAt instanceof Date);
  await waitForStatus(manager, () => manager.status()[0]!.restarts >= 2 && manager.status()[0]!.state === 'down');
  assert.deepEqual(manager.tools(), []);
});

test('tool names from a server are made safe, clashes are left out with a note, descriptions are defused', async (t) => {
  const manager = await startServers(t, [crashingServer()]);
  const weird = toolNamed(manager, 'crashy.weird_name_');
  assert.equal(weird.info.toolName, 'weird name]', 'the server is called with its own name');
  assert.equal(await weird.run('', context()), 'weird');
  assert.doesNotMatch(weird.description, /\[TOOL:/);
  assert.match(weird.description, /⟦TOOL:crashy\.crash\]/);
  assert.equal(manager.tools().filter((tool) => tool.name.toLowerCase() === 'crashy.ping').length, 1);
  assert.deepEqual(manager.status()[0]!.notes, ['tool "PING" left out: its name clashes with another tool']);
});

test('tools/list_changed: a tool the server adds appears, and the app is told', async (t) => {
  const manager = await startServers(t, [crashingServer()]);
  assert.equal(manager.tools().some((tool) => tool.name === 'crashy.extra'), false);
  const changed = new Promise<void>((resolve) => manager.once('tools-changed', resolve));
  await toolNamed(manager, 'crashy.add_tool').run('', context());
  await changed;
  assert.equal(await toolNamed(manager, 'crashy.extra').run('', context()), 'extra');
});

test('a server started through a wrapper leaves no grandchild behind, on close() or when it crashes', async (t) => {
  const folder = temporaryFolder(t);
  const pidFile = path.join(folder, 'grandchild');
  const manager = await startServers(t, [crashingServer({ GRANDCHILD_PID_FILE: pidFile })]);
  const helper = Number(await markerText(pidFile));
  assert.equal(isAlive(helper), true);
  await rejection(toolNamed(manager, 'crashy.crash').run('', context()));
  await waitForStatus(manager, () => manager.status()[0]!.state === 'up');
  assert.equal(await stillAliveAfterKill(helper), false, 'the crashed server\'s helper went with it');

  const restartedHelper = Number(await markerText(pidFile));
  assert.notEqual(restartedHelper, helper);
  assert.equal(isAlive(restartedHelper), true);
  await manager.close();
  assert.equal(await stillAliveAfterKill(restartedHelper), false, 'close() stopped the helper, which ignores SIGTERM');
});

test('close() stops every child process, including servers still starting, and leaves none behind', async (t) => {
  const folder = temporaryFolder(t);
  // Processes that were already there (tsx's own esbuild service) are not ours to check.
  const before = new Set(descendantProcesses());
  const newProcesses = () => descendantProcesses().filter((pid) => !before.has(pid));
  const waitForChild = async () => {
    const deadline = Date.now() + 5000;
    while (newProcesses().length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.ok(newProcesses().length > 0, 'the server process was spawned');
  };
  const manager = new McpServerManager([filesystemServer(folder), everythingServer(), crashingServer(), filesystemServer(folder, { name: 'off', enabled: false })], silentLogger);
  manager.start();
  await manager.whenStarted();
  const pids = manager.status().map((status) => status.pid).filter((pid): pid is number => pid !== undefined);
  assert.equal(pids.length, 3);
  assert.equal(manager.status()[3]!.state, 'disabled');
  for (const pid of pids) assert.equal(isAlive(pid), true);
  await manager.close();
  for (const pid of pids) assert.equal(isAlive(pid), false, `child ${pid} still running`);
  assert.deepEqual(manager.status().map((status) => status.state), ['stopped', 'stopped', 'stopped', 'disabled']);

  assert.deepEqual(newProcesses(), [], 'no process of ours is left');

  // Closing while a server is still starting (its child just spawned).
  const early = new McpServerManager([everythingServer()], silentLogger);
  early.start();
  await waitForChild();
  await early.close();
  await early.whenStarted();
  assert.equal(early.status()[0]!.state, 'stopped');
  assert.deepEqual(newProcesses(), [], 'no process of ours is left');
});

