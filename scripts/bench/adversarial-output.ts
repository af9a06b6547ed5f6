/**
 * Adversarial model output: small models fall into long, repetitive output (endless brackets,
 * half-written tags, a call followed by a page of spaces). Each shape is streamed from the Ollama
 * stand-in through a real chat, and the figures are the server's CPU for the whole reply and how
 * long another client's `GET /login` waits meanwhile (polled every ~10 ms from a worker thread, so
 * the benchmark's own work on its main thread does not delay the probe).
 *
 * Part of `npm run bench` (phase "adversarial"), or on its own:
 *   npx tsx scripts/bench/adversarial-output.ts [--adversarial-kb=1024] [--adversarial-chunk-chars=16]
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ToolCallScanner } from '../../src/tools-engine/tool-call-scanner.js';
import { closeHttpClients, login, relayedChat } from './hearth-client.js';
import { ensureBuild, readCpuSeconds, builtServerSettings, startServer, type RunningServer } from './server-process.js';
import { startStandinProcess, type StandinProcess } from './standin-process.js';
import { round, summarize } from './stats.js';

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
  loginP99Ms: number;
  loginMaxMs: number;
  error?: string;
}

/** Polls `url` from a worker thread every `intervalMs` until stopped; resolves to each answer's time (negative: it failed after that long). */
function startLoginProbe(url: string, intervalMs: number): { stop(): Promise<number[]> } {
  const source = `
    const { parentPort, workerData } = require('node:worker_threads');
    const http = require('node:http');
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    let running = true;
    const samples = [];
    parentPort.on('message', () => { running = false; });
    const probe = () => new Promise((resolve) => {
      const started = performance.now();
      const request = http.get(workerData.url, { agent }, (response) => {
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
    const cpuBefore = readCpuSeconds(target.serverPid);
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
      loginP99Ms: round(latency.p99, 1),
      loginMaxMs: round(latency.max, 1),
      ...(record.error || failures ? { error: [record.error, failures ? `${failures} GET /login failed` : ''].filter(Boolean).join('; ') } : {}),
    };
    results.push(result);
    target.log(
      `  ${shape.name.padEnd(40)} server CPU ${result.serverCpuSeconds.toFixed(2)} s (scanner ${result.scannerCpuSeconds.toFixed(3)} s), wall ${result.wallSeconds.toFixed(2)} s, shown ${result.shownCharacters.toLocaleString('en')} chars; GET /login p99 ${result.loginP99Ms} ms, max ${result.loginMaxMs} ms (${result.probes} probes)${result.error ? `; ERROR ${result.error}` : ''}`,
    );
  }
  return results;
}

function readNumber(name: string, fallback: number): number {
  const flag = process.argv.find((argument) => argument.startsWith(`--${name}=`));
  const value = flag?.slice(name.length + 3) ?? process.env[`BENCH_${name.replace(/-/g, '_').toUpperCase()}`];
  const parsed = value === undefined ? fallback : Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new Error(`bench: --${name}=${value} is not a positive number`);
  return parsed;
}

/** On its own: builds if needed, starts the stand-in and the compiled server, runs every shape. */
async function main(): Promise<void> {
  const log = (line: string) => console.log(line);
  const kilobytes = readNumber('adversarial-kb', 1024);
  const chunkChars = readNumber('adversarial-chunk-chars', 16);
  for (const warning of ensureBuild(log).warnings) log(`note: ${warning}`);
  const workRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-adversarial-'));
  let standin: StandinProcess | undefined;
  let server: RunningServer | undefined;
  try {
    standin = await startStandinProcess();
    const password = randomBytes(12).toString('base64url');
    server = await startServer(builtServerSettings(workRoot, standin.url, password));
    const cookie = await login(server.baseUrl, password);
    log(`adversarial output: ${kilobytes} KB per shape in ${chunkChars}-character chunks`);
    const results = await measureAdversarialOutput({ baseUrl: server.baseUrl, cookie, model: 'llama3.2:latest', standin, serverPid: server.pid, log }, kilobytes * 1024, chunkChars);
    const worstCpu = Math.max(...results.map((result) => result.serverCpuSeconds));
    const worstLogin = Math.max(...results.map((result) => result.loginMaxMs));
    log(`worst: server CPU ${worstCpu} s per shape (target < 1 s), GET /login max ${worstLogin} ms (target < 50 ms)`);
  } finally {
    await server?.stop().catch(() => undefined);
    await standin?.stop().catch(() => undefined);
    closeHttpClients();
    fs.rmSync(workRoot, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
