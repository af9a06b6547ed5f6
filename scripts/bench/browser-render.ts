/**
 * Rendering speed in a real browser: how long a long reply, streamed at full speed, takes to reach
 * the page through Hearth, beside a page that reads Ollama's /api/chat itself (as Hollama does).
 *
 * Both run in the same Chromium, one after the other in each round, with a phone's viewport and
 * `Emulation.setCPUThrottlingRate` (4x slower, as on a mid-range phone):
 * - direct: a page served from the Ollama stand-in's own origin (Playwright answers that one
 *   navigation, so the fetch that follows is same-origin and goes straight to the stand-in, with
 *   no proxy) reads the NDJSON stream with fetch, parses each line and appends its text to one
 *   text node. Timed from the fetch call to the last token in the DOM. It renders no Markdown.
 * - Hearth: the chat page, logged in through the form; timed from the Send click to the finished
 *   reply (its rendered Markdown, `data-status="complete"`) in the DOM.
 * Time in the DOM is taken by a MutationObserver (a microtask after the change), not at paint.
 *
 *   npx tsx scripts/bench/browser-render.ts [--tokens=3000] [--rounds=15] [--cpu-throttle=4] [--profile=page.cpuprofile] [--trace=trace.json] [--json]
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { launchBrowser } from './page-weight.js';
import { ensureBuild, killAllChildren, builtServerSettings, startServer } from './measured-server.js';
import { startStandinProcess, type StandinProcess } from './standin-process.js';
import { median, percentile, round } from './stats.js';

export interface RenderRunDirect {
  totalMs: number;
  firstTokenMs: number;
  characters: number;
  /** Main-thread layout and all tasks during the read (CDP Performance.getMetrics deltas). */
  layoutMs: number;
  taskMs: number;
}

export interface RenderRunHearth {
  totalMs: number;
  /** Send click until the first streamed text is in the DOM. */
  firstTokenMs: number;
  /** Send click until the stand-in began streaming (server work before the model: saving, /api/show...). */
  modelStartMs: number;
  /** Send click until the last streamed frame was handled (before the final Markdown swap arrives). */
  lastStreamedMs: number;
  /** Arrival of the final swap (the finished message) until it is in the DOM. */
  finalSwapMs: number;
  /** Last streamed frame handled until the final swap arrives: the server's Markdown render and save. */
  waitForFinalMs: number;
  frames: number;
  /** Time the page spent handling the streamed-text messages, summed (arrival to handled). */
  streamHandlingMs: number;
  /** Main-thread time in the browser during the run (CDP Performance.getMetrics deltas). */
  scriptMs: number;
  layoutMs: number;
  styleMs: number;
  taskMs: number;
}

export interface BrowserRenderResult {
  tokens: number;
  characters: number;
  rounds: number;
  cpuThrottle: number;
  direct: RenderRunDirect[];
  hearth: RenderRunHearth[];
  directMedianMs: number;
  directLayoutMs: number;
  hearthMedianMs: number;
  /** Median of the per-round ratios, Hearth / direct. */
  ratio: number;
  /** The per-round ratios' first and third quartiles: on a shared machine the direct read alone swings several-fold. */
  ratioQuartiles: [number, number];
  /** Hearth's median over the direct read's median: a second view of the same rounds, less moved by single outliers. */
  ratioOfMedians: number;
  /** Medians of the Hearth breakdown. */
  breakdown: Omit<RenderRunHearth, 'totalMs'>;
}

export interface BrowserRenderTarget {
  baseUrl: string;
  password: string;
  standin: StandinProcess;
  model: string;
  log(line: string): void;
}

export interface BrowserRenderOptions {
  tokens: number;
  rounds: number;
  cpuThrottle: number;
  /** Write a CPU profile of the page during the last Hearth reply here (open it in Chrome DevTools). */
  profilePath?: string;
  /** Write a Chromium trace (devtools.timeline) of the last Hearth reply here, and summarise it. */
  tracePath?: string;
}

interface TraceEvent {
  name: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: { name?: string };
}

/**
 * The Hearth renderer's main thread in a trace (the one that dispatched the Send click): its
 * busiest kinds of work from the click to the first text, and after.
 */
function summariseTrace(events: TraceEvent[], firstTextMs: number): string[] {
  type Data = { data?: { type?: string } };
  const click = events.find((event) => event.name === 'EventDispatch' && (event.args as Data | undefined)?.data?.type === 'click');
  if (!click) return ['(no click in the trace)'];
  const split = click.ts + firstTextMs * 1000;
  const onMain = events.filter((event) => event.pid === click.pid && event.tid === click.tid && event.ph === 'X' && event.dur !== undefined && event.ts >= click.ts);
  // Only the outermost kinds of work, so nothing is counted twice.
  const kinds = ['RunTask', 'FunctionCall', 'EventDispatch', 'TimerFire', 'FireAnimationFrame', 'ParseHTML', 'Layout', 'UpdateLayoutTree', 'Paint', 'PrePaint', 'Layerize', 'Commit', 'MajorGC', 'MinorGC'];
  const totals = new Map<string, [number, number]>();
  for (const event of onMain) {
    if (!kinds.includes(event.name)) continue;
    const entry = totals.get(event.name) ?? [0, 0];
    entry[event.ts < split ? 0 : 1] += event.dur! / 1000;
    totals.set(event.name, entry);
  }
  return [...totals]
    .sort((a, b) => b[1][0] - a[1][0])
    .map(([name, [before, after]]) => `${before.toFixed(1).padStart(7)} ms before the first text, ${after.toFixed(1).padStart(7)} ms after  ${name}`);
}

/** Each socket message of the last Hearth reply: when it arrived after Send, how long it took, its size and kind. */
async function frameTimeline(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const bench = (window as unknown as BenchState).__bench;
    return bench.frames.map(
      (frame) =>
        `${(frame.at - bench.started).toFixed(1).padStart(7)} ms  +${((frame.handled ?? frame.at) - frame.at).toFixed(1).padStart(5)} ms  ${String(frame.bytes).padStart(6)} B  ${frame.kind}`,
    );
  });
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** The functions that used the most of the page's main thread, by self time. */
function topFunctions(profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }, count = 15): string[] {
  const self = new Map<number, number>();
  profile.samples.forEach((id, index) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));
  const byName = new Map<string, number>();
  for (const node of profile.nodes) {
    const { functionName, url, lineNumber } = node.callFrame;
    const name = `${functionName || '(anonymous)'} ${url ? `${url.split('/').pop()}:${lineNumber + 1}` : ''}`.trim();
    byName.set(name, (byName.get(name) ?? 0) + (self.get(node.id) ?? 0));
  }
  return [...byName].sort((a, b) => b[1] - a[1]).slice(0, count).map(([name, micros]) => `${(micros / 1000).toFixed(1).padStart(7)} ms  ${name}`);
}

const words = 'the model writes a long answer about lighthouses keepers storms ships light lamps oil rocks coast night waves harbour'.split(' ');

/**
 * A reply shaped like a real one (headings, paragraphs, a list, code), cut to exactly `tokens`
 * chunks as the stand-in splits it (a word with its trailing whitespace).
 */
export function replyMarkdown(tokens: number): string {
  const blocks: string[] = [];
  let index = 0;
  const word = () => words[index++ % words.length]!;
  const sentence = (count: number) => Array.from({ length: count }, word).join(' ');
  // Each round is about 180 chunks; make enough, then cut.
  for (let part = 1; part * 180 < tokens + 360; part++) {
    blocks.push(`## Part ${part}`, `${sentence(60)}.`, `${sentence(45)}.`);
    blocks.push(Array.from({ length: 5 }, () => `- ${word()} **${word()}** ${word()}`).join('\n'));
    blocks.push('```js\nconst light = keeper.lamp("oil");\nconsole.log(light);\n```', `${sentence(40)}.`);
  }
  const chunks = blocks.join('\n\n').match(/\S+\s*|\s+/g) ?? [];
  return chunks.slice(0, tokens).join('');
}

const phone = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true };

interface FrameRecord {
  at: number;
  handled?: number;
  kind: string;
  bytes: number;
  final: boolean;
}

interface BenchState {
  __bench: { opened: number; started: number; frames: FrameRecord[] };
}

/** Counts the chat socket's opens and records each message, before the page's own scripts run. */
function watchChat(): void {
  const state: BenchState['__bench'] = { opened: 0, started: 0, frames: [] };
  (window as unknown as BenchState).__bench = state;
  type SocketEvent = CustomEvent<{ message: { data: unknown }; cancelled?: boolean }>;
  document.addEventListener('htmx:ws:after:connection', () => state.opened++);
  document.addEventListener('htmx:ws:before:message:incoming', (event) => {
    const data = (event as SocketEvent).detail.message.data;
    const text = typeof data === 'string' ? data : '';
    // Data frames are JSON ({"event": …}); HTML frames are <hx-partial hx-target hx-swap>s.
    const kind = (/^\{"event":"([a-z-]+)|^<hx-partial hx-target="([^"]+)" hx-swap="([a-zA-Z]+)"/.exec(text) ?? []).slice(1).filter(Boolean).join(' ');
    const final = text.includes('hx-swap="outerHTML"') && text.includes('data-status="complete"');
    state.frames.push({ at: performance.now(), kind, bytes: text.length, final });
  }, true);
  // Runs after the page's own listeners on document: a message chat.js handled itself is done here.
  window.addEventListener('htmx:ws:before:message:incoming', (event) => {
    const frame = state.frames.at(-1);
    if (frame && (event as SocketEvent).detail.cancelled) frame.handled = performance.now();
  });
  document.addEventListener('htmx:ws:after:message:incoming', () => {
    const frame = state.frames.at(-1);
    if (frame) frame.handled = performance.now();
  }, true);
}

async function throttle(context: BrowserContext, page: Page, rate: number): Promise<CDPSession> {
  const session = await context.newCDPSession(page);
  await session.send('Emulation.setCPUThrottlingRate', { rate });
  await session.send('Performance.enable');
  return session;
}

async function mainThreadMetrics(session: CDPSession): Promise<Record<string, number>> {
  const { metrics } = await session.send('Performance.getMetrics');
  return Object.fromEntries(metrics.map((metric) => [metric.name, metric.value]));
}

/** One direct read: fetch /api/chat on the stand-in's origin, append each token's text to the DOM. */
async function readDirect(page: Page, session: CDPSession, model: string, marker: string): Promise<RenderRunDirect> {
  const before = await mainThreadMetrics(session);
  const run = await page.evaluate(
    async ({ model, marker }) => {
      const output = document.getElementById('output')!;
      const text = document.createTextNode('');
      output.replaceChildren(text);
      const started = performance.now();
      let firstToken = 0;
      const response = await fetch('/api/chat', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: `Benchmark message ${marker}` }] }),
      });
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      let buffered = '';
      let finished = false;
      while (!finished) {
        const { value, done } = await reader.read();
        if (done) break;
        buffered += value;
        let newline = buffered.indexOf('\n');
        while (newline >= 0) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          newline = buffered.indexOf('\n');
          if (!line) continue;
          const chunk = JSON.parse(line) as { message?: { content?: string }; done?: boolean };
          if (chunk.message?.content) {
            text.appendData(chunk.message.content);
            firstToken ||= performance.now();
          }
          if (chunk.done) finished = true;
        }
      }
      return { totalMs: performance.now() - started, firstTokenMs: firstToken - started, characters: text.length };
    },
    { model, marker },
  );
  const after = await mainThreadMetrics(session);
  const delta = (name: string) => round(((after[name] ?? 0) - (before[name] ?? 0)) * 1000, 1);
  return { ...run, layoutMs: delta('LayoutDuration'), taskMs: delta('TaskDuration') };
}

/** One Hearth reply: type, press Send, wait until the finished message is in the DOM. */
async function sendInHearth(page: Page, session: CDPSession, message: string, standin: StandinProcess, marker: string): Promise<RenderRunHearth> {
  const before = await mainThreadMetrics(session);
  const timing = await page.evaluate(async (message) => {
    const bench = (window as unknown as BenchState).__bench;
    bench.frames = [];
    const thread = document.getElementById('chat-thread')!;
    const known = new Set([...thread.querySelectorAll('.chat-message-assistant')]);
    const input = document.getElementById('chat-input') as HTMLTextAreaElement;
    input.value = message;
    let firstToken = 0;
    const done = new Promise<number>((resolve) => {
      const observer = new MutationObserver(() => {
        const replies = [...thread.querySelectorAll('.chat-message-assistant')].filter((element) => !known.has(element));
        const reply = replies.at(-1);
        if (!reply) return;
        if (!firstToken && (reply.querySelector('.chat-message-body')?.textContent ?? '').length > 0) firstToken = performance.now();
        if (reply.getAttribute('data-status') === 'complete') {
          observer.disconnect();
          resolve(performance.now());
        }
      });
      observer.observe(thread, { childList: true, subtree: true, characterData: true, attributes: true, attributeFilter: ['data-status'] });
    });
    const started = performance.now();
    bench.started = started;
    const startedWall = performance.timeOrigin + started;
    document.getElementById('chat-send')!.click();
    const ended = await done;
    const frames = bench.frames;
    const final = frames.findLast((frame) => frame.final);
    const streamed = frames.filter((frame) => !frame.final && frame.at < (final?.at ?? Infinity));
    // Streamed text: append data frames now, escaped-HTML swaps into the body before.
    const text = frames.filter((frame) => frame.kind === 'append' || /-(?:body|thinking) beforeend$/.test(frame.kind));
    return {
      startedWall,
      totalMs: ended - started,
      firstTokenMs: firstToken - started,
      lastStreamedMs: (streamed.at(-1)?.handled ?? started) - started,
      finalArrivedMs: (final?.at ?? ended) - started,
      finalSwapMs: ended - (final?.at ?? ended),
      frames: frames.length,
      streamHandlingMs: text.reduce((total, frame) => total + ((frame.handled ?? frame.at) - frame.at), 0),
    };
  }, message);
  const after = await mainThreadMetrics(session);
  const delta = (name: string) => round(((after[name] ?? 0) - (before[name] ?? 0)) * 1000, 1);
  const modelStart = standin.startedAt(marker);
  return {
    totalMs: timing.totalMs,
    firstTokenMs: timing.firstTokenMs,
    modelStartMs: modelStart === undefined ? Number.NaN : modelStart + performance.timeOrigin - timing.startedWall,
    lastStreamedMs: timing.lastStreamedMs,
    finalSwapMs: timing.finalSwapMs,
    waitForFinalMs: timing.finalArrivedMs - timing.lastStreamedMs,
    frames: timing.frames,
    streamHandlingMs: timing.streamHandlingMs,
    scriptMs: delta('ScriptDuration'),
    layoutMs: delta('LayoutDuration'),
    styleMs: delta('RecalcStyleDuration'),
    taskMs: delta('TaskDuration'),
  };
}

const directPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>direct</title><style>body{font:16px/1.5 system-ui;margin:0;padding:12px}#output{white-space:pre-wrap;overflow-wrap:anywhere}</style></head>
<body><main id="output"></main></body></html>`;

export async function measureBrowserRender(target: BrowserRenderTarget, options: BrowserRenderOptions, browser?: Browser): Promise<BrowserRenderResult> {
  const ownBrowser = !browser;
  browser ??= await launchBrowser();
  const reply = replyMarkdown(options.tokens);
  await target.standin.setReply({ content: reply });
  // The stand-in keys stream starts by `bench-stream-N`; these numbers stay clear of the other phases'.
  let markers = 900_000 + Math.floor(Math.random() * 90_000) * 10;
  const nextMarker = () => `bench-stream-${++markers}`;
  const directContext = await browser.newContext(phone);
  const hearthContext = await browser.newContext(phone);
  try {
    // Direct: a page on the stand-in's origin; only that one navigation is answered by Playwright.
    const direct = await directContext.newPage();
    const directUrl = `${target.standin.url}/bench-direct-read`;
    await direct.route(directUrl, (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: directPage }));
    await direct.goto(directUrl);
    await direct.unrouteAll();
    const directSession = await throttle(directContext, direct, options.cpuThrottle);

    // Hearth: the real login form, then the chat page.
    await hearthContext.addInitScript(watchChat);
    const hearth = await hearthContext.newPage();
    hearth.setDefaultTimeout(60_000);
    await hearth.goto(`${target.baseUrl}/login`);
    await hearth.locator('input[name="password"]').fill(target.password);
    await Promise.all([hearth.waitForURL(`${target.baseUrl}/`), hearth.locator('input[name="password"]').press('Enter')]);
    const session = await throttle(hearthContext, hearth, options.cpuThrottle);

    const openNewChat = async () => {
      await hearth.goto(`${target.baseUrl}/`);
      await hearth.waitForFunction(() => (window as unknown as BenchState).__bench.opened > 0, undefined, { polling: 20 });
    };

    const directRuns: RenderRunDirect[] = [];
    const hearthRuns: RenderRunHearth[] = [];
    // One warm-up of each, then rounds of one of each, the order alternating.
    for (let round = 0; round <= options.rounds; round++) {
      const runHearth = async () => {
        await openNewChat();
        const marker = nextMarker();
        const profiling = options.profilePath && round === options.rounds;
        const tracing = options.tracePath && round === options.rounds;
        if (tracing) await browser.startTracing(hearth, { categories: ['devtools.timeline', 'v8.execute', 'disabled-by-default-devtools.timeline'] });
        if (profiling) {
          await session.send('Profiler.enable');
          await session.send('Profiler.setSamplingInterval', { interval: 100 });
          await session.send('Profiler.start');
        }
        const run = await sendInHearth(hearth, session, `Benchmark message ${marker}`, target.standin, marker);
        if (tracing) {
          const trace = await browser.stopTracing();
          fs.writeFileSync(options.tracePath!, trace);
          const { traceEvents } = JSON.parse(trace.toString('utf8')) as { traceEvents: TraceEvent[] };
          target.log(`  trace of the last Hearth reply in ${options.tracePath}; main-thread work (first text at ${round2(run.firstTokenMs)} ms):`);
          for (const line of summariseTrace(traceEvents, run.firstTokenMs)) target.log(`    ${line}`);
        }
        if (profiling) {
          const { profile } = await session.send('Profiler.stop');
          fs.writeFileSync(options.profilePath!, JSON.stringify(profile));
          target.log(`  CPU profile of the last Hearth reply in ${options.profilePath}; most self time:`);
          for (const line of topFunctions(profile as unknown as Parameters<typeof topFunctions>[0])) target.log(`    ${line}`);
          target.log('  its socket messages (ms after Send, time to handle, size, kind):');
          for (const line of await frameTimeline(hearth)) target.log(`    ${line}`);
        }
        return run;
      };
      const runDirect = () => readDirect(direct, directSession, target.model, nextMarker());
      let directRun: RenderRunDirect;
      let hearthRun: RenderRunHearth;
      if (round % 2 === 0) {
        directRun = await runDirect();
        hearthRun = await runHearth();
      } else {
        hearthRun = await runHearth();
        directRun = await runDirect();
      }
      if (directRun.characters !== reply.length) throw new Error(`the direct page got ${directRun.characters} characters of ${reply.length}`);
      if (round === 0) continue;
      directRuns.push(directRun);
      hearthRuns.push(hearthRun);
      target.log(
        `  round ${round}: direct ${round2(directRun.totalMs)} ms (first token ${round2(directRun.firstTokenMs)} ms, layout ${directRun.layoutMs} ms), Hearth ${round2(hearthRun.totalMs)} ms (${round2(hearthRun.totalMs / directRun.totalMs)}x; ` +
          `model starts ${round2(hearthRun.modelStartMs)} ms, last streamed ${round2(hearthRun.lastStreamedMs)} ms, final arrives +${round2(hearthRun.waitForFinalMs)} ms, ` +
          `final swap ${round2(hearthRun.finalSwapMs)} ms, ${hearthRun.frames} frames, handling text ${round2(hearthRun.streamHandlingMs)} ms, script ${hearthRun.scriptMs} / layout ${hearthRun.layoutMs} / style ${hearthRun.styleMs} ms)`,
      );
    }
    const pick = (key: keyof RenderRunHearth) => round(median(hearthRuns.map((run) => run[key])), 1);
    const ratios = hearthRuns.map((run, index) => run.totalMs / directRuns[index]!.totalMs);
    return {
      tokens: options.tokens,
      characters: reply.length,
      rounds: options.rounds,
      cpuThrottle: options.cpuThrottle,
      direct: directRuns.map((run) => ({ ...run, totalMs: round2(run.totalMs), firstTokenMs: round2(run.firstTokenMs) })),
      directLayoutMs: round(median(directRuns.map((run) => run.layoutMs)), 1),
      hearth: hearthRuns.map((run) => Object.fromEntries(Object.entries(run).map(([key, value]) => [key, round2(value)])) as unknown as RenderRunHearth),
      directMedianMs: round(median(directRuns.map((run) => run.totalMs)), 1),
      hearthMedianMs: pick('totalMs'),
      ratio: round(median(ratios), 2),
      ratioQuartiles: [round(percentile(ratios, 0.25), 2), round(percentile(ratios, 0.75), 2)],
      ratioOfMedians: round(median(hearthRuns.map((run) => run.totalMs)) / median(directRuns.map((run) => run.totalMs)), 2),
      breakdown: {
        firstTokenMs: pick('firstTokenMs'),
        modelStartMs: pick('modelStartMs'),
        lastStreamedMs: pick('lastStreamedMs'),
        finalSwapMs: pick('finalSwapMs'),
        waitForFinalMs: pick('waitForFinalMs'),
        frames: pick('frames'),
        streamHandlingMs: pick('streamHandlingMs'),
        scriptMs: pick('scriptMs'),
        layoutMs: pick('layoutMs'),
        styleMs: pick('styleMs'),
        taskMs: pick('taskMs'),
      },
    };
  } finally {
    await directContext.close();
    await hearthContext.close();
    if (ownBrowser) await browser.close();
  }
}

const round2 = (value: number) => round(value, 1);

/** Run alone: builds if needed, starts the stand-in and the server, measures, cleans up. */
async function runAlone(): Promise<void> {
  const { values } = parseArgs({
    options: {
      tokens: { type: 'string', default: '3000' },
      rounds: { type: 'string', default: '15' },
      'cpu-throttle': { type: 'string', default: '4' },
      profile: { type: 'string' },
      trace: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const log = (line: string) => console.log(line);
  ensureBuild(log);
  const workRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-render-'));
  const password = randomBytes(12).toString('base64url');
  let standin: StandinProcess | undefined;
  let stopServer: (() => Promise<void>) | undefined;
  try {
    standin = await startStandinProcess();
    const server = await startServer(builtServerSettings(workRoot, standin.url, password));
    stopServer = server.stop;
    const options = { tokens: Number(values.tokens), rounds: Number(values.rounds), cpuThrottle: Number(values['cpu-throttle']), profilePath: values.profile, tracePath: values.trace };
    log(`browser render: ${options.tokens} tokens at full speed, ${options.rounds} rounds, CPU ${options.cpuThrottle}x slower, 390x844...`);
    const result = await measureBrowserRender({ baseUrl: server.baseUrl, password, standin, model: 'llama3.2:latest', log }, options);
    log(
      `direct ${result.directMedianMs} ms, Hearth ${result.hearthMedianMs} ms: ratio ${result.ratio} (median of ${result.rounds} rounds; ` +
        `quartiles ${result.ratioQuartiles.join('–')}; ratio of the medians ${result.ratioOfMedians})`,
    );
    log(`Hearth breakdown (medians): ${JSON.stringify(result.breakdown)}`);
    if (values.json) console.log(JSON.stringify(result, null, 2));
  } finally {
    await stopServer?.().catch(() => undefined);
    await standin?.stop().catch(() => undefined);
    fs.rmSync(workRoot, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.on('exit', killAllChildren);
  runAlone().catch((error: unknown) => {
    console.error(`browser render failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    killAllChildren();
    process.exit(1);
  });
}
