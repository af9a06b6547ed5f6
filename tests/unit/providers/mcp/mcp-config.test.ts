import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { loadMcpConfig, type HttpServerConfig, type StdioServerConfig } from '../../../../src/providers/mcp/mcp-config.js';

function writeConfig(t: TestContext, text: string): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-mcp-config-'));
  t.after(() => fs.rmSync(folder, { recursive: true, force: true }));
  const file = path.join(folder, 'mcp.json');
  fs.writeFileSync(file, text);
  return file;
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

test('the usual mcp.json shape gives a stdio and an http server, with ${VAR} taken from the environment', (t) => {
  const file = writeConfig(t, json({
    mcpServers: {
      files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '${HOME_DIR}'], env: { LOG: '${LOG_LEVEL:-warn}' } },
      home: { url: 'http://ha.local:8123/mcp', headers: { Authorization: 'Bearer ${HA_TOKEN}' }, allowTools: ['get_state'], timeoutSeconds: 5 },
    },
  }));
  const { servers, problems } = loadMcpConfig(file, { HOME_DIR: '/home/ann', HA_TOKEN: 's3cret' });
  assert.deepEqual(problems, []);
  const [files, home] = servers as [StdioServerConfig, HttpServerConfig];
  assert.equal(files.transport, 'stdio');
  assert.deepEqual(files.args, ['-y', '@modelcontextprotocol/server-filesystem', '/home/ann']);
  assert.deepEqual(files.env, { LOG: 'warn' }, 'the :- fallback applies when the variable is unset');
  assert.equal(files.enabled, true);
  assert.deepEqual(files.allowTools, []);
  assert.equal(files.timeoutMs, 60_000);
  assert.equal(home.transport, 'http');
  assert.equal(home.headers.Authorization, 'Bearer s3cret');
  assert.deepEqual(home.allowTools, ['get_state']);
  assert.equal(home.timeoutMs, 5000);
});

test('a missing file means no servers and no problem', () => {
  assert.deepEqual(loadMcpConfig(path.join(os.tmpdir(), 'no-such-hearth-mcp.json'), {}), {
    file: path.join(os.tmpdir(), 'no-such-hearth-mcp.json'),
    servers: [],
    problems: [],
  });
});

test('a typo names the file, the entry and the near key; the other servers still load', (t) => {
  const file = writeConfig(t, json({
    mcpServers: {
      files: { comand: 'npx', args: ['server'] },
      notes: { command: 'notes-server' },
    },
  }));
  const { servers, problems } = loadMcpConfig(file, {});
  assert.deepEqual(servers.map((server) => server.name), ['notes']);
  assert.ok(problems.includes('mcp.json, server "files": unknown key "comand" (did you mean "command"?), ignored'), problems.join('\n'));
  assert.ok(problems.some((problem) => /^mcp\.json, server "files": needs either "command" .* or "url" .*found neither$/.test(problem)), problems.join('\n'));
});

test('an unset ${VAR} is named and that server is not started', (t) => {
  const file = writeConfig(t, json({ mcpServers: { home: { url: 'http://ha.local/mcp', headers: { Authorization: 'Bearer ${HA_TOKEN}' } } } }));
  const { servers, problems } = loadMcpConfig(file, { OTHER: 'x' });
  assert.deepEqual(servers, []);
  assert.deepEqual(problems, ['mcp.json, server "home": ${HA_TOKEN} is not set in the environment (put it in .env); server not started']);
});

test('bad JSON is reported with its line and column', (t) => {
  const file = writeConfig(t, '{\n  "mcpServers": {\n    "files": { "command": "npx" "args": [] }\n  }\n}\n');
  const { servers, problems } = loadMcpConfig(file, {});
  assert.deepEqual(servers, []);
  assert.equal(problems.length, 1);
  assert.match(problems[0]!, /^mcp\.json: not valid JSON at line 3, column 33: invalid character '\\"'/);
});

test('comments and trailing commas, as people leave them in hand-edited files, are fine', (t) => {
  const file = writeConfig(t, '{\n  // my servers\n  "mcpServers": {\n    "files": { "command": "npx", },\n  },\n}\n');
  const { servers, problems } = loadMcpConfig(file, {});
  assert.deepEqual(problems, []);
  assert.equal(servers.length, 1);
});

test('a disabled server is kept (for the tools page) but marked disabled', (t) => {
  const file = writeConfig(t, json({ mcpServers: { files: { command: 'npx', enabled: false }, all: { command: 'x', allowTools: true } } }));
  const { servers, problems } = loadMcpConfig(file, {});
  assert.deepEqual(problems, []);
  assert.equal(servers[0]!.enabled, false);
  assert.equal(servers[1]!.allowTools, true);
});

test('wrong types, both command and url, and a bad url are each explained', (t) => {
  const file = writeConfig(t, json({
    mcpServers: {
      both: { command: 'x', url: 'http://a/mcp' },
      args: { command: 'x', args: 'not a list' },
      enabled: { command: 'x', enabled: 'yes' },
      url: { url: 'ftp://files.example/mcp' },
      timeout: { command: 'x', timeoutSeconds: 0 },
      type: { command: 'x', type: 'http' },
      allow: { command: 'x', allowTools: 'all' },
    },
  }));
  const { servers, problems } = loadMcpConfig(file, {});
  assert.deepEqual(servers, []);
  assert.deepEqual(problems, [
    'mcp.json, server "both": needs either "command" (a program to start) or "url" (a server to reach), not both',
    'mcp.json, server "args": "args" must be a list of text',
    'mcp.json, server "enabled": "enabled" must be true or false',
    'mcp.json, server "url": "url" "ftp://files.example/mcp" is not an http or https URL',
    'mcp.json, server "timeout": "timeoutSeconds" must be a number from 1 to 3600',
    'mcp.json, server "type": "type": "http" does not match "command"',
    'mcp.json, server "allow": "allowTools" must be true or a list of tool names',
  ]);
});

test('server names are made safe for tool names, and two that would clash are refused', (t) => {
  const file = writeConfig(t, json({ mcpServers: { 'my files': { command: 'a' }, 'My-Files': { command: 'b' }, '!!!': { command: 'c' }, 'home.assistant': { url: 'http://h/mcp', type: 'sse' } } }));
  const { servers, problems } = loadMcpConfig(file, {});
  assert.deepEqual(servers.map((server) => [server.name, server.transport]), [['my_files', 'stdio'], ['home_assistant', 'sse']]);
  assert.deepEqual(problems, [
    'mcp.json, server "My-Files": its tools would share the name "My-Files" with server "my files"; rename one',
    'mcp.json, server "!!!": the name needs at least one letter or digit',
  ]);
});

test('a near-miss top-level key gets a "did you mean"', (t) => {
  const file = writeConfig(t, json({ mcpServer: { files: { command: 'npx' } } }));
  const { servers, problems } = loadMcpConfig(file, {});
  assert.deepEqual(servers, []);
  assert.deepEqual(problems, ['mcp.json: unknown top-level key "mcpServer" (did you mean "mcpServers"?), ignored']);
});

test('a url that is not a web address is quoted as written: the ${VAR} secret in it is never shown', (t) => {
  // A scheme left out: after expansion "homeassistant.local:" reads as the scheme, so it is refused.
  const file = writeConfig(t, json({ mcpServers: { home: { url: 'homeassistant.local:8123/api/mcp?token=${HA_TOKEN}' } } }));
  const { servers, problems } = loadMcpConfig(file, { HA_TOKEN: 'eyJ-very-secret' });
  assert.deepEqual(servers, []);
  assert.deepEqual(problems, ['mcp.json, server "home": "url" "homeassistant.local:8123/api/mcp?token=${HA_TOKEN}" is not an http or https URL']);
  const unparsable = writeConfig(t, json({ mcpServers: { home: { url: 'http://[${HA_TOKEN}/mcp' } } }));
  const second = loadMcpConfig(unparsable, { HA_TOKEN: 'eyJ-very-secret' });
  assert.deepEqual(second.problems, ['mcp.json, server "home": "url" "http://[${HA_TOKEN}/mcp" is not an http or https URL']);
});
