/**
 * The Ollama stand-in in its own process, so streaming tokens out does not share a thread with
 * the clients that time them (as a real Ollama would not).
 *
 * Child side (this file run with --import tsx): starts the project's stand-in, replies to every
 * chat with the script the parent set last, and reports when each stream started, keyed by the
 * `bench-stream-N` marker in the last user message. The stand-in paces token k at start + k/rate,
 * so that start time gives every token's scheduled send time.
 *
 * Parent side: `startStandinProcess()` forks it and talks to it over IPC.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startOllamaStandin, type ScriptedReply } from '../../tests/support/ollama-standin.js';

type ToChild = { type: 'reply'; reply: ScriptedReply; unmarked?: ScriptedReply; id: number } | { type: 'stop' };
type FromChild =
  | { type: 'ready'; url: string }
  | { type: 'ack'; id: number }
  | { type: 'started'; marker: string; at: number };

/** Milliseconds on a clock shared by processes on this machine (wall clock, sub-millisecond resolution). */
export const sharedClock = (): number => performance.timeOrigin + performance.now();

export const markerPattern = /bench-stream-\d+/;

export interface StandinProcess {
  url: string;
  pid: number;
  /**
   * Sets the reply for every later chat request; `unmarked`, when given, answers requests whose
   * last user message carries no marker (the rounds after a tool call, whose last message is the results).
   */
  setReply(reply: ScriptedReply, unmarked?: ScriptedReply): Promise<void>;
  /** Shared-clock time when the stream with this marker started, once it has. */
  startedAt(marker: string): number | undefined;
  stop(): Promise<void>;
}

async function runChild(): Promise<void> {
  let reply: ScriptedReply = {};
  let unmarkedReply: ScriptedReply | undefined;
  const standin = await startOllamaStandin({ port: 0 });
  standin.setHandler((request) => {
    const at = sharedClock();
    const last = [...request.messages].reverse().find((message) => message.role === 'user');
    const marker = last && markerPattern.exec(last.content)?.[0];
    if (marker) process.send!({ type: 'started', marker, at } satisfies FromChild);
    return marker ? reply : (unmarkedReply ?? reply);
  });
  process.on('message', (message: ToChild) => {
    if (message.type === 'reply') {
      reply = message.reply;
      unmarkedReply = message.unmarked;
      process.send!({ type: 'ack', id: message.id } satisfies FromChild);
    } else if (message.type === 'stop') {
      void standin.close().then(() => process.exit(0));
    }
  });
  // The parent went away (crashed or was killed): do not linger.
  process.on('disconnect', () => process.exit(0));
  process.send!({ type: 'ready', url: standin.url } satisfies FromChild);
}

export async function startStandinProcess(): Promise<StandinProcess> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--child'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const starts = new Map<string, number>();
  const acks = new Map<number, () => void>();
  let nextId = 1;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the Ollama stand-in process did not start within 20 s')), 20_000);
    child.once('exit', (code) => reject(new Error(`the Ollama stand-in process exited (${code}) before it was ready`)));
    child.on('message', (message: FromChild) => {
      if (message.type === 'ready') {
        clearTimeout(timer);
        resolve(message.url);
      } else if (message.type === 'started') {
        starts.set(message.marker, message.at - performance.timeOrigin);
      } else if (message.type === 'ack') {
        acks.get(message.id)?.();
        acks.delete(message.id);
      }
    });
  });

  return {
    url,
    pid: child.pid!,
    setReply(reply, unmarked) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the Ollama stand-in did not answer within 5 s')), 5000);
        acks.set(id, () => {
          clearTimeout(timer);
          resolve();
        });
        child.send({ type: 'reply', reply, unmarked, id } satisfies ToChild);
      });
    },
    // Stored already converted to this process's performance.now() clock.
    startedAt: (marker) => starts.get(marker),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      if (child.connected) child.send({ type: 'stop' } satisfies ToChild);
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}

if (process.argv.includes('--child') && process.send) await runChild();
