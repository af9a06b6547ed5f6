/**
 * Adversarial model output: small models fall into long, repetitive output (endless brackets,
 * half-written tags, a call followed by a page of spaces). Each shape is streamed from the Ollama
 * stand-in through a real chat, and the figures are the server's CPU for the whole reply and how
 * long another client's `GET /login` waits meanwhile (polled every ~10 ms from a worker thread, so
 * the benchmark's own work on its main thread does not delay the probe), as p50/p99/max against
 * the target p99 < 100 ms.
 *
 * On its own, the server also reports its event-loop delay per shape (event-loop-monitor.js):
 * a slow GET /login with a quiet event loop, or a stall with little CPU in it, is the machine
 * (other processes) not running the server, not work the server did. The machine's load is
 * printed beside each shape, since on a shared machine it decides most of the tail.
 *
 * Part of `npm run bench` (phase "adversarial"), or on its own:
 *   npx tsx scripts/bench/adversarial-output.ts [--adversarial-kb=1024] [--adversarial-chunk-chars=16]
 *     [--adversarial-runs=3] [--server-node-args="--cpu-prof --cpu-prof-dir=/tmp/prof"]
 *   BENCH_ADVERSARIAL_ONLY=<part of a shape's name> runs only the shapes that match.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ToolCallScanner } from '../../src/engine/tools/tool-call-scanner.js';
import { closeHttpClients, login, relayedChat } from './hearth-client.js';
import { ensureBuild, readCpuSeconds, readMachineBusySeconds, readStorageWrittenBytes, builtServerSettings, startServer, type RunningServer } from './measured-server.js';
import { startStandinProcess, type StandinProcess } from './standin-process.js';
import { median, round, summarize } from './stats.js';

/** GET /login's p99 during a hostile reply must stay under this (issue "Hardening, round 3", point 10). */
export const loginP99TargetMs = 100;

export interface AdversarialShape {
  name: string;
  text: string;
}

/** The shapes, each about `bytes` long. */
export function adversarialShapes(bytes: number): AdversarialShape[] {
  const fill = (unit: string) => unit.repeat(Math.ceil(bytes / unit.length));
  return [
    { name: 'plain words (baseline: relaying alone)', text: fill('hello world ') },
    { name: 'a call, then spaces', text: `[TOOL:calculator]1+1[/TOOL]${fill(' ')}` },
    { name: 'an unclosed call, then text', text: `[TOOL:calculator]${fill('lorem ipsum ')}` },
    { name: 'a call with 100,000 a as params', text: `[TOOL:current_time]${'a'.repeat(100_000)}[/TOOL]` },
    { name: 'endless [', text: fill('[') },
    { name: 'endless [TOOL partial openings', text: fill('[TOOL') },
    { name: 'half-written openings, long names', text: fill(`[TOOL:${'a'.repeat(95)}`) },
    { name: 'endless backticks', text: fill('`') },
    { name: 'endless code fences', text: fill('```\n') },
    { name: 'repeated [TOOL:x] openings', text: fill('[TOOL:x]') },
    { name: 'repeated whole calls', text: fill('[TOOL:calculator]1[/TOOL]\n') },
    { name: 'endless <', text: fill('<') },
    { name: 'an unclosed <tool_call>, then text', text: `<tool_call>{"name": "calculator", "arguments": {"expression": "${fill('1+')}` },
    { name: 'Mistral [TOOL_CALLS], endless [', text: `[TOOL_CALLS] ${fill('[')}` },
    { name: 'repeated Hermes calls', text: fill('<tool_call>{"name": "calculator", "arguments": {"expression": "1"}}</tool_call>\n') },
  ];
}

export interface AdversarialResult {
  shape: string;
  characters: number;
  chunkChars: number;
  /** Server CPU (user + system) from the request to the end of the reply, all rounds. */
  serverCpuSeconds: number;
  /** CPU of the tool-call scanner alone on the same chunks, in this process: its share of the above. */
  scannerCpuSeconds: number;
  wallSeconds: number;
  /** Characters the person was shown. */
  shownCharacters: number;
  probes: number;
  loginP50Ms: number;
  loginP99Ms: number;
  loginMaxMs: number;
  /** The server's own event-loop delay over the same time, when it runs with event-loop-monitor.js. */
  eventLoop?: EventLoopReport;
  /** Busy cores of the whole machine meanwhile, the server included (of os.availableParallelism()). */
  machineBusyCores: number;
  /**
   * Megabytes the server wrote to storage meanwhile (the database, its log): saving a reply while
   * it streams should cost about its size, plus its size again when it ends.
   */
  serverWrittenMb: number;
  error?: string;
}

/** What event-loop-monitor.js reports for one window. */
export interface EventLoopReport {
  sequence: number;
  windowMs: number;
  samples: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The most main-thread CPU between two turns of a 10 ms timer: the longest the server itself held its loop. */
  maxCpuMs: number;
  mainThreadCpuMs: number;
  /** How long the main thread was ready to run but waited for a CPU (other processes had them). */
  mainThreadWaitMs: number;
  /** The longest garbage-collection pause (and its kind), and all pauses together. */
  gcMaxMs: number;
  gcMaxKind: string;
  gcTotalMs: number;
  /** Each stall over 40 ms: when (from the window's start), how long, the main thread's CPU in it and its wait for a CPU. */
  stalls: Array<{ atMs: number; ms: number; cpuMs: number; waitMs: number }>;
}

/**
 * Polls `url` from a worker thread every `intervalMs` until stopped; resolves to each answer's
 * time (negative: it failed after that long). It keeps the cookie of its first answer, as a
 * browser does: without it every probe made a new login-form session (17 KB written each).
 */
function startLoginProbe(url: string, intervalMs: number): { stop(): Promise<number[]> } {
  const source = `
    const { parentPort, workerData } = require('node:worker_threads');
    const http = require('node:http');
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    let running = true;
    const samples = [];
    let cookie;
    parentPort.on('message', () => { running = false; });
    const probe = () => new Promise((resolve) => {
      const started = performance.now();
      const request = http.get(workerData.url, { agent, headers: cookie ? { cookie } : {} }, (response) => {
        cookie ??= response.headers['set-cookie']?.map((line) => line.split(';')[0]).join('; ');
        response.resume();
        response.on('end', () => resolve(performance.now() - started));
      });
      request.on('error', () => resolve(-(performance.now() - started)));
    });
    (async () => {
      while (running) {
        samples.push(await probe());
        await new Promise((resolve) => setTimeout(resolve, workerData.intervalMs));
      }
      agent.destroy();
      parentPort.postMessage(samples);
    })();
  `;
  const worker = new Worker(source, { eval: true, workerData: { url, intervalMs } });
  const finished = new Promise<number[]>((resolve, reject) => {
    worker.once('message', (samples: number[]) => resolve(samples));
    worker.once('error', reject);
  });
  return {
    async stop() {
      worker.postMessage('stop');
      const samples = await finished;
      await worker.terminate();
      return samples;
    },
  };
}

/** The scanner's own cost: the same chunks pushed as the reply runner pushes them. */
function scannerCpuSeconds(text: string, chunkChars: number): number {
  const started = process.cpuUsage();
  const scanner = new ToolCallScanner();
  let cut = false;
  for (let index = 0; index < text.length && !cut; index += chunkChars) cut = scanner.push(text.slice(index, index + chunkChars)).cut;
  scanner.finish();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1e6;
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

export interface AdversarialTarget {
  baseUrl: string;
  cookie: string;
  model: string;
  standin: StandinProcess;
  serverPid: number;
  /** Ends the server's event-loop window and returns it (undefined: the server does not report one). */
  readEventLoop?: () => Promise<EventLoopReport | undefined>;
  log(line: string): void;
}

let markers = 0;

/** Streams each shape through one chat and measures it. */
export async function measureAdversarialOutput(target: AdversarialTarget, bytes: number, chunkChars: number): Promise<AdversarialResult[]> {
  const results: AdversarialResult[] = [];
  const only = process.env.BENCH_ADVERSARIAL_ONLY;
  for (const shape of adversarialShapes(bytes).filter((candidate) => !only || candidate.name.includes(only))) {
    // After a tool call, the next round (whose last message is the results) gets a short answer.
    await target.standin.setReply({ content: shape.text, chunkSize: chunkChars }, { content: 'Done.' });
    const marker = `bench-stream-${900_000 + ++markers}`; // the stand-in knows the first round by this marker
    const probe = startLoginProbe(`${target.baseUrl}/login`, 10);
    await sleep(100); // a few probes before the reply starts
    await target.readEventLoop?.(); // the server's window starts with the probes
    const machineBefore = readMachineBusySeconds();
    const cpuBefore = readCpuSeconds(target.serverPid);
    const writtenBefore = readStorageWrittenBytes(target.serverPid);
    const started = performance.now();
    const record = await relayedChat({
      baseUrl: target.baseUrl,
      cookie: target.cookie,
      model: target.model,
      marker,
      message: `Benchmark message ${marker}`,
      tokenChars: 0,
      timeoutMs: 600_000,
    });
    const wallSeconds = (performance.now() - started) / 1000;
    await sleep(200); // saving and the last frames
    const serverCpuSeconds = readCpuSeconds(target.serverPid) - cpuBefore;
    const serverWrittenMb = (readStorageWrittenBytes(target.serverPid) - writtenBefore) / 1024 / 1024;
    const machineBusyCores = (readMachineBusySeconds() - machineBefore) / (wallSeconds + 0.2);
    const eventLoop = await target.readEventLoop?.();
    const samples = await probe.stop();
    const failures = samples.filter((sample) => sample < 0).length;
    const latency = summarize(samples.map(Math.abs));
    const result: AdversarialResult = {
      shape: shape.name,
      characters: shape.text.length,
      chunkChars,
      serverCpuSeconds: round(serverCpuSeconds, 2),
      scannerCpuSeconds: round(scannerCpuSeconds(shape.text, chunkChars), 3),
      wallSeconds: round(wallSeconds, 2),
      shownCharacters: record.characters,
      probes: latency.count,
      loginP50Ms: round(latency.p50, 1),
      loginP99Ms: round(latency.p99, 1),
      loginMaxMs: round(latency.max, 1),
      ...(eventLoop ? { eventLoop } : {}),
      machineBusyCores: round(machineBusyCores, 2),
      serverWrittenMb: round(serverWrittenMb, 1),
      ...(record.error || failures ? { error: [record.error, failures ? `${failures} GET /login failed` : ''].filter(Boolean).join('; ') } : {}),
    };
    results.push(result);
    target.log(describeResult(result));
  }
  return results;
}

/** One line per shape: the work, GET /login, the server's event loop, the machine's load. */
export function describeResult(result: AdversarialResult): string {
  const loop = result.eventLoop;
  const worstStall = loop?.stalls.reduce<EventLoopReport['stalls'][number] | undefined>((worst, stall) => (worst && worst.ms >= stall.ms ? worst : stall), undefined);
  return [
    `  ${result.shape.padEnd(40)} server CPU ${result.serverCpuSeconds.toFixed(2)} s (scanner ${result.scannerCpuSeconds.toFixed(3)} s), wall ${result.wallSeconds.toFixed(2)} s, shown ${result.shownCharacters.toLocaleString('en')} chars, server wrote ${result.serverWrittenMb} MB to storage`,
    `    GET /login p50 ${result.loginP50Ms} / p99 ${result.loginP99Ms} / max ${result.loginMaxMs} ms (${result.probes} probes, p99 ${result.loginP99Ms < loginP99TargetMs ? 'pass' : 'FAIL'} vs < ${loginP99TargetMs} ms)`,
    loop
      ? `    server event loop delay p50 ${loop.p50Ms} / p99 ${loop.p99Ms} / max ${loop.maxMs} ms; ${loop.stalls.length} stall(s) > 40 ms${worstStall ? ` (longest ${worstStall.ms} ms: ${worstStall.cpuMs} ms on a CPU, ${worstStall.waitMs} ms waiting for one)` : ''}; most main-thread CPU in one turn ${loop.maxCpuMs} ms; longest GC pause ${loop.gcMaxMs} ms (${loop.gcMaxKind || 'none'}), ${loop.gcTotalMs} ms in all; main thread waited ${loop.mainThreadWaitMs} ms for a CPU, ran ${loop.mainThreadCpuMs} ms`
      : '    server event loop: not reported',
    `    machine: ${result.machineBusyCores} of ${os.availableParallelism()} cores busy (load average ${os.loadavg()[0]!.toFixed(1)})${result.error ? `; ERROR ${result.error}` : ''}`,
  ].join('\n');
}

/** Several runs of every shape: each shape's median p99 and worst max over the runs, against the target. */
export function summarizeRuns(runs: AdversarialResult[][]): { lines: string[]; failing: string[] } {
  const lines: string[] = [];
  const failing: string[] = [];
  for (const [index, first] of (runs[0] ?? []).entries()) {
    const same = runs.map((run) => run[index]).filter((result): result is AdversarialResult => result !== undefined);
    const p99 = median(same.map((result) => result.loginP99Ms));
    const loopP99 = same.every((result) => result.eventLoop) ? median(same.map((result) => result.eventLoop!.p99Ms)) : Number.NaN;
    const loopMax = Math.max(...same.map((result) => result.eventLoop?.maxMs ?? Number.NaN));
    const cpuMax = Math.max(...same.map((result) => result.eventLoop?.maxCpuMs ?? Number.NaN));
    const gcMax = Math.max(...same.map((result) => result.eventLoop?.gcMaxMs ?? Number.NaN));
    if (!(p99 < loginP99TargetMs)) failing.push(first.shape);
    lines.push(
      `  ${first.shape.padEnd(40)} GET /login p50 ${round(median(same.map((result) => result.loginP50Ms)), 1)}, p99 ${round(p99, 1)} (runs: ${same.map((result) => result.loginP99Ms).join(', ')}), max ${Math.max(...same.map((result) => result.loginMaxMs))} ms; event loop p99 ${round(loopP99, 1)}, max ${loopMax} ms, most CPU in one turn ${cpuMax} ms, longest GC ${gcMax} ms; wrote ${round(median(same.map((result) => result.serverWrittenMb)), 1)} MB to storage; ${p99 < loginP99TargetMs ? 'pass' : 'FAIL'}`,
    );
  }
  return { lines, failing };
}

function readNumber(name: string, fallback: number): number {
  const flag = process.argv.find((argument) => argument.startsWith(`--${name}=`));
  const value = flag?.slice(name.length + 3) ?? process.env[`BENCH_${name.replace(/-/g, '_').toUpperCase()}`];
  const parsed = value === undefined ? fallback : Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new Error(`bench: --${name}=${value} is not a positive number`);
  return parsed;
}

/** Asks the server (SIGUSR2) to close its event-loop window and waits for the report it writes. */
async function readEventLoopReport(pid: number, file: string): Promise<EventLoopReport | undefined> {
  const read = (): EventLoopReport | undefined => {
    try {
      return JSON.parse(fs.readFileSync(file, 'utf8')) as EventLoopReport;
    } catch {
      return undefined;
    }
  };
  const before = read()?.sequence ?? 0;
  process.kill(pid, 'SIGUSR2');
  for (let waited = 0; waited < 5000; waited += 10) {
    const report = read();
    if (report && report.sequence > before) return report;
    await sleep(10);
  }
  return undefined;
}

/** On its own: builds if needed, starts the stand-in and the compiled server, runs every shape. */
async function main(): Promise<void> {
  const log = (line: string) => console.log(line);
  const kilobytes = readNumber('adversarial-kb', 1024);
  const chunkChars = readNumber('adversarial-chunk-chars', 16);
  const runCount = readNumber('adversarial-runs', 1);
  const extraNodeArgs = (process.argv.find((argument) => argument.startsWith('--server-node-args='))?.slice(19) ?? '').split(/\s+/).filter(Boolean);
  ensureBuild(log);
  const workRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-adversarial-'));
  const loopFile = path.join(workRoot, 'event-loop.json');
  let standin: StandinProcess | undefined;
  let server: RunningServer | undefined;
  try {
    standin = await startStandinProcess();
    const password = randomBytes(12).toString('base64url');
    const settings = builtServerSettings(workRoot, standin.url, password);
    const monitor = path.join(import.meta.dirname, 'event-loop-monitor.js');
    server = await startServer({ ...settings, nodeArgs: [...extraNodeArgs, '--import', monitor], env: { HEARTH_BENCH_LOOP_FILE: loopFile } });
    const cookie = await login(server.baseUrl, password);
    const serverPid = server.pid;
    const readEventLoop = () => readEventLoopReport(serverPid, loopFile);
    log(`adversarial output: ${kilobytes} KB per shape in ${chunkChars}-character chunks, ${runCount} run(s); ${os.availableParallelism()} cores, load average ${os.loadavg().map((load) => load.toFixed(1)).join(' ')}`);
    const runs: AdversarialResult[][] = [];
    for (let run = 1; run <= runCount; run++) {
      if (runCount > 1) log(`run ${run} of ${runCount}:`);
      runs.push(await measureAdversarialOutput({ baseUrl: server.baseUrl, cookie, model: 'llama3.2:latest', standin, serverPid, readEventLoop, log }, kilobytes * 1024, chunkChars));
    }
    const all = runs.flat();
    const { lines, failing } = summarizeRuns(runs);
    log(`per shape over ${runCount} run(s) (median p99):`);
    for (const line of lines) log(line);
    const worstCpu = Math.max(...all.map((result) => result.serverCpuSeconds));
    log(`worst: server CPU ${worstCpu} s per shape (target < 1 s); GET /login p99 target < ${loginP99TargetMs} ms: ${failing.length === 0 ? 'PASS' : `FAIL (${failing.join('; ')})`}`);
  } finally {
    await server?.stop().catch(() => undefined);
    await standin?.stop().catch(() => undefined);
    closeHttpClients();
    fs.rmSync(workRoot, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
