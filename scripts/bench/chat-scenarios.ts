/**
 * Relay throughput, added latency and concurrency: streams through Hearth's WebSocket and, side by
 * side, the same stand-in read directly by ollama-js.
 *
 * Added latency per token: the stand-in sends token k at start + k/rate (its pace is anchored to
 * the stream's start, which it reports). A token's latency is its arrival minus that scheduled
 * time, for a relayed stream and for a direct one running at the same moment; what Hearth adds is
 * the difference between the two distributions. Batching into frames is part of what is measured:
 * a token that waits for the next frame arrives late by that wait.
 */
import type { ScriptedReply } from '../../tests/support/ollama-standin.js';
import { directChat, relayedChat, type StreamRecord } from './hearth-client.js';
import os from 'node:os';
import { readCpuSeconds, readMachineBusySeconds, type MemoryWatch } from './measured-server.js';
import type { StandinProcess } from './standin-process.js';
import { median, round, roundSummary, summarize, type Summary } from './stats.js';

export interface ChatTarget {
  baseUrl: string;
  cookie: string;
  ollamaHost: string;
  model: string;
  /** Undefined against a real Ollama: nothing to script, no stream start times. */
  standin: StandinProcess | undefined;
  tokenText: string;
  prompt: string;
  serverPid: number;
  memory: MemoryWatch;
  log(line: string): void;
}

let markers = 0;
const nextMarker = () => `bench-stream-${++markers}`;

function messageFor(target: ChatTarget, marker: string): string {
  return target.standin ? `Benchmark message ${marker}` : `${target.prompt} (${marker})`;
}

async function scriptReply(target: ChatTarget, reply: ScriptedReply): Promise<void> {
  await target.standin?.setReply({ tokenText: target.tokenText, ...reply });
}

function runRelayed(target: ChatTarget, timeoutMs: number): Promise<StreamRecord> {
  const marker = nextMarker();
  return relayedChat({
    baseUrl: target.baseUrl,
    cookie: target.cookie,
    model: target.model,
    marker,
    message: messageFor(target, marker),
    tokenChars: target.standin ? target.tokenText.length : 0,
    timeoutMs,
  });
}

function runDirect(target: ChatTarget, timeoutMs: number): Promise<StreamRecord> {
  const marker = nextMarker();
  return directChat({
    host: target.ollamaHost,
    model: target.model,
    marker,
    message: messageFor(target, marker),
    tokenChars: target.standin ? target.tokenText.length : 0,
    timeoutMs,
  });
}

function checkComplete(record: StreamRecord, expectedTokens: number | undefined): string | undefined {
  if (record.error) return record.error;
  if (expectedTokens !== undefined && record.arrivals.length !== expectedTokens) {
    return `received ${record.arrivals.length} of ${expectedTokens} tokens`;
  }
  if (record.arrivals.length === 0) return 'no text arrived';
  return undefined;
}

// ---- 1. Relay throughput ----

export interface ThroughputResult {
  tokens: number;
  rounds: number;
  /** Median over rounds; characters/s for a real Ollama, where chunks are not fixed tokens. */
  direct: { tokensPerSecond: number; bestTokensPerSecond: number; charactersPerSecond: number; firstToLastTokensPerSecond: number };
  relayed: {
    tokensPerSecond: number;
    bestTokensPerSecond: number;
    charactersPerSecond: number;
    firstToLastTokensPerSecond: number;
    /** WebSocket frames that carried the reply's text, and the mean time between them. */
    framesPerReply: number;
    frameGapMs: number;
    charactersPerFrame: number;
  };
  /**
   * Relayed over direct, request to last token: the median of each round's pair (a relayed and
   * a direct reply run back to back), so a machine that is busier for a moment hits both.
   */
  ratio: number;
  /** Fastest relayed over fastest direct: the least disturbed runs. */
  bestRatio: number;
  /** The same median of pairs, first token to last (leaves out the start of each reply). */
  streamRatio: number;
  /** Server CPU time per relayed token, median over rounds: unlike rates, it does not depend on how busy the machine is. */
  serverCpuMicrosecondsPerToken: number;
  /** CPU used by other programs meanwhile, as a share of all cores (see LatencyResult). */
  otherWorkPercent: number;
  errors: string[];
}

/**
 * Rates of one reply. Relayed text arrives merged into frames, so tokens are counted as characters
 * over characters per token: the stand-in's fixed chunk, or for a real Ollama the mean chunk of
 * the direct reply in the same round.
 */
function rates(record: StreamRecord, charactersPerToken: number) {
  const last = record.arrivals.at(-1)!;
  const seconds = (last - record.requestedAt) / 1000;
  const streamSeconds = (last - record.arrivals[0]!) / 1000;
  const tokens = record.characters / charactersPerToken;
  return {
    tokens,
    tokensPerSecond: tokens / seconds,
    charactersPerSecond: record.characters / seconds,
    firstToLastTokensPerSecond: streamSeconds > 0 ? (tokens - 1) / streamSeconds : Number.NaN,
    framesPerReply: record.textFrames,
    frameGapMs: record.textFrames > 1 ? streamSeconds * 1000 / (record.textFrames - 1) : Number.NaN,
    charactersPerFrame: record.characters / record.textFrames,
  };
}

export async function measureRelayThroughput(target: ChatTarget, tokens: number, rounds: number): Promise<ThroughputResult> {
  await scriptReply(target, { tokens, tokensPerSecond: 0 });
  const expected = target.standin ? tokens : undefined;
  const timeoutMs = target.standin ? 120_000 : 600_000;
  const tokenChars = target.standin ? target.tokenText.length : 0;
  type Rates = ReturnType<typeof rates>;
  const pairs: Array<{ direct: Rates; relayed: Rates; serverCpuPerToken: number }> = [];
  const errors: string[] = [];
  // Warm-up runs of each, so neither side pays for first-time compilation in the timed rounds.
  for (let index = 0; index < 2; index++) {
    await runDirect(target, timeoutMs);
    await runRelayed(target, timeoutMs);
  }
  const started = performance.now();
  const cpuBefore = markCpu(target);
  for (let index = 0; index < rounds; index++) {
    // Alternate which goes first, so a drift in the machine's speed does not favour one side.
    const order = index % 2 === 0 ? (['direct', 'relayed'] as const) : (['relayed', 'direct'] as const);
    const records: Partial<Record<'direct' | 'relayed', StreamRecord>> = {};
    let serverCpuSeconds = 0;
    for (const side of order) {
      const cpuBefore = readCpuSeconds(target.serverPid);
      const record = side === 'direct' ? await runDirect(target, timeoutMs) : await runRelayed(target, timeoutMs);
      if (side === 'relayed') serverCpuSeconds = readCpuSeconds(target.serverPid) - cpuBefore;
      const problem = checkComplete(record, expected);
      if (problem) errors.push(`${side}: ${problem}`);
      else records[side] = record;
    }
    const pair: Partial<(typeof pairs)[number]> = {};
    if (records.direct && records.relayed) {
      const charactersPerToken = tokenChars > 0 ? tokenChars : records.direct.characters / records.direct.textFrames;
      pair.direct = rates(records.direct, charactersPerToken);
      pair.relayed = rates(records.relayed, charactersPerToken);
      pair.serverCpuPerToken = (serverCpuSeconds * 1e6) / pair.relayed.tokens;
      pairs.push(pair as (typeof pairs)[number]);
    }
    target.log(`  relay round ${index + 1}/${rounds}: direct ${Math.round(pair.direct?.tokensPerSecond ?? NaN)} tok/s, relayed ${Math.round(pair.relayed?.tokensPerSecond ?? NaN)} tok/s`);
  }
  const otherWorkPercent = otherWork(target, cpuBefore, (performance.now() - started) / 1000);
  const direct = pairs.map((pair) => pair.direct);
  const relayed = pairs.map((pair) => pair.relayed);
  const pick = (list: Rates[], key: keyof Rates) => median(list.map((entry) => entry[key]));
  const best = (list: Rates[]) => Math.max(...list.map((entry) => entry.tokensPerSecond));
  return {
    tokens,
    rounds,
    direct: {
      tokensPerSecond: round(pick(direct, 'tokensPerSecond'), 0),
      bestTokensPerSecond: round(best(direct), 0),
      charactersPerSecond: round(pick(direct, 'charactersPerSecond'), 0),
      firstToLastTokensPerSecond: round(pick(direct, 'firstToLastTokensPerSecond'), 0),
    },
    relayed: {
      tokensPerSecond: round(pick(relayed, 'tokensPerSecond'), 0),
      bestTokensPerSecond: round(best(relayed), 0),
      charactersPerSecond: round(pick(relayed, 'charactersPerSecond'), 0),
      firstToLastTokensPerSecond: round(pick(relayed, 'firstToLastTokensPerSecond'), 0),
      framesPerReply: round(pick(relayed, 'framesPerReply'), 0),
      frameGapMs: round(pick(relayed, 'frameGapMs'), 1),
      charactersPerFrame: round(pick(relayed, 'charactersPerFrame'), 0),
    },
    ratio: round(median(pairs.map((pair) => pair.relayed.tokensPerSecond / pair.direct.tokensPerSecond)), 3),
    bestRatio: round(best(relayed) / best(direct), 3),
    streamRatio: round(median(pairs.map((pair) => pair.relayed.firstToLastTokensPerSecond / pair.direct.firstToLastTokensPerSecond)), 3),
    serverCpuMicrosecondsPerToken: round(median(pairs.map((pair) => pair.serverCpuPerToken)), 1),
    otherWorkPercent,
    errors,
  };
}

// ---- 2 and 3. Added latency, alone and with many chats ----

export interface LatencyResult {
  chats: number;
  directStreams: number;
  tokensPerChat: number;
  tokensPerSecond: number;
  /** Token arrival minus its scheduled send time, ms. Undefined against a real Ollama. */
  tokenLatency?: { relayed: Summary; direct: Summary; addedP50: number; addedP99: number };
  /** Request to first token, ms. */
  firstToken: { relayed: Summary; direct: Summary; addedP50: number; addedP99: number };
  /** Relayed first token minus the stream's start at the stand-in: the server's own work before it asks Ollama, plus the hop back. */
  serverStartMs?: Summary;
  framesPerSecondPerChat: number;
  errors: number;
  errorSamples: string[];
  peakServerRssMb: number;
  serverCpuPercent: number;
  /** The load generators' own CPU (of one core): when they run short of CPU, every figure above is late. */
  standinCpuPercent: number;
  clientCpuPercent: number;
  /**
   * CPU used by everything else on the machine meanwhile (other programs), as a share of all
   * cores: above a few percent, the tails (p99) measure the machine more than Hearth.
   */
  otherWorkPercent: number;
  seconds: number;
}

interface StreamSet {
  relayed: StreamRecord[];
  direct: StreamRecord[];
}

function tokenLatencies(target: ChatTarget, records: StreamRecord[], tokensPerSecond: number): number[] {
  const latencies: number[] = [];
  for (const record of records) {
    const start = target.standin?.startedAt(record.marker);
    if (start === undefined || record.error) continue;
    record.arrivals.forEach((arrival, index) => latencies.push(arrival - (start + (index * 1000) / tokensPerSecond)));
  }
  return latencies;
}

interface CpuMark {
  server: number;
  standin: number;
  client: NodeJS.CpuUsage;
  machine: number;
}

function markCpu(target: ChatTarget): CpuMark {
  return {
    server: readCpuSeconds(target.serverPid),
    standin: target.standin ? readCpuSeconds(target.standin.pid) : Number.NaN,
    client: process.cpuUsage(),
    machine: readMachineBusySeconds(),
  };
}

/** CPU that programs other than the server, the stand-in and these clients used since `before`, in % of all cores. */
function otherWork(target: ChatTarget, before: CpuMark, seconds: number): number {
  const now = markCpu(target);
  const ours =
    now.server - before.server +
    (target.standin ? now.standin - before.standin : 0) +
    (now.client.user + now.client.system - before.client.user - before.client.system) / 1e6;
  return round(Math.max(0, ((now.machine - before.machine - ours) / (seconds * os.availableParallelism())) * 100), 0);
}

function analyse(target: ChatTarget, streams: StreamSet, expectedTokens: number | undefined, tokensPerSecond: number, started: number, cpuBefore: CpuMark): LatencyResult {
  const errorSamples: string[] = [];
  let errors = 0;
  for (const [side, records] of [['relayed', streams.relayed], ['direct', streams.direct]] as const) {
    for (const record of records) {
      const problem = checkComplete(record, expectedTokens);
      if (!problem) continue;
      record.error ??= problem;
      if (side === 'relayed') errors += 1;
      if (errorSamples.length < 5) errorSamples.push(`${side} ${record.marker}: ${problem}`);
    }
  }
  const ok = (records: StreamRecord[]) => records.filter((record) => !record.error);
  const firstRelayed = summarize(ok(streams.relayed).map((record) => record.arrivals[0]! - record.requestedAt));
  const firstDirect = summarize(ok(streams.direct).map((record) => record.arrivals[0]! - record.requestedAt));
  const seconds = (performance.now() - started) / 1000;
  const client = process.cpuUsage(cpuBefore.client);
  const frames = ok(streams.relayed).map((record) => record.textFrames / ((record.arrivals.at(-1)! - record.arrivals[0]!) / 1000 || 1));
  const result: LatencyResult = {
    chats: streams.relayed.length,
    directStreams: streams.direct.length,
    tokensPerChat: expectedTokens ?? Number.NaN,
    tokensPerSecond,
    firstToken: {
      relayed: roundSummary(firstRelayed),
      direct: roundSummary(firstDirect),
      addedP50: round(firstRelayed.p50 - firstDirect.p50),
      addedP99: round(firstRelayed.p99 - firstDirect.p99),
    },
    framesPerSecondPerChat: round(median(frames), 1),
    errors,
    errorSamples,
    peakServerRssMb: round(target.memory.mark().peakMb, 1),
    serverCpuPercent: round(((readCpuSeconds(target.serverPid) - cpuBefore.server) / seconds) * 100, 0),
    standinCpuPercent: target.standin ? round(((readCpuSeconds(target.standin.pid) - cpuBefore.standin) / seconds) * 100, 0) : Number.NaN,
    clientCpuPercent: round(((client.user + client.system) / 1e6 / seconds) * 100, 0),
    otherWorkPercent: otherWork(target, cpuBefore, seconds),
    seconds: round(seconds, 1),
  };
  if (target.standin) {
    const relayed = summarize(tokenLatencies(target, ok(streams.relayed), tokensPerSecond));
    const direct = summarize(tokenLatencies(target, ok(streams.direct), tokensPerSecond));
    result.tokenLatency = {
      relayed: roundSummary(relayed),
      direct: roundSummary(direct),
      addedP50: round(relayed.p50 - direct.p50),
      addedP99: round(relayed.p99 - direct.p99),
    };
    const serverStart = ok(streams.relayed)
      .map((record) => ({ record, start: target.standin!.startedAt(record.marker) }))
      .filter((entry) => entry.start !== undefined)
      .map(({ record, start }) => start! - record.requestedAt);
    result.serverStartMs = roundSummary(summarize(serverStart));
  }
  return result;
}

/** One relayed chat beside one direct stream, `rounds` times in a row: latency with nothing else going on. */
export async function measureQuietLatency(target: ChatTarget, rounds: number, tokens: number, tokensPerSecond: number): Promise<LatencyResult> {
  await scriptReply(target, { tokens, tokensPerSecond });
  const expected = target.standin ? tokens : undefined;
  const timeoutMs = target.standin ? (tokens / tokensPerSecond) * 1000 + 30_000 : 600_000;
  target.memory.mark();
  const started = performance.now();
  const cpuBefore = markCpu(target);
  const streams: StreamSet = { relayed: [], direct: [] };
  for (let index = 0; index < rounds; index++) {
    // Against a real Ollama, one at a time: it would queue the second request behind the first.
    if (target.standin) {
      const [relayed, direct] = await Promise.all([runRelayed(target, timeoutMs), runDirect(target, timeoutMs)]);
      streams.relayed.push(relayed);
      streams.direct.push(direct);
    } else {
      streams.direct.push(await runDirect(target, timeoutMs));
      streams.relayed.push(await runRelayed(target, timeoutMs));
    }
  }
  return analyse(target, streams, expected, tokensPerSecond, started, cpuBefore);
}

/** `chats` chats streaming at once, started over `rampMs`, with up to `directSample` direct streams among them. */
export async function measureConcurrentChats(
  target: ChatTarget,
  chats: number,
  directSample: number,
  tokens: number,
  tokensPerSecond: number,
  rampMs: number,
): Promise<LatencyResult> {
  if (!target.standin) throw new Error('concurrency needs the stand-in');
  await scriptReply(target, { tokens, tokensPerSecond });
  const timeoutMs = (tokens / tokensPerSecond) * 1000 + rampMs + 60_000;
  const directCount = Math.min(chats, directSample);
  target.memory.mark();
  const started = performance.now();
  const cpuBefore = markCpu(target);
  const later = (delayMs: number) => new Promise((resolve) => setTimeout(resolve, delayMs));
  const relayed = Array.from({ length: chats }, (_, index) => later((index * rampMs) / chats).then(() => runRelayed(target, timeoutMs)));
  const direct = Array.from({ length: directCount }, (_, index) =>
    later(((index + 0.5) * rampMs) / directCount).then(() => runDirect(target, timeoutMs)),
  );
  const streams: StreamSet = { relayed: await Promise.all(relayed), direct: await Promise.all(direct) };
  return analyse(target, streams, tokens, tokensPerSecond, started, cpuBefore);
}
