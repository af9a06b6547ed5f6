import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { cookieHeader, csrfTokenFrom } from './test-app.js';

/* Starting Hearth as a real process (as a person or systemd would) and talking to it over HTTP. */

export const root = path.resolve(import.meta.dirname, '..', '..');

export interface Running {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * The environment `npm start` (package.json) and the systemd unit (deploy/hearth.service) give the
 * server: fixed glibc malloc thresholds. Left to itself glibc raises its trim and mmap thresholds as
 * a process frees large blocks, and then keeps what start-up freed (V8's compiler thread, module
 * loading): idle RSS landed at 78 or 84 MB from one start to the next. With the trim threshold
 * fixed, 75–79 MB, and a lower peak under load; the mmap threshold at 1 MB keeps blocks up to 1 MB
 * (a long reply's text) in the heap instead of a fresh mmap each, so the CPU stays the same
 * (docs/benchmarks.md). tests/unit/project/setup-files.test.ts checks both launchers set it.
 */
export const launchEnvironment: Readonly<Record<string, string>> = { MALLOC_TRIM_THRESHOLD_: '131072', MALLOC_MMAP_THRESHOLD_: '1048576' };

/** The command a person's `npm start` runs once the build is there (`exec node scripts/start.js`), with Node flags first; start it with `launchEnvironment`. */
export const npmStartCommand = (nodeArguments: string[] = []): string[] => [process.execPath, ...nodeArguments, path.join(root, 'scripts', 'start.js')];

export interface StartOptions {
  /** Write the output to this file instead of keeping it in memory (a long benchmark logs a lot). */
  logFile?: string;
}

/**
 * What every child process of a test starts from: PATH, and the test's own TMPDIR, so what a child
 * writes there (tsx's compile cache, a script's temporary files) goes with the test's folder and
 * never to the system's /tmp.
 */
export function childEnvironment(): Record<string, string> {
  return { PATH: process.env.PATH ?? '', ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}) };
}

/**
 * Hearth (or any command) as a child process in the project folder, with only PATH, HOST and
 * LOG_LEVEL from here and `environment` on top.
 */
export function startServer(environment: Record<string, string>, command: string[] = [process.execPath, '--import', 'tsx', 'src/server.ts'], options: StartOptions = {}): Running {
  let output = '';
  const log = options.logFile === undefined ? undefined : fs.openSync(options.logFile, 'a');
  const child = spawn(command[0]!, command.slice(1), {
    cwd: root,
    env: { ...childEnvironment(), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...environment },
    stdio: ['ignore', log ?? 'pipe', log ?? 'pipe'],
  });
  if (log !== undefined) fs.closeSync(log);
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const fromFile = () => {
    try {
      return fs.readFileSync(options.logFile!, 'utf8');
    } catch {
      return '';
    }
  };
  return { child, output: options.logFile === undefined ? () => output : fromFile, exited };
}

/**
 * Asks `url` every few milliseconds until anything answers; resolves with performance.now() at the
 * first answer. Fails when the process exits first or nothing answers in time.
 */
export async function waitUntilAnswering(running: Running, url: string, timeoutMs = 30_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (running.child.exitCode !== null || running.child.signalCode !== null) {
      throw new Error(`the process exited (${running.child.exitCode ?? running.child.signalCode}) before ${url} answered:\n${running.output().slice(-4000)}`);
    }
    try {
      // Answered once the headers are here: the body is read only to free the connection.
      const response = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(2000) });
      const answeredAt = performance.now();
      await response.arrayBuffer().catch(() => undefined);
      return answeredAt;
    } catch {
      // Not listening yet, or too slow to answer this time.
    }
    await new Promise((resolve) => setTimeout(resolve, 3));
  }
  throw new Error(`nothing answered at ${url} within ${timeoutMs} ms:\n${running.output().slice(-4000)}`);
}

/** SIGTERM, as systemd sends, then SIGKILL if it has not exited after `graceMs`; resolves once it has exited. */
export async function stopServer(running: Running, graceMs = 12_000): Promise<void> {
  if (running.child.exitCode !== null || running.child.signalCode !== null) return;
  running.child.kill('SIGTERM');
  const timer = setTimeout(() => running.child.kill('SIGKILL'), graceMs);
  await running.exited;
  clearTimeout(timer);
}

/** Waits for a line of output; the limit is generous because a server started from the sources under tsx can take 20 s at load 18. */
export async function waitForOutput(running: Running, pattern: RegExp, timeoutMs = 60_000): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const match = running.output().match(pattern);
    if (match) return match;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${pattern}; output:\n${running.output()}`);
}

export async function logIn(baseUrl: string, password: string): Promise<{ status: number; cookies: string }> {
  const page = await fetch(`${baseUrl}/login`);
  const cookies = cookieHeader(page.headers.getSetCookie());
  const response = await fetch(`${baseUrl}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: cookies, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ password, _csrf: csrfTokenFrom(await page.text()) }),
  });
  return { status: response.status, cookies: cookieHeader(response.headers.getSetCookie(), cookies) };
}

/** The processes whose parent is pid (Linux /proc). */
export function childrenOf(pid: number): number[] {
  return fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        // Field 4 of /proc/PID/stat, after the parenthesised command name.
        return Number(fs.readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

export const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

export function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

