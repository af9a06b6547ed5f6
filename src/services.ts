import { fileURLToPath } from 'node:url';
import pino, { type DestinationStream, type LoggerOptions } from 'pino';
import type { Config } from './config/config.js';
import { projectRoot } from './config/project-root.js';
import type { ChatModel } from './engine/llm/chat-model.js';
import { withToolCallModes } from './engine/llm/tool-call-mode.js';
import { createMarkdownRenderer, type MarkdownRenderer } from './engine/markdown/markdown-renderer.js';
import { ApprovalDesk } from './engine/tools/approvals.js';
import { FindToolsTool } from './engine/tools/find-tools-tool.js';
import { createToolCallRunner } from './engine/tools/tool-call-runner.js';
import { findToolsName, loadTools, type ToolRegistry } from './engine/tools/tool-registry.js';
import type { ToolServices } from './engine/tools/tool.js';
import { googleServicesFromConfig } from './providers/google/google-services.js';
import { linkMcpToolsToRegistry } from './providers/mcp/mcp-registry-link.js';
import { loadMcpServers, type McpSetup } from './providers/mcp/mcp-setup.js';
import { createMemoryFile } from './providers/memory/memory-file.js';
import { MemoryUpdateTool } from './providers/memory/memory-update-tool.js';
import { photoLimits } from './providers/photos/photo-checks.js';
import { createVisionModels } from './providers/photos/vision-models.js';
import { webServicesFromConfig } from './providers/web/web-services.js';
import { createChatService } from './replies/chat-service.js';
import { ReplyHub } from './replies/reply-hub.js';
import { contextTokensOf, createReplyRunner, serverStoppedText } from './replies/reply-runner.js';
import { createChatTitles } from './replies/chat-titles.js';
import { createSystemPromptBuilder } from './replies/system-prompt.js';
import { createAttachmentStore } from './storage/attachment-store.js';
import { createConversationStore } from './storage/conversation-store.js';
import type { SqliteDatabase } from './storage/database.js';
import { createFreeSpaceReclaimer } from './storage/free-space.js';
import { createSqliteSessionStore } from './storage/session-store.js';
import { createSettingsStore } from './storage/settings-store.js';
import { createToolCallStore } from './storage/tool-call-store.js';
import type { Credentials } from './web/auth/credentials.js';
import { createLoginBudgets } from './web/auth/login-budget.js';
import { PasswordCheckGate } from './web/auth/password-check-gate.js';
import { SessionSockets } from './web/auth/session-sockets.js';
import { createSessionSliding, sessionLifetimeFromConfig } from './web/auth/session-lifetime.js';
import { createChatReader } from './web/chat/chat-reader.js';
import { createChatView } from './web/chat/chat-view.js';
import { createTemplates } from './web/http/views.js';
import type { LocalTlsDependencies } from './web/tls/serve-local-tls.js';

/*
 * The object graph: stores, model, tools, MCP servers, memory, replies and what the pages read,
 * built once from the Config and handed to app.ts, which only registers them with Fastify.
 * Tests build the same graph (tests/support/test-app.ts), with their own parts where they pass one.
 */

/** tools/ beside src/: the same relative place from src/ (tsx) and from dist/src/ (compiled). */
export const toolsFolder = fileURLToPath(new URL('../tools/', import.meta.url));

/** pino's options, plus the stream to write to (tests read the log from one); false: nothing is logged. */
export type LoggerSetting = false | (LoggerOptions & { stream?: DestinationStream });

export interface ServiceOptions {
  config: Config;
  database: SqliteDatabase;
  chatModel: ChatModel;
  credentials: Pick<Credentials, 'passwordHash' | 'secretKey'>;
  logger?: LoggerSetting;
  /** The tools to offer; by default every class in tools/. */
  registry?: ToolRegistry;
  /** Extra services for tools (Gmail...), merged into what every tool receives. */
  toolServices?: Partial<ToolServices>;
  /** MCP servers (tests give their own); by default read from MCP_CONFIG. */
  mcp?: McpSetup;
  /**
   * Start the MCP servers as the graph is built (the default, for tests). server.ts starts them
   * once it listens, so a Hearth that cannot start leaves no server process behind.
   */
  startMcpServers?: boolean;
  /** Where `${VAR}` in mcp.json is looked up (default: process.env). */
  environment?: Record<string, string | undefined>;
  /** How long an approval card waits for an answer (tests shorten it). */
  approvalExpiryMs?: number;
  /** How long a deleted chat can be restored (tests shorten it). */
  undoDeleteMs?: number;
  /** Wrong passwords allowed per address per window before that address waits (tests lower it). */
  loginAttempts?: number;
  /** Wrong passwords per window shared by every browser without a device cookie, whatever its address. */
  untrustedLoginAttempts?: number;
  /** Wrong passwords per window for one browser with a device cookie (one that logged in before). */
  deviceLoginAttempts?: number;
  loginWindowMs?: number;
  /** bcrypt compares in flight at once. */
  passwordChecksInFlight?: number;
  /** How often an idle WebSocket re-checks that its session still exists. */
  socketSessionCheckMs?: number;
  /** How long a new chat's sidebar waits for the reply's first words before it is sent anyway (tests lengthen it). */
  sidebarWaitMs?: number;
  /** TLS=auto test seams: clock, network interfaces, mDNS. */
  localTls?: LocalTlsDependencies;
  /**
   * The Markdown worker to render with; by default the graph starts its own and closes it. Tests
   * share one per process: each worker costs a second of CPU to start.
   */
  markdown?: MarkdownRenderer;
}

/** The log as the server writes it: readable lines on a terminal, JSON for journald and files. */
export function loggerOptions(level: string): LoggerSetting {
  return process.stdout.isTTY ? { level, transport: { target: 'pino-pretty', options: { translateTime: 'HH:MM:ss', ignore: 'pid,hostname' } } } : { level };
}

function createLogger(setting: LoggerSetting | undefined) {
  if (!setting) return pino({ level: 'silent' });
  const { stream, ...options } = setting;
  return stream ? pino(options, stream) : pino(options);
}

export async function createServices(options: ServiceOptions) {
  const { config, database } = options;
  const chatModel = withToolCallModes(options.chatModel, config);
  const logger = createLogger(options.logger);

  const store = createConversationStore(database);
  const toolCalls = createToolCallStore(database);
  const attachments = createAttachmentStore(database);
  const settings = createSettingsStore(database);
  const sessionStore = createSqliteSessionStore(database);
  const visionModels = createVisionModels(chatModel);
  const freeSpace = createFreeSpaceReclaimer(database, { logError: (error) => logger.error({ err: error }, 'giving disk space back failed') });

  // 30 wrong passwords per 15 minutes from all untrusted browsers together is 2,880 a day: a
  // password that set-password accepts (zxcvbn score 3, 10^8 guesses) holds for decades.
  const loginBudgets = createLoginBudgets(database, {
    perAddress: options.loginAttempts ?? 10,
    perDevice: options.deviceLoginAttempts ?? 10,
    untrusted: options.untrustedLoginAttempts ?? 30,
    windowMs: options.loginWindowMs ?? 15 * 60_000,
  });
  // Two of libuv's four threads at most, so file reads for the chat never queue behind bcrypt.
  // Up to 8 trusted browsers and 32 addresses that have not failed may wait (about 4 s at cost
  // 12), 8 others.
  const passwordCheckGate = new PasswordCheckGate({
    concurrent: options.passwordChecksInFlight ?? 2,
    queuedTrusted: 8,
    queuedClean: 32,
    queuedSuspect: 8,
  });
  const sessionSockets = new SessionSockets({
    authenticatedUntil: (sessionId) => sessionStore.authenticatedUntil(sessionId),
    checkEveryMs: options.socketSessionCheckMs,
  });
  const sessionLifetime = sessionLifetimeFromConfig(config);
  const sessionSliding = createSessionSliding(sessionStore, sessionLifetime);
  // TLS=auto's certificates need node-forge: loaded only then.
  const localTls = config.tls === 'auto' ? (await import('./web/tls/serve-local-tls.js')).prepareLocalTls(config, options.localTls) : undefined;

  const hub = new ReplyHub();
  const templates = createTemplates(projectRoot);
  const view = createChatView(templates);
  const memory = createMemoryFile({ file: config.memoryFile, maxBytes: config.memoryMaxBytes, database });

  const toolServices: ToolServices = {
    config,
    logger,
    now: () => new Date(),
    google: googleServicesFromConfig(config, logger),
    // The web tools' provider: its address checks, search library and page reader load on first use.
    web: webServicesFromConfig(config),
    ...options.toolServices,
  };
  const registry = options.registry ?? (await loadTools(toolsFolder, toolServices));
  if (!registry.find(findToolsName)) registry.add(new FindToolsTool(toolServices, registry));
  // The memory's own tool: the model calls it with its tag, the engine runs it like any other.
  if (!registry.forTag('memory')) registry.add(new MemoryUpdateTool(toolServices, memory));
  const reader = createChatReader({ store, toolCalls, hub, view, attachments, tools: registry });
  // Servers start in the background: start-up is not delayed by a slow or broken one.
  const mcp = options.mcp ?? loadMcpServers(config.mcpConfig, options.environment ?? process.env, logger);
  if (options.startMcpServers !== false) mcp.servers.start();
  let mcpClosed: Promise<void> | undefined;
  const closeMcp = () => (mcpClosed ??= mcp.servers.close());
  const unlinkMcp = linkMcpToolsToRegistry(mcp.servers, registry, toolServices, logger);
  const approvals = new ApprovalDesk(settings, { expiryMs: options.approvalExpiryMs });

  const systemPrompt = createSystemPromptBuilder({
    templateFile: config.systemPromptFile,
    // Any MCP tool offered counts, whether the list describes it, names it or leaves it to find_tools.
    describeTools: () => ({ text: registry.describe({ usage: toolCalls.usageCounts() }), outsideText: registry.describesOutsideText }),
    memoryMaxBytes: config.memoryMaxBytes,
    maxToolRounds: config.maxToolRounds,
  });
  const markdown = options.markdown ?? createMarkdownRenderer();
  const replyRunner = createReplyRunner({
    store,
    toolCalls,
    hub,
    chatModel,
    memory,
    logger,
    maxToolRounds: config.maxToolRounds,
    toolCallRunner: createToolCallRunner({ registry, toolCalls, conversations: store, approvals, logger }),
    buildSystemPrompt: (memoryText, tools) => systemPrompt.build(memoryText, tools),
    tools: registry,
    markdown,
    attachments,
  });
  const titles = createChatTitles({
    chatModel,
    store,
    hub,
    contextTokensFor: async (model) => contextTokensOf(await chatModel.describeModel(model)),
    logger,
  });
  const chatService = createChatService({
    titles,
    store,
    hub,
    chatModel,
    replyRunner,
    configuredModel: config.defaultModel,
    settings,
    attachments,
    visionModels,
    toolCalls,
    approvals,
    tools: registry,
    freeSpace,
    ...(options.undoDeleteMs === undefined ? {} : { undoDeleteMs: options.undoDeleteMs }),
  });

  // What a restart cut off is marked as such, once, before anyone can open a chat.
  toolCalls.closeInterrupted('The server stopped before this finished.');
  const interrupted = store.closeInterruptedReplies(serverStoppedText);
  if (interrupted > 0) logger.warn({ interrupted }, 'marked replies cut off by a restart as failed');
  // Chats deleted before a restart: the page that offered Undo is gone, so is the chance.
  chatService.purgeDeletedConversations({ all: true });
  const prune = () => {
    sessionStore.prune();
    loginBudgets.prune();
    attachments.pruneUnsent(Date.now() - photoLimits.unsentLifetimeMs);
    // A deleted chat whose purge timer did not run.
    chatService.purgeDeletedConversations();
    // Photos removed from the tray or pruned above, and anything else deleted since the last pass.
    freeSpace.reclaimSoon();
  };
  const pruneTimer = setInterval(prune, 600_000).unref();
  prune();

  return {
    config,
    credentials: options.credentials,
    logger,
    chatModel,
    store,
    toolCalls,
    attachments,
    sessionStore,
    visionModels,
    loginBudgets,
    passwordCheckGate,
    sessionSockets,
    sessionLifetime,
    sessionSliding,
    /** The Google accounts the tools use (the tools and chat pages show whether any is connected). */
    google: toolServices.google,
    localTls,
    localTlsDependencies: options.localTls,
    hub,
    templates,
    view,
    reader,
    memory,
    registry,
    mcp,
    approvals,
    systemPrompt,
    chatService,
    sidebarWaitMs: options.sidebarWaitMs ?? 1000,

    /** Stops every reply and waits for each to save; then the MCP servers stop, as nothing can call them now. */
    async stopReplies(): Promise<void> {
      titles.stop();
      await hub.stopAll();
      void closeMcp();
    },

    /** Everything the graph started: the prune timer, MCP servers, the page reader's and the Markdown worker. */
    async close(): Promise<void> {
      clearInterval(pruneTimer);
      chatService.stopPurging();
      unlinkMcp();
      await closeMcp();
      // The page reader's worker, when the graph made the web services (tests may pass their own).
      if (!options.toolServices?.web) await toolServices.web.close();
      // A renderer passed in belongs to whoever passed it.
      if (!options.markdown) await markdown.close();
    },
  };
}

export type Services = Awaited<ReturnType<typeof createServices>>;
