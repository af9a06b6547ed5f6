/**
 * Benchmark settings: each one is an environment variable (BENCH_RELAY_TOKENS=5000) or the same
 * name as a flag (npm run bench -- --relay-tokens=5000). Flags win over the environment.
 */

export const phaseNames = ['footprint', 'relay', 'latency', 'concurrency', 'adversarial', 'page', 'history', 'render'] as const;
export type PhaseName = (typeof phaseNames)[number];

export interface BenchOptions {
  /** A real Ollama to measure against instead of the stand-in (e.g. http://127.0.0.1:11434). */
  ollamaHost: string | undefined;
  model: string | undefined;
  /** The prompt sent to a real Ollama; the stand-in ignores it. */
  prompt: string;
  relayTokens: number;
  relayRounds: number;
  tokensPerSecond: number;
  /** Characters per streamed chunk (one chunk = one "token"). */
  chunkChars: number;
  latencyRounds: number;
  latencyTokens: number;
  /** Tokens per chat in the concurrency runs. */
  replyTokens: number;
  chats: number[];
  /** The concurrent chats start spread over this long, as people do not press Send together. */
  rampMs: number;
  /** Direct ollama-js streams run beside the chats, as the baseline, at most this many. */
  directSample: number;
  /** Adversarial output: size of each shape, and characters per streamed chunk. */
  adversarialKb: number;
  adversarialChunkChars: number;
  startups: number;
  historyMessages: number;
  historyConversations: number;
  openMessages: number;
  cpuThrottle: number;
  pageLoads: number;
  /** Browser rendering: length of the streamed reply, and rounds of (direct read, Hearth). */
  renderTokens: number;
  renderRounds: number;
  /** 'dist' runs the compiled server as npm start does; 'tsx' runs src/server.ts through tsx. */
  server: 'dist' | 'tsx';
  logLevel: string;
  /** Extra Node.js flags for the server process, e.g. "--cpu-prof --cpu-prof-dir=/tmp/hearth-prof". */
  serverNodeArgs: string[];
  /** Keep the server's log here (by default it goes with the temporary folder). */
  serverLog: string | undefined;
  output: string;
  skip: Set<PhaseName>;
  timeLimitSeconds: number;
}

function settingsFrom(argv: string[], env: NodeJS.ProcessEnv): Map<string, string> {
  const settings = new Map<string, string>();
  for (const [name, value] of Object.entries(env)) {
    if (name.startsWith('BENCH_') && value !== undefined && value !== '') settings.set(name, value);
  }
  for (const argument of argv) {
    const match = /^--([a-z][a-z0-9-]*)(?:=(.*))?$/.exec(argument);
    if (!match) throw new Error(`bench: cannot read the argument "${argument}" (expected --name=value)`);
    settings.set(`BENCH_${match[1]!.replace(/-/g, '_').toUpperCase()}`, match[2] ?? 'true');
  }
  return settings;
}

export function readBenchOptions(argv: string[] = process.argv.slice(2), env: NodeJS.ProcessEnv = process.env): BenchOptions {
  const settings = settingsFrom(argv, env);
  const known = new Set<string>();
  const text = (name: string): string | undefined => {
    known.add(name);
    return settings.get(name);
  };
  const number = (name: string, fallback: number, minimum: number, maximum: number): number => {
    const value = text(name);
    if (value === undefined) return fallback;
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed < minimum || parsed > maximum) {
      throw new Error(`bench: ${name}=${value} is not a number from ${minimum} to ${maximum}`);
    }
    return parsed;
  };

  const skip = new Set<PhaseName>();
  for (const name of (text('BENCH_SKIP') ?? '').split(',').map((part) => part.trim()).filter(Boolean)) {
    if (!(phaseNames as readonly string[]).includes(name)) throw new Error(`bench: BENCH_SKIP names an unknown phase "${name}" (${phaseNames.join(', ')})`);
    skip.add(name as PhaseName);
  }
  const only = text('BENCH_ONLY');
  if (only) {
    const wanted = only.split(',').map((part) => part.trim());
    for (const name of phaseNames) if (!wanted.includes(name)) skip.add(name);
  }

  const chats = (text('BENCH_CHATS') ?? '50,200')
    .split(',')
    .map((part) => Number(part.trim()))
    .filter((count) => Number.isInteger(count) && count > 0 && count <= 2000);

  const server = text('BENCH_SERVER') ?? 'dist';
  if (server !== 'dist' && server !== 'tsx') throw new Error(`bench: BENCH_SERVER=${server} must be dist or tsx`);

  const options: BenchOptions = {
    ollamaHost: text('BENCH_OLLAMA_HOST'),
    model: text('BENCH_MODEL'),
    prompt: text('BENCH_PROMPT') ?? 'Write a long, detailed story about a lighthouse keeper. Use at least 600 words.',
    relayTokens: number('BENCH_RELAY_TOKENS', 5000, 1, 1_000_000),
    relayRounds: number('BENCH_RELAY_ROUNDS', 9, 1, 100),
    tokensPerSecond: number('BENCH_TOKENS_PER_SECOND', 50, 1, 10_000),
    chunkChars: number('BENCH_CHUNK_CHARS', 6, 2, 4096),
    latencyRounds: number('BENCH_LATENCY_ROUNDS', 8, 1, 200),
    latencyTokens: number('BENCH_LATENCY_TOKENS', 100, 2, 100_000),
    replyTokens: number('BENCH_REPLY_TOKENS', 400, 2, 100_000),
    chats,
    rampMs: number('BENCH_RAMP_MS', 1000, 0, 60_000),
    directSample: number('BENCH_DIRECT_SAMPLE', 50, 1, 2000),
    adversarialKb: number('BENCH_ADVERSARIAL_KB', 1024, 1, 16 * 1024),
    adversarialChunkChars: number('BENCH_ADVERSARIAL_CHUNK_CHARS', 16, 1, 65_536),
    startups: number('BENCH_STARTUPS', 3, 1, 20),
    historyMessages: number('BENCH_HISTORY_MESSAGES', 100_000, 1000, 10_000_000),
    historyConversations: number('BENCH_HISTORY_CONVERSATIONS', 1000, 2, 1_000_000),
    openMessages: number('BENCH_OPEN_MESSAGES', 500, 2, 100_000),
    cpuThrottle: number('BENCH_CPU_THROTTLE', 4, 1, 20),
    pageLoads: number('BENCH_PAGE_LOADS', 3, 1, 20),
    renderTokens: number('BENCH_RENDER_TOKENS', 3000, 10, 100_000),
    renderRounds: number('BENCH_RENDER_ROUNDS', 15, 1, 50),
    server,
    logLevel: text('BENCH_LOG_LEVEL') ?? 'info',
    serverNodeArgs: (text('BENCH_SERVER_NODE_ARGS') ?? '').split(' ').filter(Boolean),
    serverLog: text('BENCH_SERVER_LOG'),
    output: text('BENCH_OUTPUT') ?? 'bench-results.json',
    skip,
    timeLimitSeconds: number('BENCH_TIME_LIMIT', 900, 30, 7200),
  };
  const unknown = [...settings.keys()].filter((name) => !known.has(name));
  if (unknown.length > 0) throw new Error(`bench: unknown setting ${unknown.join(', ')} (see docs/benchmarks.md)`);
  return options;
}

/** The text of one streamed chunk: a word of `chars` characters ending in a space, like a model token. */
export function chunkText(chars: number): string {
  return 'token'.repeat(Math.ceil(chars / 5)).slice(0, chars - 1) + ' ';
}
