/**
 * The server under measurement: built and started as a person's `npm start` does it (through the
 * test harness's tests/support/server-process.ts), with a temporary DATA_DIR and known
 * credentials, timed until it answers, and watched through /proc.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import fs from 'node:fs';
import bcrypt from 'bcrypt';
import { freePort } from '../../tests/support/free-port.js';
import { launchEnvironment, npmStartCommand, root, startServer as startProcess, stopServer, waitUntilAnswering, type Running } from '../../tests/support/server-process.js';

export const projectRoot = root;

/**
 * Builds dist/ as `npm start` would before serving: scripts/start.js --if-stale, the launcher's own
 * check (a build only when a source is newer than the last one).
 */
export function ensureBuild(log: (line: string) => void): { built: boolean; seconds: number } {
  const started = performance.now();
  const result = spawnSync(process.execPath, [path.join(root, 'scripts', 'start.js'), '--if-stale'], { cwd: root, encoding: 'utf8', timeout: 300_000 });
  const seconds = (performance.now() - started) / 1000;
  if (result.error) throw new Error(`the build did not finish: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`the server does not build:\n${`${result.stdout}${result.stderr}`.split('\n').slice(-20).join('\n')}`);
  const built = result.stdout.includes('Building Hearth');
  if (built) log(`built the server (npm run build) in ${seconds.toFixed(1)} s`);
  return { built, seconds: built ? seconds : 0 };
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
  running: Running;
  /** Milliseconds from spawn until GET /login answered. */
  startupMs: number;
  /** CPU seconds (user + system) the process had used when it first answered. */
  startupCpuSeconds: number;
  stop(): Promise<void>;
}

/** Every process this one started, so an exit on failure can end them. */
const started = new Set<Running>();

export function killAllChildren(): void {
  for (const running of started) if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill('SIGKILL');
}

async function startTimed(command: string[], environment: Record<string, string>, probePath: string, logFile?: string): Promise<RunningServer> {
  const port = await freePort();
  const spawnedAt = performance.now();
  const running = startProcess({ ...environment, PORT: String(port) }, command, { logFile });
  started.add(running);
  void running.exited.then(() => started.delete(running));
  const baseUrl = `http://127.0.0.1:${port}`;
  const answeredAt = await waitUntilAnswering(running, `${baseUrl}${probePath}`, 120_000);
  const startupCpuSeconds = readCpuSeconds(running.child.pid!);
  return { baseUrl, pid: running.child.pid!, running, startupMs: answeredAt - spawnedAt, startupCpuSeconds, stop: () => stopServer(running) };
}

/** Hearth as `npm start` runs it (mode dist: node scripts/start.js), or src/server.ts under tsx; timed until GET /login answers. */
export function startServer(settings: ServerSettings): Promise<RunningServer> {
  const command = settings.mode === 'dist' ? npmStartCommand(settings.nodeArgs) : [process.execPath, ...settings.nodeArgs, '--import', 'tsx', path.join(root, 'src', 'server.ts')];
  const environment = {
    HOME: process.env.HOME ?? '',
    OLLAMA_HOST: settings.ollamaHost,
    DATA_DIR: settings.dataDir,
    MEMORY_FILE: path.join(settings.dataDir, 'memory.md'),
    TOKENS_DIR: path.join(settings.dataDir, 'tokens'),
    GOOGLE_CREDENTIALS: path.join(settings.dataDir, 'credentials.json'),
    PASSWORD_HASH: settings.passwordHash,
    SECRET_KEY: settings.secretKey,
    LOG_LEVEL: settings.logLevel,
    // As npm start and the systemd unit start it.
    ...(settings.mode === 'dist' ? launchEnvironment : {}),
    ...settings.env,
  };
  return startTimed(command, environment, '/login', settings.logFile);
}

/** The baseline for footprint: the smallest Node HTTP server, started and measured the same way. */
export function startBareNodeServer(): Promise<RunningServer> {
  const source = "require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.env.PORT), '127.0.0.1')";
  return startTimed([process.execPath, '-e', source], {}, '/');
}
