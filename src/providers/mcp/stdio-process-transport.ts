/*
 * The stdio transport, with the server in a process group of its own. The SDK's
 * StdioClientTransport stops only the process it started, so a server launched through a
 * wrapper (`npx`, `sh -c`, `uvx`) can leave a grandchild running; here stopping the server
 * signals its whole group, and the group is cleared when its leader exits, so nothing is
 * orphaned. Shutdown order as the MCP spec asks: close stdin, then SIGTERM, then SIGKILL.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export interface StdioProcessParameters {
  command: string;
  args: string[];
  /** Added to a small safe default environment (PATH, HOME…): Hearth's own secrets are not passed on. */
  env: Record<string, string>;
  cwd: string | undefined;
}

// Short: Hearth's own shutdown waits on these (about a second in all). A server that means to
// exit on closed stdin does so at once; one that ignores it gets SIGTERM, then SIGKILL.
const stdinGraceMs = 400;
const termGraceMs = 400;
/** After the leader exits, how long its stdout may still deliver the last messages. */
const drainMs = 200;

export class StdioProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The server's stderr, readable from construction so nothing early is missed. */
  readonly stderr = new PassThrough();
  #child: ChildProcessWithoutNullStreams | undefined;
  #exited: Promise<void> = Promise.resolve();
  readonly #readBuffer = new ReadBuffer();
  #closed = false;

  constructor(private readonly parameters: StdioProcessParameters) {}

  get pid(): number | null {
    return this.#child?.pid ?? null;
  }

  start(): Promise<void> {
    if (this.#child) throw new Error('StdioProcessTransport already started');
    return new Promise((resolve, reject) => {
      const child = spawn(this.parameters.command, this.parameters.args, {
        env: { ...getDefaultEnvironment(), ...this.parameters.env },
        cwd: this.parameters.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true, // its own process group, so the group can be signalled as one
      });
      this.#child = child;
      let finished = false;
      let markExited!: () => void;
      this.#exited = new Promise((resolve) => (markExited = resolve));
      const finish = () => {
        if (finished) return;
        finished = true;
        this.#signalGroup(child, 'SIGKILL'); // anything the server left behind goes with it
        markExited();
        this.#finishClose();
      };
      child.once('close', finish);
      child.once('exit', () => setTimeout(finish, drainMs).unref());
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
        if (child.pid === undefined) finish(); // never started: nothing to wait for
      });
      child.once('spawn', () => resolve());
      child.stdin.on('error', (error) => this.onerror?.(error));
      child.stdout.on('error', (error) => this.onerror?.(error));
      child.stdout.on('data', (chunk: Buffer) => this.#receive(chunk));
      child.stderr.pipe(this.stderr);
    });
  }

  #receive(chunk: Buffer): void {
    try {
      this.#readBuffer.append(chunk);
    } catch (error) {
      this.onerror?.(error as Error);
      void this.close();
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.#readBuffer.readMessage();
      } catch (error) {
        // A line that is not JSON-RPC (a stray log line on stdout): report it and read on.
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) break;
      this.onmessage?.(message);
    }
  }

  #signalGroup(child: ChildProcessWithoutNullStreams, signal: NodeJS.Signals): void {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // the group is already gone
    }
  }

  #finishClose(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#readBuffer.clear();
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin || stdin.destroyed || !stdin.writable) throw new Error('Not connected');
    if (!stdin.write(serializeMessage(message))) await new Promise((resolve) => stdin.once('drain', resolve));
  }

  /** Resolves once the server and everything in its process group have exited. */
  async close(): Promise<void> {
    const child = this.#child;
    if (!child) return;
    const exitedWithin = (milliseconds: number) =>
      Promise.race([this.#exited.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), milliseconds).unref())]);
    child.stdin.end();
    if (!(await exitedWithin(stdinGraceMs))) {
      this.#signalGroup(child, 'SIGTERM');
      if (!(await exitedWithin(termGraceMs))) {
        this.#signalGroup(child, 'SIGKILL');
        await this.#exited;
      }
    }
  }
}
