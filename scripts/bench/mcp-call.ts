/*
 * What Hearth's MCP layer adds to a call: p50 of a trivial read (the filesystem server's
 * read_text_file on a small file) through McpTool.run — params parsed and validated, the call,
 * the result described and defused — minus the same call made with the bare SDK Client.
 * Two server processes, one per side, called in alternating order so drift hits both alike.
 *   npx tsx scripts/bench/mcp-call.ts [calls=200]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import pino from 'pino';
import { loadConfig } from '../../src/config/config.js';
import { googleServicesFromConfig } from '../../src/providers/google/google-services.js';

const config = loadConfig({});
import { McpArgumentReader } from '../../src/providers/mcp/mcp-arguments.js';
import { describeCallToolResult } from '../../src/providers/mcp/mcp-results.js';
import { McpServerManager } from '../../src/providers/mcp/mcp-servers.js';
import { createMcpTools } from '../../src/providers/mcp/mcp-tool.js';
import { round, summarize } from './stats.js';

const calls = Number(process.argv[2] ?? 200);
const warmup = 20;
const serverFile = fileURLToPath(import.meta.resolve('@modelcontextprotocol/server-filesystem/dist/index.js'));

const folder = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-bench-mcp-')));
const file = path.join(folder, 'note.txt');
fs.writeFileSync(file, 'Milk, eggs, flour.\n');
const quiet = { debug() {}, info() {}, warn() {} };

const servers = new McpServerManager(
  [{ name: 'files', transport: 'stdio', command: process.execPath, args: [serverFile, folder], env: {}, cwd: undefined, enabled: true, allowTools: [], timeoutMs: 10_000 }],
  quiet,
);
const bare = new Client({ name: 'bench', version: '1' });

try {
  servers.start();
  await servers.whenStarted();
  await bare.connect(new StdioClientTransport({ command: process.execPath, args: [serverFile, folder], stderr: 'pipe' }));
  const tool = createMcpTools(servers, { config, logger: pino({ level: 'silent' }), now: () => new Date(), google: googleServicesFromConfig(config) }).find((candidate) => candidate.name === 'files.read_text_file')!;
  const context = { signal: new AbortController().signal, conversationId: 1, turn: { memoryRevision: '', vision: false }, reportProgress: () => {} };

  const viaHearth = async () => {
    const started = performance.now();
    await tool.run(file, context);
    return performance.now() - started;
  };
  const viaSdk = async () => {
    const started = performance.now();
    await bare.callTool({ name: 'read_text_file', arguments: { path: file } });
    return performance.now() - started;
  };

  const hearth: number[] = [];
  const sdk: number[] = [];
  for (let index = 0; index < warmup + calls; index++) {
    const [first, second] = index % 2 === 0 ? [viaHearth, viaSdk] : [viaSdk, viaHearth];
    const a = await first();
    const b = await second();
    if (index < warmup) continue;
    (first === viaHearth ? hearth : sdk).push(a);
    (first === viaHearth ? sdk : hearth).push(b);
  }

  // The layer's own work without any I/O: read + validate the params, describe the result.
  const reader = new McpArgumentReader();
  const schema = tool.info.inputSchema;
  const sample = await bare.callTool({ name: 'read_text_file', arguments: { path: file } });
  const localRuns = 10_000;
  const localStarted = performance.now();
  for (let index = 0; index < localRuns; index++) {
    reader.read('files.read_text_file', file, schema);
    describeCallToolResult(sample as Parameters<typeof describeCallToolResult>[0], { maxCharacters: 8000, keepImages: false });
  }
  const localMicroseconds = ((performance.now() - localStarted) / localRuns) * 1000;

  const hearthSummary = summarize(hearth);
  const sdkSummary = summarize(sdk);
  console.log(JSON.stringify({
    calls,
    hearthMs: { p50: round(hearthSummary.p50, 3), p99: round(hearthSummary.p99, 3) },
    bareSdkMs: { p50: round(sdkSummary.p50, 3), p99: round(sdkSummary.p99, 3) },
    addedP50Ms: round(hearthSummary.p50 - sdkSummary.p50, 3),
    layerWorkWithoutIoMicroseconds: round(localMicroseconds, 1),
    node: process.version,
  }, null, 2));
} finally {
  await bare.close();
  await servers.close();
  fs.rmSync(folder, { recursive: true, force: true });
}
