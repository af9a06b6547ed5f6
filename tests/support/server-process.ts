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

export function startServer(environment: Record<string, string>, command: string[] = [process.execPath, '--import', 'tsx', 'src/server.ts']): Running {
  let output = '';
  const child = spawn(command[0]!, command.slice(1), {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...environment },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

export async function waitForOutput(running: Running, pattern: RegExp, timeoutMs = 20_000): Promise<RegExpMatchArray> {
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

