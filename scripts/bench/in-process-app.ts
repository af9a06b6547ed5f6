/**
 * Hearth built in the benchmark's own process against the Ollama stand-in, as the tests build it
 * (tests/support/test-app.ts): for figures that need the app's internals (Fastify's own request
 * clock) or a prepared chat.
 */
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import bcrypt from 'bcrypt';
import { loadConfig } from '../../src/config/config.js';
import { createOllamaChatModel } from '../../src/engine/llm/ollama-chat-model.js';
import type { ToolRegistry } from '../../src/engine/tools/tool-registry.js';
import type { SqliteDatabase } from '../../src/storage/database.js';
import { buildHearth, type TestHearth } from '../../tests/support/test-app.js';

export type BenchApp = TestHearth;

export interface BenchAppOptions {
  dataDir: string;
  database: SqliteDatabase;
  ollamaUrl: string;
  password: string;
  registry?: ToolRegistry;
}

/** The app with every file in `dataDir`; not listening yet, so hooks can still be added. */
export function buildBenchApp(options: BenchAppOptions): Promise<BenchApp> {
  const { dataDir, database, ollamaUrl, password, registry } = options;
  const config = loadConfig({
    OLLAMA_HOST: ollamaUrl,
    DATA_DIR: dataDir,
    MEMORY_FILE: path.join(dataDir, 'memory.md'),
    TOKENS_DIR: path.join(dataDir, 'tokens'),
    MCP_CONFIG: path.join(dataDir, 'mcp.json'),
  });
  return buildHearth({
    config,
    database,
    chatModel: createOllamaChatModel({ host: ollamaUrl }),
    // Cost 4: the benchmarks time pages, not logins.
    credentials: { passwordHash: bcrypt.hashSync(password, 4), secretKey: 'a-bench-secret-that-is-long-enough-0123456789' },
    ...(registry ? { registry } : {}),
  });
}

/** Listens on a free port of 127.0.0.1; returns the base URL. */
export async function listenLocally(app: BenchApp): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}
