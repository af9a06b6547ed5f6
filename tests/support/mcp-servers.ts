/* Real MCP servers for tests: the npm reference servers and the tiny crashing one, all local. */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestContext } from 'node:test';
import { projectRoot } from '../../src/config/project-root.js';
import type { McpServerConfig, StdioServerConfig } from '../../src/providers/mcp/mcp-config.js';
import type { McpServerManager } from '../../src/providers/mcp/mcp-servers.js';
import { freePort } from './free-port.js';

const moduleFile = (specifier: string) => fileURLToPath(import.meta.resolve(specifier));
export const filesystemServerFile = moduleFile('@modelcontextprotocol/server-filesystem/dist/index.js');
export const everythingServerFile = moduleFile('@modelcontextprotocol/server-everything/dist/index.js');
// Plain JavaScript, found from the project root: the same file whether these tests run from source or compiled.
export const crashingServerFile = path.join(projectRoot, 'tests', 'support', 'mcp-crashing-server.mjs');

export const silentLogger = { debug() {}, info() {}, warn() {} };

export function stdioServer(name: string, args: string[], extra: Partial<StdioServerConfig> = {}): StdioServerConfig {
  return { name, transport: 'stdio', command: process.execPath, args, env: {}, cwd: undefined, enabled: true, allowTools: [], timeoutMs: 20_000, ...extra };
}

export const filesystemServer = (folder: string, extra: Partial<StdioServerConfig> = {}) => stdioServer('files', [filesystemServerFile, folder], extra);
export const everythingServer = (extra: Partial<StdioServerConfig> = {}) => stdioServer('everything', [everythingServerFile, 'stdio'], extra);
export const crashingServer = (env: Record<string, string> = {}) => stdioServer('crashy', [crashingServerFile], { env });

export function httpServer(name: string, url: string, extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return { name, transport: 'http', url, headers: {}, enabled: true, allowTools: [], timeoutMs: 20_000, ...extra } as McpServerConfig;
}

/** The everything server as its own process, over Streamable HTTP (`/mcp`) or the older SSE (`/sse`). */
export async function startEverythingOverHttp(t: TestContext, transport: 'streamableHttp' | 'sse', port?: number): Promise<{ url: string; pid: number; kill: () => Promise<void> }> {
  port ??= await freePort();
  const child = spawn(process.execPath, [everythingServerFile, transport], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  t.after(kill);
  child.stdout.resume();
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`the everything server did not start: ${output}`)), 15_000);
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (/listening on port|running on port/i.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`the everything server exited (${code}): ${output}`)));
  });
  return { url: `http://127.0.0.1:${port}/${transport === 'sse' ? 'sse' : 'mcp'}`, pid: child.pid!, kill };
}

/** Resolves when the condition holds, checked at each status change; fails after `timeoutMs`. */
export function waitForStatus(manager: McpServerManager, condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!condition()) return;
      clearTimeout(timer);
      manager.off('status-changed', check);
      resolve();
    };
    const timer = setTimeout(() => {
      manager.off('status-changed', check);
      reject(new Error(`timed out waiting; status: ${JSON.stringify(manager.status())}`));
    }, timeoutMs);
    manager.on('status-changed', check);
    check();
  });
}

/** Running, as opposed to gone or a zombie (killed, waiting for its new parent, init, to reap it). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Every process descended from this one (Linux /proc): what an orphan check looks for. */
export function descendantProcesses(root = process.pid): number[] {
  const parents = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // "pid (name) state ppid …": the name may hold spaces and parentheses, so read after the last ")".
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(entry), parent);
    } catch {
      // the process ended while we looked
    }
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const current = queue.shift()!;
    for (const [pid, parent] of parents) {
      if (parent === current) {
        found.push(pid);
        queue.push(pid);
      }
    }
  }
  return found;
}
