/**
 * The real server as a child process: built as `npm start` builds it, started with a temporary
 * DATA_DIR and known credentials, timed until its port answers, and watched through /proc.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import bcrypt from 'bcrypt';
import { freePort } from '../../tests/support/free-port.js';

export const projectRoot = path.resolve(import.meta.dirname, '..', '..');
const compiledServer = path.join(projectRoot, 'dist', 'src', 'server.js');

function newestChange(folder: string): number {
  let newest = 0;
  if (!fs.existsSync(folder)) return newest;
  for (const entry of fs.readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    newest = Math.max(newest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/**
 * Builds with the project's own `npm run build` (what `npm start` runs) when dist/ is missing or
 * older than a source file. Type errors outside src/ and tools/ do not stop the benchmark: tsc
 * still emits, and the server does not load those files.
 */
export function ensureBuild(log: (line: string) => void): { built: boolean; seconds: number; warnings: string[] } {
  const configs = ['tsconfig.json', 'tsconfig.build.json'].map((name) => path.join(projectRoot, name)).filter((file) => fs.existsSync(file));
  const inputs = Math.max(
    newestChange(path.join(projectRoot, 'src')),
    newestChange(path.join(projectRoot, 'tools')),
    ...configs.map((file) => fs.statSync(file).mtimeMs),
    fs.statSync(path.join(projectRoot, 'package.json')).mtimeMs,
  );
  if (fs.existsSync(compiledServer) && fs.statSync(compiledServer).mtimeMs >= inputs) return { built: false, seconds: 0, warnings: [] };
  log('building the server (npm run build)...');
  const started = performance.now();
  const result = spawnSync('npm', ['run', 'build', '--silent'], { cwd: projectRoot, encoding: 'utf8', timeout: 180_000 });
  const seconds = (performance.now() - started) / 1000;
  if (result.error) throw new Error(`the build did not finish: ${result.error.message}`);
  const errors = `${result.stdout ?? ''}${result.stderr ?? ''}`.split('\n').filter((line) => /error TS\d+/.test(line));
  const blocking = errors.filter((line) => /^(src|tools)\//.test(line));
  if (blocking.length > 0 || (result.status !== 0 && errors.length === 0) || !fs.existsSync(compiledServer)) {
    throw new Error(`the server does not build:\n${(blocking.length ? blocking : errors.length ? errors : [result.stderr]).slice(0, 20).join('\n')}`);
  }
  const warnings = errors.length > 0 ? [`the build reported ${errors.length} type error(s) outside src/ and tools/ (e.g. ${errors[0]}); the server itself built`] : [];
  return { built: true, seconds, warnings };
}

export interface MemorySample {
  rssKb: number;
  hwmKb: number;
}

export function readMemory(pid: number): MemorySample | undefined {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
    return { rssKb: field('VmRSS'), hwmKb: field('VmHWM') };
  } catch {
    return undefined;
  }
}

/** CPU seconds (user + system) the process has used so far. */
export function readCpuSeconds(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after "pid (comm) state".
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** Bytes the process has caused to be written to storage so far (/proc/<pid>/io write_bytes: files, not sockets); NaN when unreadable. */
export function readStorageWrittenBytes(pid: number): number {
  try {
    return Number(/^write_bytes: (\d+)$/m.exec(fs.readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? Number.NaN);
  } catch {
    return Number.NaN;
  }
}

/** Busy CPU seconds of the whole machine so far (all cores, from /proc/stat). */
export function readMachineBusySeconds(): number {
  try {
    const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const total = fields.reduce((sum, value) => sum + value, 0);
    return (total - fields[3]! - (fields[4] ?? 0)) / 100;
  } catch {
    return Number.NaN;
  }
}

/** Samples a process's RSS every `intervalMs`; `mark()` starts a new window for a phase's peak. */
export class MemoryWatch {
  #timer: NodeJS.Timeout;
  #peakKb = 0;
  #samples = 0;

  constructor(
    readonly pid: number,
    intervalMs = 50,
  ) {
    this.#timer = setInterval(() => this.sample(), intervalMs);
    this.#timer.unref();
  }

  sample(): MemorySample | undefined {
    const memory = readMemory(this.pid);
    if (memory) {
      this.#peakKb = Math.max(this.#peakKb, memory.rssKb);
      this.#samples += 1;
    }
    return memory;
  }

  /** Peak RSS since the last mark, in MB, and starts a new window. */
  mark(): { peakMb: number; samples: number } {
    this.sample();
    const result = { peakMb: this.#peakKb / 1024, samples: this.#samples };
    this.#peakKb = 0;
    this.#samples = 0;
    this.sample();
    return result;
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}

export interface ServerSettings {
  dataDir: string;
  ollamaHost: string;
  passwordHash: string;
  secretKey: string;
  logLevel: string;
  mode: 'dist' | 'tsx';
  logFile: string;
  nodeArgs: string[];
  /** More environment for the server (a benchmark's own switches). */
  env?: Record<string, string>;
}

/** A built server (`dist/`) with its data and log in `workRoot`, a fresh secret and `password`. */
export function builtServerSettings(workRoot: string, ollamaHost: string, password: string): ServerSettings {
  return {
    dataDir: path.join(workRoot, 'data'),
    ollamaHost,
    passwordHash: bcrypt.hashSync(password, 10),
    secretKey: randomBytes(32).toString('base64url'),
    logLevel: 'warn',
    mode: 'dist',
    logFile: path.join(workRoot, 'server.log'),
    nodeArgs: [],
  };
}

export interface RunningServer {
  baseUrl: string;
  pid: number;
  child: ChildProcess;
  /** Milliseconds from spawn until GET /login answered. */
  startupMs: number;
  stop(): Promise<void>;
}

/** Every child this process started, so an exit on failure can end them. */
const children = new Set<ChildProcess>();

export function killAllChildren(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

function get(url: string, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent: false, timeout: timeoutMs }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', reject);
  });
}

/** Polls until `url` answers, every few milliseconds; returns the time it first did. */
export async function waitUntilAnswering(url: string, child: ChildProcess, deadlineMs: number, describe: () => string): Promise<number> {
  const deadline = performance.now() + deadlineMs;
  while (performance.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the process exited (${child.exitCode ?? child.signalCode}) before it answered:\n${describe()}`);
    try {
      const status = await get(url, 2000);
      if (status > 0) return performance.now();
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 3));
  }
  throw new Error(`nothing answered at ${url} within ${deadlineMs} ms:\n${describe()}`);
}

function tail(file: string, lines = 30): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

function stopper(child: ChildProcess): () => Promise<void> {
  return async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 12_000);
    await exited;
    clearTimeout(timer);
    children.delete(child);
  };
}

export async function startServer(settings: ServerSettings): Promise<RunningServer> {
  const port = await freePort();
  const entry = [...settings.nodeArgs, ...(settings.mode === 'dist' ? [compiledServer] : ['--import', 'tsx', path.join(projectRoot, 'src', 'server.ts')])];
  const log = fs.openSync(settings.logFile, 'a');
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, entry, {
    cwd: projectRoot,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      HOST: '127.0.0.1',
      PORT: String(port),
      OLLAMA_HOST: settings.ollamaHost,
      DATA_DIR: settings.dataDir,
      MEMORY_FILE: path.join(settings.dataDir, 'memory.md'),
      TOKENS_DIR: path.join(settings.dataDir, 'tokens'),
      GOOGLE_CREDENTIALS: path.join(settings.dataDir, 'credentials.json'),
      PASSWORD_HASH: settings.passwordHash,
      SECRET_KEY: settings.secretKey,
      LOG_LEVEL: settings.logLevel,
      ...settings.env,
    },
    stdio: ['ignore', log, log],
  });
  fs.closeSync(log);
  children.add(child);
  child.once('exit', () => children.delete(child));
  const baseUrl = `http://127.0.0.1:${port}`;
  const answeredAt = await waitUntilAnswering(`${baseUrl}/login`, child, 30_000, () => tail(settings.logFile));
  return { baseUrl, pid: child.pid!, child, startupMs: answeredAt - spawnedAt, stop: stopper(child) };
}

/** The baseline for footprint: the smallest Node HTTP server, started and measured the same way. */
export async function startBareNodeServer(): Promise<RunningServer> {
  const port = await freePort();
  const source = `require('node:http').createServer((q, s) => s.end('ok')).listen(${port}, '127.0.0.1')`;
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, ['-e', source], { stdio: 'ignore' });
  children.add(child);
  child.once('exit', () => children.delete(child));
  const baseUrl = `http://127.0.0.1:${port}`;
  const answeredAt = await waitUntilAnswering(`${baseUrl}/`, child, 10_000, () => '');
  return { baseUrl, pid: child.pid!, child, startupMs: answeredAt - spawnedAt, stop: stopper(child) };
}

export function trackChild(child: ChildProcess): void {
  children.add(child);
  child.once('exit', () => children.delete(child));
}
