/**
 * npx tsx scripts/bench/openai-relay.ts [--tokens 5000] [--rounds 9] [--latency-tokens 150] [--rate 50]
 *
 * Relay ratio and added latency for an OpenAI-compatible backend beside Ollama's, measured the same
 * way for both. Three processes, as in real use: the two stand-ins (Ollama and OpenAI-compatible)
 * in one, Hearth (the real app, with the model router, as server.ts builds it) in another, and the
 * clients here.
 *
 * - Relay ratio: a reply of N tokens at full speed read through Hearth's WebSocket, over the same
 *   reply read directly (ollama-js, or the openai package) — request to last token, median of
 *   back-to-back pairs.
 * - Added latency: a reply paced at R tokens/s; each token's arrival minus the time the stand-in
 *   scheduled it, through Hearth and directly; what Hearth adds is the difference.
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import bcrypt from 'bcrypt';
import OpenAI from 'openai';
import { loadConfig } from '../../src/config/config.js';
import { createChatModelFromConfig } from '../../src/engine/llm/chat-model-from-config.js';
import { openDatabase } from '../../src/storage/database.js';
import { startOllamaStandin, type ScriptedReply } from '../../tests/support/ollama-standin.js';
import { startOpenAiStandin, type OpenAiScriptedReply } from '../../tests/support/openai-standin.js';
import { buildHearth } from '../../tests/support/test-app.js';
import { directChat, login, relayedChat, type StreamRecord } from './hearth-client.js';
import { median, round, summarize } from './stats.js';

const sharedClock = (): number => performance.timeOrigin + performance.now();
const markerPattern = /bench-stream-\d+/;
const password = 'bench password for the relay';
const tokenText = 'token ';

type Kind = 'ollama' | 'openai';
type ToStandins = { type: 'reply'; reply: { tokens: number; tokensPerSecond: number }; id: number };
type FromStandins = { type: 'ready'; ollamaUrl: string; openAiUrl: string } | { type: 'ack'; id: number } | { type: 'started'; marker: string; at: number };

/** Child: both stand-ins, replying with the last script the parent set and reporting when each stream starts. */
async function runStandins(): Promise<void> {
  let reply = { tokens: 10, tokensPerSecond: 0 };
  const report = (text: string) => {
    const marker = markerPattern.exec(text)?.[0];
    if (marker) process.send!({ type: 'started', marker, at: sharedClock() } satisfies FromStandins);
  };
  const ollama = await startOllamaStandin();
  const openai = await startOpenAiStandin({ models: [{ id: 'bench-model' }] });
  ollama.models.push({ name: 'bench-model' });
  ollama.setHandler((request) => {
    report(request.messages.at(-1)?.content ?? '');
    return { tokens: reply.tokens, tokenText, tokensPerSecond: reply.tokensPerSecond } satisfies ScriptedReply;
  });
  openai.setHandler((request) => {
    report(String(request.messages.at(-1)?.content ?? ''));
    return { tokens: reply.tokens, tokenText, tokensPerSecond: reply.tokensPerSecond } satisfies OpenAiScriptedReply;
  });
  process.on('message', (message: ToStandins) => {
    reply = message.reply;
    process.send!({ type: 'ack', id: message.id } satisfies FromStandins);
  });
  process.on('disconnect', () => void Promise.all([ollama.close(), openai.close()]).then(() => process.exit(0)));
  process.send!({ type: 'ready', ollamaUrl: ollama.url, openAiUrl: openai.baseUrl } satisfies FromStandins);
}

/** Child: Hearth itself, built as src/server.ts builds it with createChatModelFromConfig. */
async function runHearth(): Promise<void> {
  const dataDir = process.env.DATA_DIR!;
  const config = loadConfig(process.env);
  const database = openDatabase(config.dataDir);
  const app = await buildHearth({
    config,
    database,
    chatModel: createChatModelFromConfig(config),
    credentials: { passwordHash: bcrypt.hashSync(password, 4), secretKey: 'bench-secret-key-that-is-long-enough-123' },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as import('node:net').AddressInfo;
  process.send!({ type: 'ready', url: `http://127.0.0.1:${port}` });
  process.on('disconnect', () => void app.close().then(() => {
    database.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  }));
}

function forkSelf(role: string, env: NodeJS.ProcessEnv = process.env): ChildProcess {
  return fork(fileURLToPath(import.meta.url), [`--${role}`], { execArgv: ['--import', 'tsx'], env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

function firstMessage<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${type} within 30 s`)), 30_000);
    child.once('exit', (code) => reject(new Error(`child exited (${code}) before ${type}`)));
    const listener = (message: { type: string }) => {
      if (message.type !== type) return;
      clearTimeout(timer);
      child.off('message', listener);
      resolve(message as T);
    };
    child.on('message', listener);
  });
}

/** The openai package reading the stand-in directly: the baseline for the OpenAI-compatible relay. */
async function directOpenAiChat(baseUrl: string, marker: string): Promise<StreamRecord> {
  const record: StreamRecord = { marker, requestedAt: Number.NaN, arrivals: [], characters: 0, finishedAt: Number.NaN, textFrames: 0 };
  const client = new OpenAI({ baseURL: baseUrl, apiKey: 'none', maxRetries: 0 });
  try {
    record.requestedAt = performance.now();
    const stream = await client.chat.completions.create({ model: 'bench-model', messages: [{ role: 'user', content: `Benchmark message ${marker}` }], stream: true });
    for await (const chunk of stream) {
      const now = performance.now();
      const text = chunk.choices[0]?.delta?.content ?? '';
      if (!text) continue;
      const before = Math.floor(record.characters / tokenText.length);
      record.characters += text.length;
      record.textFrames += 1;
      for (let index = before; index < Math.floor(record.characters / tokenText.length); index++) record.arrivals.push(now);
    }
    record.finishedAt = performance.now();
  } catch (error) {
    record.error = error instanceof Error ? error.message : String(error);
  }
  return record;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      tokens: { type: 'string', default: '5000' },
      rounds: { type: 'string', default: '9' },
      'latency-tokens': { type: 'string', default: '150' },
      rate: { type: 'string', default: '50' },
    },
  });
  const tokens = Number(values.tokens);
  const rounds = Number(values.rounds);
  const latencyTokens = Number(values['latency-tokens']);
  const rate = Number(values.rate);

  const standins = forkSelf('standins');
  const ready = await firstMessage<Extract<FromStandins, { type: 'ready' }>>(standins, 'ready');
  const starts = new Map<string, number>();
  standins.on('message', (message: FromStandins) => {
    if (message.type === 'started') starts.set(message.marker, message.at - performance.timeOrigin);
  });
  let replyId = 0;
  const setReply = async (reply: { tokens: number; tokensPerSecond: number }) => {
    const id = ++replyId;
    const acked = firstMessage(standins, 'ack');
    standins.send({ type: 'reply', reply, id } satisfies ToStandins);
    await acked;
  };

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-openai-bench-'));
  const hearth = forkSelf('hearth', {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    DATA_DIR: dataDir,
    MEMORY_FILE: path.join(dataDir, 'memory.md'),
    TOKENS_DIR: path.join(dataDir, 'tokens'),
    MCP_CONFIG: path.join(dataDir, 'mcp.json'),
    OLLAMA_HOST: ready.ollamaUrl,
    OPENAI_BASE_URL: ready.openAiUrl,
    OPENAI_NAME: 'Bench server',
    LOG_LEVEL: 'warn',
  });
  const { url: baseUrl } = await firstMessage<{ url: string }>(hearth, 'ready');
  const cookie = await login(baseUrl, password);
  const stop = () => {
    hearth.disconnect();
    standins.disconnect();
  };

  let markers = 0;
  const run = async (kind: Kind, side: 'relayed' | 'direct'): Promise<StreamRecord> => {
    const marker = `bench-stream-${++markers}`;
    const message = `Benchmark message ${marker}`;
    if (side === 'relayed') {
      const model = kind === 'ollama' ? 'bench-model' : '@openai/bench-model';
      return relayedChat({ baseUrl, cookie, model, marker, message, tokenChars: tokenText.length, timeoutMs: 60_000 });
    }
    return kind === 'ollama'
      ? directChat({ host: ready.ollamaUrl, model: 'bench-model', marker, message, tokenChars: tokenText.length, timeoutMs: 60_000 })
      : directOpenAiChat(ready.openAiUrl, marker);
  };
  const check = (record: StreamRecord, expected: number) => {
    if (record.error) throw new Error(`${record.marker}: ${record.error}`);
    if (record.arrivals.length !== expected) throw new Error(`${record.marker}: ${record.arrivals.length} of ${expected} tokens arrived`);
  };
  const rateOf = (record: StreamRecord) => record.arrivals.length / ((record.arrivals.at(-1)! - record.requestedAt) / 1000);

  const results: Record<string, unknown> = {};
  try {
    for (const kind of ['ollama', 'openai'] as const) {
      await setReply({ tokens, tokensPerSecond: 0 });
      for (let warm = 0; warm < 2; warm++) {
        await run(kind, 'direct');
        await run(kind, 'relayed');
      }
      const ratios: number[] = [];
      const direct: number[] = [];
      const relayed: number[] = [];
      for (let index = 0; index < rounds; index++) {
        const order = index % 2 === 0 ? (['direct', 'relayed'] as const) : (['relayed', 'direct'] as const);
        const pair: Partial<Record<'direct' | 'relayed', number>> = {};
        for (const side of order) {
          const record = await run(kind, side);
          check(record, tokens);
          pair[side] = rateOf(record);
        }
        direct.push(pair.direct!);
        relayed.push(pair.relayed!);
        ratios.push(pair.relayed! / pair.direct!);
      }

      await setReply({ tokens: latencyTokens, tokensPerSecond: rate });
      const latency = { relayed: [] as number[], direct: [] as number[], firstToken: [] as number[] };
      for (let index = 0; index < Math.max(2, Math.ceil(rounds / 2)); index++) {
        const records = await Promise.all([run(kind, 'relayed'), run(kind, 'direct')]);
        records.forEach((record, which) => {
          check(record, latencyTokens);
          const start = starts.get(record.marker);
          if (start === undefined) throw new Error(`no start time for ${record.marker}`);
          const list = which === 0 ? latency.relayed : latency.direct;
          record.arrivals.forEach((arrival, token) => list.push(arrival - (start + (token * 1000) / rate)));
          if (which === 0) latency.firstToken.push(record.arrivals[0]! - record.requestedAt);
        });
      }
      const relayedLatency = summarize(latency.relayed);
      const directLatency = summarize(latency.direct);
      results[kind] = {
        relayRatio: round(median(ratios), 3),
        directTokensPerSecond: round(median(direct), 0),
        relayedTokensPerSecond: round(median(relayed), 0),
        tokenLatencyMs: {
          relayedP50: round(relayedLatency.p50),
          relayedP99: round(relayedLatency.p99),
          directP50: round(directLatency.p50),
          directP99: round(directLatency.p99),
          addedP50: round(relayedLatency.p50 - directLatency.p50),
          addedP99: round(relayedLatency.p99 - directLatency.p99),
        },
        relayedFirstTokenMsP50: round(median(latency.firstToken)),
      };
      console.log(`${kind}: ${JSON.stringify(results[kind])}`);
    }
  } finally {
    stop();
  }
  console.log(
    JSON.stringify(
      { tokens, rounds, latencyTokens, tokensPerSecond: rate, cores: os.availableParallelism(), node: process.version, ...results },
      null,
      2,
    ),
  );
}

if (process.argv.includes('--standins')) await runStandins();
else if (process.argv.includes('--hearth')) await runHearth();
else
  await main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
