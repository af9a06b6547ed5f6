/*
 * The MCP servers Hearth talks to: each one connected in the background (Hearth's start-up never
 * waits for them), its tool list kept current (`notifications/tools/list_changed`), restarted with
 * back-off when it dies, and stopped on close() with no child process left behind.
 */
import { EventEmitter } from 'node:events';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool as McpToolDefinition } from '@modelcontextprotocol/sdk/types.js';
import type { InputSchema } from './mcp-arguments.js';
import type { McpServerConfig } from './mcp-config.js';
import { defuseServerText } from './mcp-results.js';

/**
 * The MCP SDK, and the stdio transport built on it: about 20 MB of memory and 0.4 s to load, so
 * they are loaded when the first server connects. A Hearth without MCP servers never loads them.
 */
async function loadMcpSdk() {
  const [client, sse, streamableHttp, types, stdio] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/sse.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('./stdio-process-transport.js'),
  ]);
  return {
    Client: client.Client,
    SSEClientTransport: sse.SSEClientTransport,
    StreamableHTTPClientTransport: streamableHttp.StreamableHTTPClientTransport,
    StreamableHTTPError: streamableHttp.StreamableHTTPError,
    ErrorCode: types.ErrorCode,
    McpError: types.McpError,
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
    StdioProcessTransport: stdio.StdioProcessTransport,
  };
}

type McpSdk = Awaited<ReturnType<typeof loadMcpSdk>>;

export type McpServerState = 'disabled' | 'starting' | 'up' | 'down' | 'stopped';
export type McpTransportKind = 'stdio' | 'streamable-http' | 'sse';

export interface McpServerStatus {
  name: string;
  state: McpServerState;
  /** The transport in use (for http servers: Streamable HTTP, or SSE after the fallback). */
  transport: McpTransportKind | undefined;
  toolCount: number;
  /** Short and human: why the server is down, or what went wrong last. */
  lastError: string | undefined;
  /** Tools left out (a name clash, too many tools). */
  notes: string[];
  restarts: number;
  /** When the next start attempt is due, while down. */
  retryAt: Date | undefined;
  /** The child process, for stdio servers that are running. */
  pid: number | undefined;
}

/** One tool as Hearth offers it: `name` is `<server>.<tool>`, `toolName` what the server calls it. */
export interface McpToolInfo {
  name: string;
  server: string;
  toolName: string;
  /** From the server: untrusted, already defused and cut. */
  description: string;
  inputSchema: InputSchema;
  /** The server marks it read-only (`annotations.readOnlyHint`). */
  readOnly: boolean;
  /** mcp.json's `allowTools` lets it run without asking. */
  allowedByConfig: boolean;
  timeoutMs: number;
}

export interface McpProgress {
  progress: number;
  total: number | undefined;
  message: string | undefined;
}

export interface McpCallOptions {
  /** Aborting sends `notifications/cancelled` to the server and ends the call at once. */
  signal?: AbortSignal;
  /** Default: the server's `timeoutSeconds`. Progress notifications restart the clock. */
  timeoutMs?: number;
  onProgress?: (progress: McpProgress) => void;
}

export interface McpLogger {
  debug(object: object, message: string): void;
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
}

export interface McpServerManagerOptions {
  /** First restart delay after a crash; it doubles at each failed attempt up to `maxRestartDelayMs`. */
  initialRestartDelayMs?: number;
  maxRestartDelayMs?: number;
  /** How long connecting (start + initialize + tools/list) may take. */
  connectTimeoutMs?: number;
  /** Hearth's name and version, sent to servers at initialize. */
  clientVersion?: string;
}

/** A call that could not be made or did not finish: the message is written for the model. */
export class McpCallError extends Error {
  override name = 'McpCallError';
}

const maximumToolsPerServer = 200;
const maximumToolPages = 50;
const descriptionCharacters = 200;
const stderrTailCharacters = 4000;
/** A server that stayed up this long starts its back-off from the beginning after the next crash. */
const stableUptimeMs = 30_000;
const exitWaitMs = 5000;
const sessionEndWaitMs = 1000;

export const sanitizeToolName = (name: string): string => name.replace(/[^A-Za-z0-9_.-]+/g, '_').slice(0, 64);
const comparableName = (name: string) => name.toLowerCase().replace(/-/g, '_');

function cutDescription(text: string | undefined): string {
  const line = defuseServerText(text ?? '').replace(/\s+/g, ' ').trim();
  return line.length > descriptionCharacters ? `${line.slice(0, descriptionCharacters - 1)}…` : line;
}

function errorText(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim().slice(0, 300);
}

const formatSeconds = (milliseconds: number) => `${Number((milliseconds / 1000).toFixed(milliseconds < 10_000 ? 1 : 0))} s`;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Waits until the process is gone, killing it if it outstays `exitWaitMs`. */
async function ensureExited(pid: number): Promise<void> {
  const deadline = Date.now() + exitWaitMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (!isAlive(pid)) return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** One configured server and its live connection (a fresh Client per start). */
class ServerConnection {
  state: McpServerState;
  transportKind: McpTransportKind | undefined;
  client: Client | undefined;
  transport: Transport | undefined;
  pid: number | undefined;
  tools: McpToolInfo[] = [];
  notes: string[] = [];
  lastError: string | undefined;
  stderrTail = '';
  restarts = 0;
  failedAttempts = 0;
  upSince = 0;
  retryAt: Date | undefined;
  retryTimer: NodeJS.Timeout | undefined;
  refreshing = false;
  refreshAgain = false;
  /** Pids this connection started, waited for on close. */
  readonly childPids = new Set<number>();

  constructor(readonly config: McpServerConfig) {
    this.state = config.enabled ? 'starting' : 'disabled';
  }

  status(): McpServerStatus {
    return {
      name: this.config.name,
      state: this.state,
      transport: this.transportKind,
      toolCount: this.tools.length,
      lastError: this.lastError,
      notes: [...this.notes],
      restarts: this.restarts,
      retryAt: this.retryAt,
      pid: this.state === 'up' || this.state === 'starting' ? this.pid : undefined,
    };
  }

  /**
   * Why the server died, from what it wrote to stderr: the last line that reads like an error
   * (a stack trace's "Error: …" rather than its "at …" lines), else the last line.
   */
  stderrSummary(): string | undefined {
    const lines = this.stderrTail.split('\n').map((line) => line.trim()).filter((line) => line && !/^at\s|^Node\.js v\d/.test(line));
    const reason = lines.findLast((line) => /error|fatal|exception|denied|refused|cannot|can't|failed|invalid|missing|not found|unauthori[sz]ed/i.test(line)) ?? lines.at(-1);
    return reason === undefined ? undefined : defuseServerText(reason).slice(0, 300);
  }
}

export interface McpServerManagerEvents {
  /** The set of tools changed (a server came up or down, or sent tools/list_changed). */
  'tools-changed': [];
  /** Any server's status changed. */
  'status-changed': [];
}

export class McpServerManager extends EventEmitter<McpServerManagerEvents> {
  readonly #connections = new Map<string, ServerConnection>();
  readonly #logger: McpLogger;
  readonly #options: Required<McpServerManagerOptions>;
  #closing = false;
  #started = false;
  #sdk: Promise<McpSdk> | undefined;
  /** Resolved when each enabled server's first start attempt has ended. */
  readonly #firstAttempts: Promise<void>[] = [];

  constructor(configs: McpServerConfig[], logger: McpLogger, options: McpServerManagerOptions = {}) {
    super();
    this.#logger = logger;
    this.#options = {
      initialRestartDelayMs: options.initialRestartDelayMs ?? 1000,
      maxRestartDelayMs: options.maxRestartDelayMs ?? 60_000,
      connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
      clientVersion: options.clientVersion ?? '0.1.0',
    };
    for (const config of configs) this.#connections.set(config.name, new ServerConnection(config));
  }

  /** Starts every enabled server in the background and returns at once. */
  start(): void {
    if (this.#started || this.#closing) return;
    this.#started = true;
    for (const connection of this.#connections.values()) {
      if (connection.config.enabled) this.#firstAttempts.push(this.#connect(connection));
    }
  }

  /** Resolves when every enabled server has been tried once (up or down). For tests and scripts. */
  async whenStarted(): Promise<void> {
    await Promise.all(this.#firstAttempts);
  }

  status(): McpServerStatus[] {
    return [...this.#connections.values()].map((connection) => connection.status());
  }

  /** The tools of every server that is up, in server order then the server's order. */
  tools(): McpToolInfo[] {
    return [...this.#connections.values()].flatMap((connection) => (connection.state === 'up' ? connection.tools : []));
  }

  async callTool(serverName: string, toolName: string, args: Record<string, unknown>, options: McpCallOptions = {}): Promise<CallToolResult> {
    const connection = this.#connections.get(serverName);
    if (!connection) throw new McpCallError(`there is no MCP server named "${serverName}"`);
    const client = connection.client;
    if (connection.state !== 'up' || !client) {
      const why = connection.lastError ? ` (${connection.lastError})` : '';
      throw new McpCallError(`the MCP server "${serverName}" is ${connection.state === 'disabled' ? 'disabled' : 'not running'}${why}`);
    }
    const timeoutMs = options.timeoutMs ?? connection.config.timeoutMs;
    const onProgress = options.onProgress;
    if (options.signal?.aborted) throw new McpCallError('stopped by the person');
    // The SDK never removes the abort listener it adds: give it a signal that lives for this call only.
    const callStop = new AbortController();
    const forwardStop = () => callStop.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', forwardStop, { once: true });
    try {
      const result = await client.callTool({ name: toolName, arguments: args }, undefined, {
        signal: callStop.signal,
        timeout: timeoutMs,
        resetTimeoutOnProgress: true,
        ...(onProgress && {
          onprogress: (progress) => onProgress({ progress: progress.progress, total: progress.total, message: progress.message === undefined ? undefined : defuseServerText(progress.message).slice(0, 200) }),
        }),
      });
      return result as CallToolResult;
    } catch (error) {
      if (options.signal?.aborted) throw new McpCallError('stopped by the person');
      // A connected client means the SDK is loaded: this only waits for the loaded module.
      const { McpError, ErrorCode, StreamableHTTPError } = await this.#loadSdk();
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) throw new McpCallError(`no answer from "${serverName}" within ${formatSeconds(timeoutMs)}`);
      if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
        const reason = connection.stderrSummary() ?? connection.lastError;
        throw new McpCallError(`the MCP server "${serverName}" stopped during the call${reason ? ` (${reason})` : ''}; it is being restarted`);
      }
      if (error instanceof McpError) throw new McpCallError(`"${serverName}" answered with an error: ${defuseServerText(errorText(error.message))}`);
      // Streamable HTTP has no open connection to lose: a network failure is how a dead server shows,
      // and 404 is how a restarted one says it forgot our session (the spec's cue to initialize again;
      // some servers, the reference "everything" server among them, answer 400 "No valid session ID").
      const sessionGone = error instanceof StreamableHTTPError && (error.code === 404 || (error.code === 400 && /session/i.test(error.message)));
      if (connection.transportKind !== 'stdio' && (error instanceof TypeError || sessionGone)) this.#connectionLost(connection, client, error);
      if (sessionGone) throw new McpCallError(`the MCP server "${serverName}" restarted and forgot this session; reconnecting, try again in a moment`);
      throw new McpCallError(`calling "${serverName}" failed: ${errorText(error)}`);
    } finally {
      options.signal?.removeEventListener('abort', forwardStop);
    }
  }

  /** Starts one server again now (a Restart button), with its back-off reset. Resolves when it is up or down. */
  async restart(serverName: string): Promise<void> {
    const connection = this.#connections.get(serverName);
    if (!connection || !connection.config.enabled || this.#closing || connection.state === 'starting') return;
    clearTimeout(connection.retryTimer);
    connection.retryTimer = undefined;
    const { client } = connection;
    connection.client = undefined;
    connection.tools = [];
    connection.state = 'starting';
    this.#changed(true);
    if (client) {
      client.onclose = undefined;
      await client.close().catch(() => undefined);
    }
    const pid = connection.pid;
    if (pid !== undefined && connection.childPids.has(pid)) {
      await ensureExited(pid);
      connection.childPids.delete(pid);
    }
    connection.failedAttempts = 0;
    connection.restarts += 1;
    await this.#connect(connection);
  }

  /** Stops every server and waits until each child process has exited. */
  async close(): Promise<void> {
    this.#closing = true;
    const connections = [...this.#connections.values()];
    for (const connection of connections) {
      clearTimeout(connection.retryTimer);
      connection.retryTimer = undefined;
      connection.retryAt = undefined;
    }
    await Promise.all(
      connections.map(async (connection) => {
        const { client, transport } = connection;
        connection.client = undefined;
        connection.transport = undefined;
        if (connection.state !== 'disabled') connection.state = 'stopped';
        connection.tools = [];
        try {
          // Streamable HTTP: tell the server the session is over (DELETE), without holding up shutdown.
          if (client && transport instanceof (await this.#loadSdk()).StreamableHTTPClientTransport) {
            await Promise.race([transport.terminateSession().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, sessionEndWaitMs).unref())]);
          }
          // Client.close closes the transport: stdin closed, then SIGTERM, then SIGKILL, to the server's whole process group.
          if (client) await client.close();
          else if (transport) await transport.close();
        } catch (error) {
          this.#logger.debug({ server: connection.config.name, err: error }, 'MCP server close failed');
        }
        await Promise.all([...connection.childPids].map(ensureExited));
        connection.childPids.clear();
      }),
    );
    this.emit('status-changed');
  }

  /**
   * The last resort as Hearth's process exits (process.on('exit'): synchronous only): SIGKILL to
   * the process group of every server still running, so none outlives Hearth. close() first.
   */
  killProcessesNow(): void {
    for (const connection of this.#connections.values()) {
      for (const pid of connection.childPids) {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      connection.childPids.clear();
    }
  }

  #loadSdk(): Promise<McpSdk> {
    return (this.#sdk ??= loadMcpSdk());
  }

  #changed(toolsToo: boolean): void {
    if (toolsToo) this.emit('tools-changed');
    this.emit('status-changed');
  }

  #createTransports(connection: ServerConnection, sdk: McpSdk): Array<{ kind: McpTransportKind; create: () => Transport }> {
    const { StdioProcessTransport, SSEClientTransport, StreamableHTTPClientTransport } = sdk;
    const { config } = connection;
    if (config.transport === 'stdio') {
      return [
        {
          kind: 'stdio',
          create: () => {
            const transport = new StdioProcessTransport({ command: config.command, args: config.args, env: config.env, cwd: config.cwd });
            // Note the child as soon as it exists, so close() during start-up still waits for it to exit.
            const start = transport.start.bind(transport);
            transport.start = async () => {
              await start();
              if (transport.pid !== null) {
                connection.pid = transport.pid;
                connection.childPids.add(transport.pid);
              }
            };
            transport.stderr.on('data', (chunk: Buffer) => {
              connection.stderrTail = (connection.stderrTail + chunk.toString('utf8')).slice(-stderrTailCharacters);
            });
            return transport;
          },
        },
      ];
    }
    const url = new URL(config.url);
    const requestInit = { headers: config.headers };
    // The SDK sends requestInit's headers on SSE's event stream as well as on its POSTs.
    const sse = { kind: 'sse' as const, create: () => new SSEClientTransport(url, { requestInit }) };
    if (config.transport === 'sse') return [sse];
    return [{ kind: 'streamable-http', create: () => new StreamableHTTPClientTransport(url, { requestInit }) }, sse];
  }

  async #connect(connection: ServerConnection): Promise<void> {
    const { config } = connection;
    if (this.#closing) return;
    connection.state = 'starting';
    connection.retryAt = undefined;
    this.#changed(false);
    let failure: unknown;
    let sdk: McpSdk | undefined;
    try {
      sdk = await this.#loadSdk();
    } catch (error) {
      failure = error;
    }
    const attempts = sdk ? this.#createTransports(connection, sdk) : [];
    for (const [index, attempt] of attempts.entries()) {
      if (this.#closing || !sdk) return;
      const { Client, StdioProcessTransport, StreamableHTTPError, ToolListChangedNotificationSchema } = sdk;
      const client = new Client({ name: 'hearth', version: this.#options.clientVersion }, { capabilities: {} });
      const transport = attempt.create();
      connection.transport = transport;
      connection.stderrTail = '';
      try {
        await client.connect(transport, { timeout: this.#options.connectTimeoutMs });
        if (this.#closing) {
          await client.close().catch(() => undefined);
          return;
        }
        connection.client = client;
        connection.transportKind = attempt.kind;
        client.onclose = () => this.#connectionLost(connection, client, undefined);
        client.onerror = (error) => this.#logger.debug({ server: config.name, err: error }, 'MCP transport error');
        client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
          void this.#refreshTools(connection, client);
        });
        await this.#listTools(connection, client);
        connection.state = 'up';
        connection.lastError = undefined;
        // From now on stderr explains a crash; start-up chatter (warnings, banners) would only blur it.
        if (connection.stderrTail) this.#logger.debug({ server: config.name, stderr: connection.stderrTail }, 'MCP server start-up output');
        connection.stderrTail = '';
        connection.upSince = Date.now();
        this.#logger.info({ server: config.name, transport: attempt.kind, tools: connection.tools.length }, 'MCP server up');
        this.#changed(true);
        return;
      } catch (error) {
        failure = error;
        const pid = transport instanceof StdioProcessTransport ? transport.pid : null;
        client.onclose = undefined;
        await client.close().catch(() => undefined);
        if (pid !== null) {
          await ensureExited(pid);
          connection.childPids.delete(pid);
        }
        // Only a 4xx to Streamable HTTP's initialize means "try the older SSE transport".
        const tryNext = index < attempts.length - 1 && error instanceof StreamableHTTPError && error.code !== undefined && error.code >= 400 && error.code < 500 && error.code !== 401 && error.code !== 403;
        if (!tryNext) break;
        this.#logger.debug({ server: config.name, err: error }, 'Streamable HTTP refused; trying SSE');
      }
    }
    if (this.#closing) return;
    connection.client = undefined;
    connection.transport = undefined;
    connection.tools = [];
    connection.lastError = `could not start: ${connection.stderrSummary() ?? errorText(failure)}`;
    this.#logger.warn({ server: config.name, err: failure }, 'MCP server did not start');
    this.#scheduleRestart(connection);
  }

  async #listTools(connection: ServerConnection, client: Client): Promise<void> {
    const { config } = connection;
    const definitions: McpToolDefinition[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < maximumToolPages; page++) {
      const result = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: this.#options.connectTimeoutMs });
      definitions.push(...result.tools);
      cursor = result.nextCursor;
      if (!cursor || definitions.length > maximumToolsPerServer) break;
    }
    const notes: string[] = [];
    const taken = new Set<string>();
    const tools: McpToolInfo[] = [];
    for (const definition of definitions) {
      const safe = sanitizeToolName(definition.name);
      if (!safe || taken.has(comparableName(safe))) {
        notes.push(`tool "${defuseServerText(definition.name).slice(0, 64)}" left out: its name clashes with another tool`);
        continue;
      }
      if (definition.execution?.taskSupport === 'required') {
        // Task-only tools answer "come back later"; Hearth's calls wait for the result.
        notes.push(`tool "${safe}" left out: it only runs as a background task, which Hearth does not support`);
        continue;
      }
      if (tools.length >= maximumToolsPerServer) {
        notes.push(`only the first ${maximumToolsPerServer} tools are offered`);
        break;
      }
      taken.add(comparableName(safe));
      tools.push({
        name: `${config.name}.${safe}`,
        server: config.name,
        toolName: definition.name,
        description: cutDescription(definition.description ?? definition.title ?? definition.annotations?.title),
        inputSchema: definition.inputSchema as InputSchema,
        readOnly: definition.annotations?.readOnlyHint === true,
        allowedByConfig: config.allowTools === true || config.allowTools.includes(definition.name) || config.allowTools.includes(safe),
        timeoutMs: config.timeoutMs,
      });
    }
    connection.tools = tools;
    connection.notes = notes;
  }

  /** On tools/list_changed: one refresh at a time, and one more if the list changed again meanwhile. */
  async #refreshTools(connection: ServerConnection, client: Client): Promise<void> {
    if (connection.refreshing) {
      connection.refreshAgain = true;
      return;
    }
    connection.refreshing = true;
    try {
      do {
        connection.refreshAgain = false;
        if (connection.client !== client || this.#closing) return;
        await this.#listTools(connection, client);
        if (connection.client !== client || this.#closing) return;
        this.#logger.info({ server: connection.config.name, tools: connection.tools.length }, 'MCP tool list changed');
        this.#changed(true);
      } while (connection.refreshAgain);
    } catch (error) {
      this.#logger.warn({ server: connection.config.name, err: error }, 'MCP tool list refresh failed');
    } finally {
      connection.refreshing = false;
    }
  }

  /** The connection ended without close(): the server crashed or went away. */
  #connectionLost(connection: ServerConnection, client: Client, error: unknown): void {
    if (connection.client !== client || this.#closing) return;
    // A stdio transport closes when its child has exited: forget the pid before it can be reused.
    if (connection.transportKind === 'stdio' && connection.pid !== undefined) connection.childPids.delete(connection.pid);
    connection.client = undefined;
    connection.transport = undefined;
    connection.tools = [];
    const reason = connection.stderrSummary() ?? (error === undefined ? undefined : errorText(error));
    connection.lastError = `stopped unexpectedly${reason ? `: ${reason}` : ''}`;
    if (Date.now() - connection.upSince > stableUptimeMs) connection.failedAttempts = 0;
    this.#logger.warn({ server: connection.config.name, reason }, 'MCP server stopped; restarting');
    client.onclose = undefined;
    void client.close().catch(() => undefined);
    this.#scheduleRestart(connection);
  }

  #scheduleRestart(connection: ServerConnection): void {
    const delay = Math.min(this.#options.initialRestartDelayMs * 2 ** connection.failedAttempts, this.#options.maxRestartDelayMs);
    connection.failedAttempts += 1;
    connection.state = 'down';
    connection.retryAt = new Date(Date.now() + delay);
    this.#changed(true);
    connection.retryTimer = setTimeout(() => {
      connection.retryTimer = undefined;
      connection.restarts += 1;
      void this.#connect(connection);
    }, delay);
    connection.retryTimer.unref();
  }
}
