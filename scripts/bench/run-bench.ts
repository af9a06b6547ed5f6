/**
 * npm run bench: starts the real server (as `npm start` does) against the Ollama stand-in, logs
 * in, drives real WebSocket clients and a browser, and prints each figure beside its baseline and
 * target. The figures go to bench-results.json. Settings: docs/benchmarks.md.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import bcrypt from 'bcrypt';
import { readBenchOptions, chunkText, phaseNames, type BenchOptions } from './bench-options.js';
import {
  measureConcurrentChats,
  measureQuietLatency,
  measureRelayThroughput,
  type ChatTarget,
  type LatencyResult,
  type ThroughputResult,
} from './chat-scenarios.js';
import { loginP99TargetMs, measureAdversarialOutput, type AdversarialResult } from './adversarial-output.js';
import { measureBrowserRender, type BrowserRenderResult } from './browser-render.js';
import { closeHttpClients, httpGet, login } from './hearth-client.js';
import { measureHistory, seedHistory, type HistoryResult } from './history-scale.js';
import { launchBrowser, measurePageInBrowser, weighPageOverHttp, type BrowserPageResult, type HttpPageWeight } from './page-weight.js';
import { kb, mb, ms, formatNumber, printTable, type ReportRow, type TargetCheck } from './report.js';
import {
  ensureBuild,
  killAllChildren,
  MemoryWatch,
  projectRoot,
  readCpuSeconds,
  readMemory,
  startBareNodeServer,
  startServer,
  type RunningServer,
} from './measured-server.js';
import { startStandinProcess, type StandinProcess } from './standin-process.js';
import { textFrameIntervalMs } from '../../src/web/chat/socket-sender.js';
import { productionInstallSize, type InstallSize } from './install-size.js';
import { median, round } from './stats.js';

const log = (line: string) => console.log(line);
// Streamed text is merged into a frame per element at most every 50 ms (a phone lays text out at
// most 20 times a second), so a token waits up to that long by design; the target is what the
// server adds beyond it.
const addedTokenLimitMs = textFrameIntervalMs + 5;
const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** Share of the machine's CPU busy with other work, over one second, before the benchmark starts anything. */
async function backgroundBusyPercent(): Promise<number> {
  const read = () => {
    const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const idle = fields[3]! + (fields[4] ?? 0);
    return { idle, total: fields.reduce((sum, value) => sum + value, 0) };
  };
  try {
    const before = read();
    await sleep(1000);
    const after = read();
    return round((1 - (after.idle - before.idle) / (after.total - before.total)) * 100, 0);
  } catch {
    return Number.NaN;
  }
}

const loadAverage = () => os.loadavg().map((value) => round(value, 2));

function machine() {
  const cpuinfo = fs.existsSync('/proc/cpuinfo') ? fs.readFileSync('/proc/cpuinfo', 'utf8') : '';
  return {
    cpuModel: /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? os.cpus()[0]?.model ?? 'unknown',
    cores: os.availableParallelism(),
    memoryGiB: round(os.totalmem() / 1024 ** 3, 1),
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
  };
}

interface FootprintResult {
  startupMs: { hearth: number[]; bareNode: number[]; hearthMedian: number; bareNodeMedian: number };
  /** CPU (user + system) the process had used when it first answered: start-up's own work, whatever else the machine runs. */
  startupCpuSeconds: { hearth: number[]; bareNode: number[]; hearthMedian: number; bareNodeMedian: number };
  /** Median of the starts, each 1.5 s after its first answer (GET /login); every start's figure. */
  idleRssMb: { hearth: number; all: number[]; bareNode: number };
  /** Production node_modules (`npm ci --omit=dev`): the lockfile's non-dev packages as installed here (install-size.ts). */
  install: InstallSize;
  /** After the chat phases, 2 s after the last reply. */
  afterLoadRssMb?: number;
  peakRssMb?: number;
}

interface PageWeightResult {
  http: HttpPageWeight[];
  browser: BrowserPageResult[];
}

interface Results {
  generatedAt: string;
  machine: ReturnType<typeof machine>;
  /** Other work on the machine: the figures are only as steady as this is quiet. */
  load: { busyPercentBefore: number; loadAverageBefore: number[]; loadAverageAfter: number[] };
  options: Record<string, unknown>;
  ollama: { mode: 'stand-in' | 'real'; host: string; model: string };
  server: { mode: string; build: { built: boolean; seconds: number } };
  footprint?: FootprintResult;
  relay?: ThroughputResult;
  latency?: LatencyResult;
  concurrency: LatencyResult[];
  adversarial?: AdversarialResult[];
  pageWeight?: PageWeightResult;
  history?: HistoryResult;
  render?: BrowserRenderResult;
  targets: TargetCheck[];
  seconds: number;
}

/**
 * Idle RSS: what the process holds once its start-up work is over, with nothing asked of it. At
 * least 1.5 s after it answered, and then once it has used no CPU for a whole second (its
 * start-up checks, such as asking Ollama whether it answers, are done), or after 15 s whatever.
 */
async function idleRssMb(pid: number): Promise<number> {
  await sleep(1500);
  const giveUpAt = performance.now() + 13_500;
  let cpu = readCpuSeconds(pid);
  let quietSince = performance.now();
  while (performance.now() < giveUpAt && performance.now() - quietSince < 1000) {
    await sleep(250);
    const now = readCpuSeconds(pid);
    if (now !== cpu) quietSince = performance.now();
    cpu = now;
  }
  return (readMemory(pid)?.rssKb ?? Number.NaN) / 1024;
}

async function pickModel(host: string, wanted: string | undefined): Promise<string> {
  if (wanted) return wanted;
  const response = await fetch(`${host}/api/tags`);
  const { models } = (await response.json()) as { models: Array<{ name: string }> };
  if (!models[0]) throw new Error(`Ollama at ${host} has no models; set BENCH_MODEL or pull one`);
  return models[0].name;
}

async function main(options: BenchOptions): Promise<Results> {
  const began = performance.now();
  const results: Results = {
    generatedAt: new Date().toISOString(),
    machine: machine(),
    load: { busyPercentBefore: await backgroundBusyPercent(), loadAverageBefore: loadAverage(), loadAverageAfter: [] },
    options: { ...options, skip: [...options.skip] },
    ollama: { mode: options.ollamaHost ? 'real' : 'stand-in', host: options.ollamaHost ?? '', model: '' },
    server: { mode: options.server, build: { built: false, seconds: 0 } },
    concurrency: [],
    targets: [],
    seconds: 0,
  };
  const runs = (phase: (typeof phaseNames)[number]) => !options.skip.has(phase);
  log(`Hearth benchmark on ${results.machine.cores} cores, ${results.machine.memoryGiB} GiB, ${results.machine.cpuModel}, Node ${results.machine.node}`);
  log(`machine busy with other work before the start: ${results.load.busyPercentBefore}% (load average ${results.load.loadAverageBefore.join(', ')})`);
  if (results.load.busyPercentBefore > 20) log('note: the machine is busy; timings will be noisier than on a quiet machine');

  if (options.server === 'dist') {
    results.server.build = ensureBuild(log);
  }

  const workRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-bench-'));
  let standin: StandinProcess | undefined;
  const servers = new Set<RunningServer>();
  const cleanup = async () => {
    for (const server of servers) await server.stop().catch(() => undefined);
    await standin?.stop().catch(() => undefined);
    closeHttpClients();
    fs.rmSync(workRoot, { recursive: true, force: true });
  };

  try {
    if (!options.ollamaHost) standin = await startStandinProcess();
    const ollamaHost = options.ollamaHost ?? standin!.url;
    const model = await pickModel(ollamaHost, options.model ?? (standin ? 'llama3.2:latest' : undefined));
    results.ollama.host = ollamaHost;
    results.ollama.model = model;
    log(standin ? `Ollama stand-in at ${ollamaHost} (its own process)` : `real Ollama at ${ollamaHost}, model ${model}`);

    const password = randomBytes(12).toString('base64url');
    const credentials = { passwordHash: bcrypt.hashSync(password, 10), secretKey: randomBytes(32).toString('base64url') };
    const serverSettings = (dataDir: string) => ({
      dataDir,
      ollamaHost,
      ...credentials,
      logLevel: options.logLevel,
      mode: options.server,
      logFile: options.serverLog ? path.resolve(options.serverLog) : path.join(workRoot, 'server.log'),
      nodeArgs: options.serverNodeArgs,
    });
    const start = async (dataDir: string) => {
      const server = await startServer(serverSettings(dataDir));
      servers.add(server);
      return server;
    };
    const stop = async (server: RunningServer) => {
      await server.stop();
      servers.delete(server);
    };

    // ---- 4. Footprint: start-up and idle memory, beside a bare Node HTTP server ----
    const mainDataDir = path.join(workRoot, 'data');
    let server: RunningServer | undefined;
    if (runs('footprint')) {
      log('footprint: start-up and idle memory...');
      const bare: number[] = [];
      const bareCpu: number[] = [];
      let bareRss = Number.NaN;
      for (let index = 0; index < options.startups; index++) {
        const node = await startBareNodeServer();
        bare.push(node.startupMs);
        bareCpu.push(node.startupCpuSeconds);
        if (index === options.startups - 1) bareRss = await idleRssMb(node.pid);
        await node.stop();
      }
      const hearth: number[] = [];
      const hearthCpu: number[] = [];
      const rss: number[] = [];
      for (let index = 0; index < options.startups; index++) {
        // The first start creates the database; the others open it, as a restart does.
        const candidate = await start(mainDataDir);
        hearth.push(candidate.startupMs);
        hearthCpu.push(candidate.startupCpuSeconds);
        rss.push(await idleRssMb(candidate.pid));
        if (index < options.startups - 1) await stop(candidate);
        else server = candidate;
      }
      results.footprint = {
        startupMs: { hearth: hearth.map((value) => round(value, 0)), bareNode: bare.map((value) => round(value, 0)), hearthMedian: round(median(hearth), 0), bareNodeMedian: round(median(bare), 0) },
        startupCpuSeconds: { hearth: hearthCpu, bareNode: bareCpu, hearthMedian: round(median(hearthCpu), 2), bareNodeMedian: round(median(bareCpu), 2) },
        idleRssMb: { hearth: round(median(rss), 1), all: rss.map((value) => round(value, 1)), bareNode: round(bareRss, 1) },
        install: productionInstallSize(projectRoot),
      };
      log(`  start-up ${results.footprint.startupMs.hearth.join(', ')} ms, CPU ${results.footprint.startupCpuSeconds.hearth.join(', ')} s (bare Node ${results.footprint.startupMs.bareNode.join(', ')} ms); idle RSS ${results.footprint.idleRssMb.all.join(', ')} MB`);
      log(`  production node_modules ${mb(results.footprint.install.bytes / 1024 / 1024)} in ${results.footprint.install.packages} packages; largest: ${results.footprint.install.largest.slice(0, 5).map((entry) => `${entry.name} ${mb(entry.bytes / 1024 / 1024)}`).join(', ')}`);
    }

    const needsMainServer = runs('relay') || runs('latency') || runs('concurrency') || runs('adversarial') || runs('page') || runs('render');
    if (needsMainServer) {
      server ??= await start(mainDataDir);
      const memory = new MemoryWatch(server.pid);
      const cookie = await login(server.baseUrl, password);
      const target: ChatTarget = {
        baseUrl: server.baseUrl,
        cookie,
        ollamaHost,
        model,
        standin,
        tokenText: chunkText(options.chunkChars),
        prompt: options.prompt,
        serverPid: server.pid,
        memory,
        log,
      };

      // ---- 5. Page weight, on the fresh server (an empty history) ----
      if (runs('page')) {
        log('page weight: login and chat pages over HTTP and in Chromium...');
        const http = [await weighPageOverHttp(server.baseUrl, '/login'), await weighPageOverHttp(server.baseUrl, '/', cookie)];
        const browser = await launchBrowser();
        try {
          const browserResults = [
            await measurePageInBrowser(browser, server.baseUrl, '/login', { cpuThrottle: options.cpuThrottle, loads: options.pageLoads, waitForSocket: false }),
            await measurePageInBrowser(browser, server.baseUrl, '/', { cookie, cpuThrottle: options.cpuThrottle, loads: options.pageLoads, waitForSocket: true }),
          ];
          results.pageWeight = { http, browser: browserResults };
        } finally {
          await browser.close();
        }
        for (const page of http) log(`  ${page.page}: ${page.requests} requests, ${kb(page.totalWireBytes)} on the wire, ${kb(page.totalBytes)} decoded`);
      }

      // ---- 8. Rendering speed in a phone browser, beside a page that reads Ollama itself ----
      if (runs('render')) {
        if (!standin) log('render: skipped (the reply is scripted on the stand-in)');
        else {
          log(`render: a ${options.renderTokens}-token reply at full speed in Chromium (390x844, CPU ${options.cpuThrottle}x slower), ${options.renderRounds} rounds beside a direct read...`);
          results.render = await measureBrowserRender(
            { baseUrl: server.baseUrl, password, standin, model, log },
            { tokens: options.renderTokens, rounds: options.renderRounds, cpuThrottle: options.cpuThrottle },
          );
          log(
            `  ratio ${results.render.ratio}, quartiles ${results.render.ratioQuartiles.join('–')}, ratio of the medians ${results.render.ratioOfMedians} ` +
              `(Hearth ${results.render.hearthMedianMs} ms, direct ${results.render.directMedianMs} ms)`,
          );
        }
      }

      // ---- 1. Relay throughput ----
      if (runs('relay')) {
        log(standin ? `relay: ${options.relayTokens} tokens at full speed, ${options.relayRounds} rounds each way...` : `relay: the model's reply to BENCH_PROMPT, ${options.relayRounds} rounds each way...`);
        results.relay = await measureRelayThroughput(target, options.relayTokens, options.relayRounds);
        log(`  ratio ${results.relay.ratio} (${results.relay.relayed.tokensPerSecond} vs ${results.relay.direct.tokensPerSecond} tok/s)`);
      }

      // ---- 2. Added latency, one chat at a time ----
      if (runs('latency')) {
        log(`latency: ${options.latencyRounds} chats of ${options.latencyTokens} tokens at ${options.tokensPerSecond} tok/s, each beside a direct stream...`);
        results.latency = await measureQuietLatency(target, options.latencyRounds, options.latencyTokens, options.tokensPerSecond);
        log(`  first token +${results.latency.firstToken.addedP50} ms p50; per token +${results.latency.tokenLatency?.addedP50 ?? 'n/a'} ms p50, +${results.latency.tokenLatency?.addedP99 ?? 'n/a'} ms p99`);
      }

      // ---- 3. Concurrency ----
      if (runs('concurrency')) {
        if (!standin) log('concurrency: skipped (a real Ollama runs few replies at once; the stand-in is needed)');
        else {
          for (const chats of options.chats) {
            log(`concurrency: ${chats} chats of ${options.replyTokens} tokens at ${options.tokensPerSecond} tok/s, started over ${options.rampMs} ms...`);
            const result = await measureConcurrentChats(target, chats, options.directSample, options.replyTokens, options.tokensPerSecond, options.rampMs);
            results.concurrency.push(result);
            log(`  errors ${result.errors}; per token +${result.tokenLatency?.addedP99} ms p99; first token +${result.firstToken.addedP50} ms p50; peak RSS ${result.peakServerRssMb} MB; server CPU ${result.serverCpuPercent}%`);
            for (const sample of result.errorSamples) log(`    ${sample}`);
            await sleep(500);
          }
        }
      }

      // ---- 7. Adversarial model output ----
      if (runs('adversarial')) {
        if (!standin) log('adversarial: skipped (the shapes are scripted on the stand-in)');
        else {
          log(`adversarial output: each shape ${options.adversarialKb} KB in ${options.adversarialChunkChars}-character chunks, GET /login polled every 10 ms...`);
          results.adversarial = await measureAdversarialOutput({ baseUrl: server.baseUrl, cookie, model, standin, serverPid: server.pid, log }, options.adversarialKb * 1024, options.adversarialChunkChars);
        }
      }

      if (results.footprint && (runs('relay') || runs('latency') || runs('concurrency'))) {
        await sleep(2000);
        results.footprint.afterLoadRssMb = round((readMemory(server.pid)?.rssKb ?? Number.NaN) / 1024, 1);
        results.footprint.peakRssMb = round((readMemory(server.pid)?.hwmKb ?? Number.NaN) / 1024, 1);
      }
      memory.stop();
    }
    if (server) await stop(server);

    // ---- 6. History at scale ----
    if (runs('history')) {
      const historyDir = path.join(workRoot, 'history');
      log(`history: writing ${options.historyMessages.toLocaleString('en')} messages in ${options.historyConversations.toLocaleString('en')} conversations...`);
      const seed = seedHistory(historyDir, options.historyMessages, options.historyConversations, options.openMessages);
      log(`  written in ${seed.seconds} s (${seed.databaseMb} MB); starting the server on it...`);
      const historyServer = await start(historyDir);
      const memory = new MemoryWatch(historyServer.pid);
      try {
        const cookie = await login(historyServer.baseUrl, password);
        const measured = await measureHistory(historyServer.baseUrl, cookie, historyDir, seed, { samples: 20, log });
        results.history = { seed, startupMs: round(historyServer.startupMs, 0), ...measured, peakServerRssMb: round(memory.mark().peakMb, 1) };
        log(`  list p50 ${results.history.list.http.p50} ms; search p50 ${results.history.search.http.p50} ms, p99 ${results.history.search.http.p99} ms; open ${seed.openMessages} messages ${results.history.open.http.p50} ms`);
      } finally {
        memory.stop();
        await stop(historyServer);
      }
    }

    // A last check that nothing was left answering.
    for (const running of servers) await httpGet(`${running.baseUrl}/login`).catch(() => undefined);
  } finally {
    await cleanup();
  }
  results.load.loadAverageAfter = loadAverage();
  results.seconds = round((performance.now() - began) / 1000, 1);
  return results;
}

function buildReport(results: Results): { rows: ReportRow[]; targets: TargetCheck[] } {
  const rows: ReportRow[] = [];
  const targets: TargetCheck[] = [];
  const check = (figure: string, value: number, unit: string, target: string, met: boolean) => {
    targets.push({ figure, value, unit, target, met });
    return met;
  };

  const relay = results.relay;
  if (relay) {
    const section = results.ollama.mode === 'stand-in' ? `1. relay throughput (${relay.tokens} tokens, full speed)` : `1. relay throughput (${results.ollama.model} at its own speed)`;
    rows.push({ section, figure: 'tokens/s, request to last token', hearth: formatNumber(relay.relayed.tokensPerSecond, 0), baseline: `${formatNumber(relay.direct.tokensPerSecond, 0)} direct`, target: '' });
    rows.push({ section, figure: 'ratio, relayed / direct (median of pairs)', hearth: formatNumber(relay.ratio, 3), baseline: '1', target: '>= 0.95', met: check('relay ratio', relay.ratio, '', '>= 0.95', relay.ratio >= 0.95) });
    rows.push({ section, figure: 'ratio, first to last token; best run / best run', hearth: `${formatNumber(relay.streamRatio, 3)}; ${formatNumber(relay.bestRatio, 3)}`, baseline: '1', target: '' });
    rows.push({ section, figure: 'other work on the machine meanwhile', hearth: `${relay.otherWorkPercent}% of all cores`, baseline: '', target: '' });
    rows.push({ section, figure: 'server CPU per relayed token', hearth: `${formatNumber(relay.serverCpuMicrosecondsPerToken, 1)} µs`, baseline: '', target: '' });
    rows.push({
      section,
      figure: 'WebSocket frames per reply; mean gap; chars per frame',
      hearth: `${formatNumber(relay.relayed.framesPerReply, 0)}; ${ms(relay.relayed.frameGapMs)}; ${formatNumber(relay.relayed.charactersPerFrame, 0)}`,
      baseline: results.ollama.mode === 'stand-in' ? `${relay.tokens} chunks from Ollama` : '',
      target: '',
    });
    if (relay.errors.length) rows.push({ section, figure: 'errors', hearth: String(relay.errors.length), baseline: '', target: '0', met: false });
  }

  const latency = results.latency;
  if (latency) {
    const pace = results.ollama.mode === 'stand-in' ? `${latency.tokensPerSecond} tok/s` : "the model's pace";
    const section = `2. added latency (1 chat at a time, ${pace}, ${latency.chats} runs)`;
    if (latency.tokenLatency) {
      const token = latency.tokenLatency;
      rows.push({ section, figure: 'per token, p50 (arrival - scheduled)', hearth: ms(token.relayed.p50, 2), baseline: `${ms(token.direct.p50, 2)} direct`, target: '' });
      rows.push({ section, figure: 'per token, p99', hearth: ms(token.relayed.p99, 2), baseline: `${ms(token.direct.p99, 2)} direct`, target: '' });
      rows.push({ section, figure: 'added per token, p50 / p99', hearth: `${ms(token.addedP50, 2)} / ${ms(token.addedP99, 2)}`, baseline: '', target: `p99 <= ${addedTokenLimitMs} ms`, met: token.addedP99 <= addedTokenLimitMs });
    }
    rows.push({ section, figure: 'first token, p50 / p99', hearth: `${ms(latency.firstToken.relayed.p50)} / ${ms(latency.firstToken.relayed.p99)}`, baseline: `${ms(latency.firstToken.direct.p50)} / ${ms(latency.firstToken.direct.p99)} direct`, target: '' });
    rows.push({
      section,
      figure: 'added to first token, p50 / p99',
      hearth: `${ms(latency.firstToken.addedP50)} / ${ms(latency.firstToken.addedP99)}`,
      baseline: '',
      target: 'p50 <= 10 ms',
      met: check('first-token overhead p50', latency.firstToken.addedP50, 'ms', '<= 10', latency.firstToken.addedP50 <= 10),
    });
    if (latency.errors) rows.push({ section, figure: 'errors', hearth: String(latency.errors), baseline: '', target: '0', met: false });
    rows.push({ section, figure: 'other work on the machine meanwhile', hearth: `${latency.otherWorkPercent}% of all cores`, baseline: '', target: '' });
  }

  for (const run of results.concurrency) {
    const section = `3. concurrency (${run.chats} chats, ${run.tokensPerChat} tokens each at ${run.tokensPerSecond} tok/s; ${run.directStreams} direct streams beside)`;
    rows.push({ section, figure: 'errors', hearth: String(run.errors), baseline: '', target: '0', met: check(`errors with ${run.chats} chats`, run.errors, '', '0', run.errors === 0) });
    if (run.tokenLatency) {
      const token = run.tokenLatency;
      rows.push({ section, figure: 'per token p50 / p99', hearth: `${ms(token.relayed.p50, 2)} / ${ms(token.relayed.p99, 2)}`, baseline: `${ms(token.direct.p50, 2)} / ${ms(token.direct.p99, 2)} direct`, target: '' });
      const is50 = run.chats === 50;
      rows.push({
        section,
        figure: 'added per token p50 / p99',
        hearth: `${ms(token.addedP50, 2)} / ${ms(token.addedP99, 2)}`,
        baseline: '',
        target: is50 ? `p99 <= ${addedTokenLimitMs} ms` : '',
        met: is50 ? check('added latency p99, 50 chats', token.addedP99, 'ms', `<= ${addedTokenLimitMs}`, token.addedP99 <= addedTokenLimitMs) : undefined,
      });
    }
    rows.push({ section, figure: 'added to first token p50 / p99', hearth: `${ms(run.firstToken.addedP50)} / ${ms(run.firstToken.addedP99)}`, baseline: `${ms(run.firstToken.direct.p50)} direct p50`, target: '' });
    const is200 = run.chats === 200;
    rows.push({
      section,
      figure: 'peak server RSS',
      hearth: mb(run.peakServerRssMb),
      baseline: '',
      target: is200 ? '<= 200 MB' : '',
      met: is200 ? check('peak RSS with 200 chats', run.peakServerRssMb, 'MB', '<= 200', run.peakServerRssMb <= 200) : undefined,
    });
    rows.push({ section, figure: 'other work on the machine meanwhile', hearth: `${run.otherWorkPercent}% of all cores`, baseline: '', target: '' });
    rows.push({ section, figure: 'CPU of one core: server; frames/s per chat', hearth: `${run.serverCpuPercent}%; ${formatNumber(run.framesPerSecondPerChat, 1)}`, baseline: `stand-in ${run.standinCpuPercent}%, clients ${run.clientCpuPercent}%`, target: '' });
  }

  const footprint = results.footprint;
  if (footprint) {
    const section = '4. footprint';
    rows.push({
      section,
      figure: 'idle RSS after start',
      hearth: mb(footprint.idleRssMb.hearth),
      baseline: `${mb(footprint.idleRssMb.bareNode)} bare Node`,
      target: '<= 80 MB',
      met: check('idle RSS', footprint.idleRssMb.hearth, 'MB', '<= 80', footprint.idleRssMb.hearth <= 80),
    });
    rows.push({
      section,
      figure: `start-up, npm start's process spawned to GET /login answered (median of ${footprint.startupMs.hearth.length})`,
      hearth: ms(footprint.startupMs.hearthMedian, 0),
      baseline: `${ms(footprint.startupMs.bareNodeMedian, 0)} bare Node`,
      target: '<= 1000 ms',
      met: check('start-up', footprint.startupMs.hearthMedian, 'ms', '<= 1000', footprint.startupMs.hearthMedian <= 1000),
    });
    rows.push({
      section,
      figure: 'start-up: CPU used until that answer (median)',
      hearth: `${formatNumber(footprint.startupCpuSeconds.hearthMedian, 2)} s`,
      baseline: `${formatNumber(footprint.startupCpuSeconds.bareNodeMedian, 2)} s bare Node`,
      target: '',
    });
    rows.push({
      section,
      figure: 'production node_modules (npm ci --omit=dev), on disk',
      hearth: `${mb(footprint.install.bytes / 1024 / 1024)}, ${footprint.install.packages} packages`,
      baseline: `largest: ${footprint.install.largest[0]?.name ?? ''} ${mb((footprint.install.largest[0]?.bytes ?? 0) / 1024 / 1024)}`,
      target: '',
    });
    if (footprint.afterLoadRssMb !== undefined) {
      rows.push({ section, figure: 'RSS 2 s after the chat runs; peak (VmHWM)', hearth: `${mb(footprint.afterLoadRssMb)}; ${mb(footprint.peakRssMb)}`, baseline: '', target: '' });
    }
  }

  for (const run of results.adversarial ?? []) {
    const section = `7. adversarial output (${kb(run.characters)} per shape, ${run.chunkChars}-character chunks)`;
    rows.push({
      section,
      figure: `${run.shape}: server CPU (scanner alone)`,
      hearth: `${formatNumber(run.serverCpuSeconds, 2)} s (${formatNumber(run.scannerCpuSeconds, 3)} s)`,
      baseline: `${formatNumber(run.wallSeconds, 2)} s wall`,
      target: '< 1 s',
      met: check(`adversarial CPU: ${run.shape}`, run.serverCpuSeconds, 's', '< 1', run.serverCpuSeconds < 1 && !run.error),
    });
    rows.push({
      section,
      figure: `${run.shape}: GET /login p50 / p99 / max`,
      hearth: `${ms(run.loginP50Ms)} / ${ms(run.loginP99Ms)} / ${ms(run.loginMaxMs)}`,
      baseline: run.error ?? `${run.probes} probes; ${run.machineBusyCores} cores busy`,
      target: `p99 < ${loginP99TargetMs} ms`,
      met: check(`adversarial GET /login p99: ${run.shape}`, run.loginP99Ms, 'ms', `< ${loginP99TargetMs}`, run.loginP99Ms < loginP99TargetMs),
    });
  }

  const pages = results.pageWeight;
  if (pages) {
    const section = '5. page weight (phone)';
    for (const page of pages.http) {
      const browser = pages.browser.find((entry) => entry.page === page.page);
      const name = page.page === '/' ? 'chat page' : 'login page';
      const total = browser?.cold.transferBytes ?? page.totalWireBytes;
      const isChat = page.page === '/';
      rows.push({
        section,
        figure: `${name}: bytes on the wire, requests (cold)`,
        hearth: `${kb(total)}, ${browser?.cold.requests ?? page.requests}`,
        baseline: `${kb(page.totalBytes)} uncompressed`,
        target: isChat ? '<= 60 KB' : '',
        met: isChat ? check('chat page weight', total / 1024, 'KB', '<= 60', total <= 60 * 1024) : undefined,
      });
      if (browser) {
        rows.push({ section, figure: `${name}: opened again (cache warm)`, hearth: `${kb(browser.repeat.transferBytes)}, ${browser.repeat.requests}`, baseline: '', target: '' });
        rows.push({
          section,
          figure: `${name}: ${isChat ? 'usable (socket open)' : 'loaded'}, CPU ${browser.cpuThrottle}x slower, cold / warm`,
          hearth: `${ms(browser.cold.usableMs, 0)} / ${ms(browser.repeat.usableMs, 0)}`,
          baseline: `FCP ${ms(browser.cold.firstContentfulPaintMs, 0)}`,
          target: '',
        });
      }
    }
  }

  const render = results.render;
  if (render) {
    const section = `8. rendering in a phone browser (${render.tokens} tokens at full speed, CPU ${render.cpuThrottle}x slower, ${render.rounds} rounds)`;
    rows.push({ section, figure: 'Send to finished reply in the DOM (median)', hearth: ms(render.hearthMedianMs, 0), baseline: `${ms(render.directMedianMs, 0)} page reading Ollama`, target: '' });
    rows.push({
      section,
      figure: 'ratio, Hearth / direct (median of rounds; quartiles; ratio of the medians)',
      hearth: `${formatNumber(render.ratio, 2)} (${render.ratioQuartiles.map((value) => formatNumber(value, 2)).join('–')}; ${formatNumber(render.ratioOfMedians, 2)})`,
      baseline: '1',
      target: '<= 1.5',
      met: check('browser render ratio', render.ratio, '', '<= 1.5', render.ratio <= 1.5),
    });
    const parts = render.breakdown;
    rows.push({ section, figure: 'model starts; first text; last streamed text (ms after Send)', hearth: `${ms(parts.modelStartMs, 0)}; ${ms(parts.firstTokenMs, 0)}; ${ms(parts.lastStreamedMs, 0)}`, baseline: '', target: '' });
    rows.push({ section, figure: 'final Markdown: wait for it; its swap', hearth: `${ms(parts.waitForFinalMs, 0)}; ${ms(parts.finalSwapMs, 0)}`, baseline: '', target: '' });
    rows.push({ section, figure: 'socket messages; time handling streamed text', hearth: `${parts.frames}; ${ms(parts.streamHandlingMs, 0)}`, baseline: '', target: '' });
    rows.push({ section, figure: 'main thread: script / layout / style', hearth: `${ms(parts.scriptMs, 0)} / ${ms(parts.layoutMs, 0)} / ${ms(parts.styleMs, 0)}`, baseline: `layout ${ms(render.directLayoutMs, 0)} direct`, target: '' });
  }

  const history = results.history;
  if (history) {
    const section = `6. history (${history.seed.messages.toLocaleString('en')} messages, ${history.seed.conversations.toLocaleString('en')} conversations)`;
    rows.push({ section, figure: 'list GET /history p50 / p99', hearth: `${ms(history.list.http.p50)} / ${ms(history.list.http.p99)}`, baseline: `${ms(history.list.store.p50, 2)} / ${ms(history.list.store.p99, 2)} store`, target: '' });
    rows.push({
      section,
      figure: 'search GET /history?q= p50 / p99',
      hearth: `${ms(history.search.http.p50)} / ${ms(history.search.http.p99)}`,
      baseline: `${ms(history.search.store.p50, 2)} / ${ms(history.search.store.p99, 2)} store`,
      target: 'p50 <= 20 ms',
      met: check('search p50', history.search.http.p50, 'ms', '<= 20', history.search.http.p50 <= 20),
    });
    const worst = [...history.search.perQuery].sort((a, b) => b.httpP50 - a.httpP50)[0];
    if (worst) rows.push({ section, figure: `slowest query "${worst.query}" (${worst.matches} matches) p50`, hearth: ms(worst.httpP50), baseline: `${ms(worst.storeP50, 2)} store`, target: '' });
    rows.push({
      section,
      figure: `open ${history.open.messages} messages GET /c/:id p50 / p99`,
      hearth: `${ms(history.open.http.p50)} / ${ms(history.open.http.p99)}`,
      baseline: `${ms(history.open.store.p50, 2)} store`,
      target: '',
    });
    rows.push({ section, figure: 'that page: HTML, on the wire', hearth: `${kb(history.open.htmlBytes)}, ${kb(history.open.wireBytes)} ${history.open.encoding}`, baseline: '', target: '' });
    rows.push({ section, figure: 'start-up on this database; peak RSS', hearth: `${ms(history.startupMs, 0)}; ${mb(history.peakServerRssMb)}`, baseline: '', target: '' });
  }
  return { rows, targets };
}

const helpText = `npm run bench [-- --name=value ...]   (or BENCH_NAME=value npm run bench)
  --only=relay,latency,...      phases to run (${phaseNames.join(', ')}); --skip=... to leave some out
  --relay-tokens=5000           reply length for relay throughput (full speed)
  --tokens-per-second=50        pace for latency and concurrency
  --chunk-chars=6               characters per streamed chunk
  --latency-rounds=8 --latency-tokens=100
  --chats=50,200 --reply-tokens=400 --ramp-ms=1000 --direct-sample=50
  --history-messages=100000 --history-conversations=1000 --open-messages=500
  --render-tokens=3000 --render-rounds=15 --cpu-throttle=4  browser rendering beside a direct read
  --ollama-host=http://127.0.0.1:11434 --model=llama3.2:latest   measure against a real Ollama
  --server-node-args="--cpu-prof --cpu-prof-dir=/tmp/prof"   profile the server
  --server-log=/tmp/hearth-bench.log   keep the server's log
  --server=dist|tsx --log-level=info --output=bench-results.json --time-limit=900
See docs/benchmarks.md.`;

async function run(): Promise<void> {
  if (process.argv.includes('--help')) {
    console.log(helpText);
    return;
  }
  const options = readBenchOptions();
  // Whatever happens, the run ends by itself and takes its children with it.
  const watchdog = setTimeout(() => {
    console.error(`bench: still running after ${options.timeLimitSeconds} s; stopping.`);
    killAllChildren();
    process.exit(2);
  }, options.timeLimitSeconds * 1000);
  watchdog.unref();
  process.on('exit', killAllChildren);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      killAllChildren();
      process.exit(130);
    });
  }

  const results = await main(options);
  const { rows, targets } = buildReport(results);
  results.targets = targets;
  log('');
  printTable(rows, log);
  const output = path.resolve(projectRoot, options.output);
  fs.writeFileSync(output, `${JSON.stringify(results, null, 2)}\n`);
  const missed = targets.filter((target) => !target.met);
  log('');
  log(`machine: ${results.machine.cores} cores, ${results.machine.cpuModel}, Node ${results.machine.node}; busy with other work before the run ${results.load.busyPercentBefore}%, load average ${results.load.loadAverageBefore[0]} -> ${results.load.loadAverageAfter[0]}`);
  log(`${targets.length - missed.length} of ${targets.length} targets met${missed.length ? ` (missed: ${missed.map((target) => target.figure).join(', ')})` : ''}; ${results.seconds} s; figures in ${path.relative(process.cwd(), output) || output}`);
  clearTimeout(watchdog);
}

run().catch((error: unknown) => {
  console.error(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  killAllChildren();
  process.exit(1);
});
