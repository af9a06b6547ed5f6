import fs from 'node:fs';
import compress from '@fastify/compress';
import formBody from '@fastify/formbody';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { isAuthenticated, requireLogin, requireOwnOriginForChanges, requireSameOriginSocket } from './web/auth/auth-guard.js';
import { loginFormToken, preventCaching, registerAuthRoutes } from './web/auth/auth-routes.js';
import { createLoginBudgets } from './web/auth/login-budget.js';
import { PasswordCheckGate } from './web/auth/password-check-gate.js';
import { SessionSockets } from './web/auth/session-sockets.js';
import type { Credentials } from './web/auth/credentials.js';
import { registerChatRoutes } from './web/chat/chat-routes.js';
import { createChatService } from './replies/chat-service.js';
import { createReplyRunner } from './replies/reply-runner.js';
import { registerChatSocket } from './web/chat/chat-socket.js';
import { registerExportRoutes } from './web/chat/export-routes.js';
import { registerSendRoutes } from './web/chat/send-routes.js';
import { registerTitleRoutes } from './web/chat/title-routes.js';
import { createChatReader } from './web/chat/chat-reader.js';
import { createChatView } from './web/chat/chat-view.js';
import { ReplyHub } from './replies/reply-hub.js';
import type { Config } from './config/config.js';
import { projectRoot } from './config/project-root.js';
import { googleServicesFromConfig } from './providers/google/google-services.js';
import { registerAppInstallRoutes } from './web/http/app-install-routes.js';
import { registerErrorHandlers } from './web/http/error-handlers.js';
import { capConnectionsPerAddress, fastifyTimeouts, listenerLimits, type ListenerLimits } from './web/http/listener-limits.js';
import { registerProxyNotice } from './web/http/proxy-notice.js';
import { registerSecurityHeaders } from './web/http/security-headers.js';
import { registerSocketsWithShutdown } from './web/http/shutdown.js';
import { registerSessions } from './web/http/sessions.js';
import { registerStaticFiles } from './web/http/static-files.js';
import { createTemplates, registerViews } from './web/http/views.js';
import type { ChatModel } from './engine/llm/chat-model.js';
import { createMarkdownRenderer } from './engine/markdown/markdown-renderer.js';
import { createMemoryFile } from './providers/memory/memory-file.js';
import { MemoryUpdateTool } from './providers/memory/memory-update-tool.js';
import { linkMcpToolsToRegistry } from './providers/mcp/mcp-registry-link.js';
import { loadMcpServers, type McpSetup } from './providers/mcp/mcp-setup.js';
import { registerMemoryRoutes } from './web/memory-page/memory-routes.js';
import { createSystemPromptBuilder } from './replies/system-prompt.js';
import { registerToolsRoutes } from './web/tools-page/tools-routes.js';
import { createConversationStore } from './storage/conversation-store.js';
import { createAttachmentStore } from './storage/attachment-store.js';
import { photoLimits } from './providers/photos/photo-checks.js';
import { registerPhotoRoutes } from './web/photos/photo-routes.js';
import { createVisionModels } from './providers/photos/vision-models.js';
import { createSettingsStore } from './storage/settings-store.js';
import { createToolCallStore } from './storage/tool-call-store.js';
import { ApprovalDesk } from './engine/tools/approvals.js';
import { createToolCallRunner } from './engine/tools/tool-call-runner.js';
import { FindToolsTool } from './engine/tools/find-tools-tool.js';
import { findToolsName, loadTools, toolsFolder, type ToolRegistry } from './engine/tools/tool-registry.js';
import type { ToolServices } from './engine/tools/tool.js';
import type { SqliteDatabase } from './storage/database.js';
import { createFreeSpaceReclaimer } from './storage/free-space.js';
import { createSqliteSessionStore } from './storage/session-store.js';
import { prepareLocalTls, serveLocalTls, type LocalTlsDependencies, type LocalTlsService } from './web/tls/serve-local-tls.js';

export interface AppDependencies {
  config: Config;
  database: SqliteDatabase;
  chatModel: ChatModel;
  credentials: Pick<Credentials, 'passwordHash' | 'secretKey'>;
  logger?: FastifyServerOptions['logger'];
  /** The tools to offer; by default every class in tools/. */
  registry?: ToolRegistry;
  /** Extra services for tools (Gmail...), merged into what every tool receives. */
  toolServices?: Partial<ToolServices>;
  /** MCP servers (tests give their own); by default read from MCP_CONFIG. */
  mcp?: McpSetup;
  /**
   * Start the MCP servers as the app is built (the default, for tests). server.ts starts them
   * once it listens, so a Hearth that cannot start leaves no server process behind.
   */
  startMcpServers?: boolean;
  /** Where `${VAR}` in mcp.json is looked up (default: process.env). */
  environment?: Record<string, string | undefined>;
  /** How long an approval card waits for an answer (tests shorten it). */
  approvalExpiryMs?: number;
  /** Wrong passwords allowed per address per window before that address waits (tests lower it). */
  loginAttempts?: number;
  /** Wrong passwords per window shared by every browser without a device cookie, whatever its address. */
  untrustedLoginAttempts?: number;
  /** Wrong passwords per window for one browser with a device cookie (one that logged in before). */
  deviceLoginAttempts?: number;
  loginWindowMs?: number;
  /** bcrypt compares in flight at once. */
  passwordChecksInFlight?: number;
  /** Time allowed to receive a whole request (headers and body); tests shorten it. */
  requestTimeoutMs?: number;
  /** Time-outs and the per-address connection cap of every listener; tests lower them. */
  listenerLimits?: Partial<ListenerLimits>;
  /** How often an idle WebSocket re-checks that its session still exists. */
  socketSessionCheckMs?: number;
  /** TLS=auto test seams: clock, network interfaces, mDNS. */
  localTls?: LocalTlsDependencies;
}

/** Bodies of logged-in requests (a memory file, a prompt template, a long message). */
const authenticatedBodyLimit = 1024 * 1024;
/** Everything else (login form, unknown routes) is parsed only this far. */
const anonymousBodyLimit = 16 * 1024;

export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return process.stdout.isTTY
    ? { level, transport: { target: 'pino-pretty', options: { translateTime: 'HH:MM:ss', ignore: 'pid,hostname' } } }
    : { level };
}

/** Builds the whole app without listening, so tests can use app.inject() and a real socket alike. */
export async function buildApp(dependencies: AppDependencies): Promise<FastifyInstance & { hub: ReplyHub; registry: ToolRegistry; memory: ReturnType<typeof createMemoryFile>; mcp: McpSetup; localTls?: LocalTlsService }> {
  const { config, database, chatModel } = dependencies;
  const localTls = config.tls === 'auto' ? prepareLocalTls(config, dependencies.localTls) : undefined;
  const https = Boolean(config.tlsCert && config.tlsKey);
  // Slow-body, slow-header and silent sockets are closed (Fastify's default requestTimeout is 0:
  // never), and so is a TLS socket that never finishes its handshake. A WebSocket leaves these
  // timers once its upgrade is done. The set-up listener gets the same limits.
  const limits = listenerLimits({
    trustProxy: config.trustProxy,
    overrides: { requestTimeoutMs: dependencies.requestTimeoutMs, ...dependencies.listenerLimits },
  });
  const timeouts = fastifyTimeouts(limits);
  const app = Fastify({
    logger: dependencies.logger ?? false,
    trustProxy: config.trustProxy ?? false,
    bodyLimit: anonymousBodyLimit,
    requestTimeout: timeouts.requestTimeout,
    http: timeouts.http,
    ...(https ? { https: { cert: fs.readFileSync(config.tlsCert!), key: fs.readFileSync(config.tlsKey!), ...timeouts.tls } } : {}),
    ...(localTls ? { https: { cert: localTls.current().certificatePem, key: localTls.current().privateKeyPem, ...timeouts.tls } } : {}),
  } as FastifyServerOptions) as unknown as FastifyInstance;
  capConnectionsPerAddress(app.server, limits);

  const store = createConversationStore(database);
  const toolCalls = createToolCallStore(database);
  const attachments = createAttachmentStore(database);
  const visionModels = createVisionModels(chatModel);
  const settings = createSettingsStore(database);
  const sessionStore = createSqliteSessionStore(database);
  // 30 wrong passwords per 15 minutes from all untrusted browsers together is 2,880 a day: a
  // password that set-password accepts (zxcvbn score 3, 10^8 guesses) holds for decades.
  const loginBudgets = createLoginBudgets(database, {
    perAddress: dependencies.loginAttempts ?? 10,
    perDevice: dependencies.deviceLoginAttempts ?? 10,
    untrusted: dependencies.untrustedLoginAttempts ?? 30,
    windowMs: dependencies.loginWindowMs ?? 15 * 60_000,
  });
  // Two of libuv's four threads at most, so file reads for the chat never queue behind bcrypt.
  // Up to 8 trusted browsers and 32 addresses that have not failed may wait (about 4 s at cost
  // 12), 8 others.
  const passwordCheckGate = new PasswordCheckGate({
    concurrent: dependencies.passwordChecksInFlight ?? 2,
    queuedTrusted: 8,
    queuedClean: 32,
    queuedSuspect: 8,
  });
  const hub = new ReplyHub();
  const sessionSockets = new SessionSockets({
    authenticatedUntil: (sessionId) => sessionStore.authenticatedUntil(sessionId),
    checkEveryMs: dependencies.socketSessionCheckMs,
  });
  const templates = createTemplates(projectRoot);
  const view = createChatView(templates);
  const reader = createChatReader({ store, toolCalls, hub, view, attachments });
  const memory = createMemoryFile({ file: config.memoryFile, maxBytes: config.memoryMaxBytes, database });
  const toolServices: ToolServices = {
    config,
    logger: app.log,
    now: () => new Date(),
    google: googleServicesFromConfig(config, app.log),
    ...dependencies.toolServices,
  };
  const registry = dependencies.registry ?? (await loadTools(toolsFolder, toolServices));
  if (!registry.find(findToolsName)) registry.add(new FindToolsTool(toolServices, registry));
  // Servers start in the background: start-up is not delayed by a slow or broken one.
  const mcp = dependencies.mcp ?? loadMcpServers(config.mcpConfig, dependencies.environment ?? process.env, app.log);
  if (dependencies.startMcpServers !== false) mcp.servers.start();
  let mcpClosed: Promise<void> | undefined;
  const closeMcp = () => (mcpClosed ??= mcp.servers.close());
  const unlinkMcp = linkMcpToolsToRegistry(mcp.servers, registry, toolServices, app.log);
  const approvals = new ApprovalDesk(settings, { expiryMs: dependencies.approvalExpiryMs });
  const systemPrompt = createSystemPromptBuilder({
    templateFile: config.systemPromptFile,
    // Any MCP tool offered counts, whether the list describes it, names it or leaves it to find_tools.
    describeTools: () => ({ text: registry.describe({ usage: toolCalls.usageCounts() }), outsideText: registry.describesOutsideText }),
    memoryMaxBytes: config.memoryMaxBytes,
    maxToolRounds: config.maxToolRounds,
  });
  const markdown = createMarkdownRenderer();
  const replyRunner = createReplyRunner({
    store,
    toolCalls,
    hub,
    chatModel,
    memory,
    logger: app.log,
    maxToolRounds: config.maxToolRounds,
    toolCallRunner: createToolCallRunner({ registry, memoryUpdateTool: new MemoryUpdateTool(toolServices, memory), toolCalls, conversations: store, approvals, logger: app.log }),
    buildSystemPrompt: (memoryText) => systemPrompt.build(memoryText),
    isKnownTool: (name) => registry.find(name) !== undefined,
    markdown,
    attachments,
  });
  const freeSpace = createFreeSpaceReclaimer(database, { logError: (error) => app.log.error({ err: error }, 'giving disk space back failed') });
  const chatService = createChatService({ store, hub, chatModel, replyRunner, configuredModel: config.defaultModel, attachments, visionModels, toolCalls, approvals, freeSpace });

  toolCalls.closeInterrupted('The server stopped before this finished.');
  const interrupted = store.closeInterruptedReplies('The server stopped while this reply was being written. The text so far is kept.');
  if (interrupted > 0) app.log.warn({ interrupted }, 'marked replies cut off by a restart as failed');
  const prune = () => {
    sessionStore.prune();
    loginBudgets.prune();
    attachments.pruneUnsent(Date.now() - photoLimits.unsentLifetimeMs);
    // Photos removed from the tray or pruned above, and anything else deleted since the last pass.
    freeSpace.reclaimSoon();
  };
  const pruneTimer = setInterval(prune, 600_000).unref();
  prune();

  await registerSecurityHeaders(app, { https: https || Boolean(localTls) || Boolean(config.trustProxy) });
  // After the security headers, before sessions are read or bodies parsed: a change from another
  // origin stops here.
  app.addHook('onRequest', requireOwnOriginForChanges);
  registerProxyNotice(app, { trustProxy: Boolean(config.trustProxy) });
  await app.register(compress, { threshold: 1024, encodings: ['br', 'gzip'] });
  await app.register(formBody);
  await registerSessions(app, { secretKey: dependencies.credentials.secretKey, ttlHours: config.sessionTtlHours, store: sessionStore });
  await registerViews(app, templates);
  await registerStaticFiles(app, projectRoot);
  registerAppInstallRoutes(app, { projectRoot });
  await registerSocketsWithShutdown(app, {
    stopReplies: async () => {
      await hub.stopAll();
      // Once no reply can call them, MCP servers stop alongside the pages and requests, not after.
      void closeMcp();
    },
    socketOptions: { maxPayload: 4 * 1024 * 1024 },
  });
  registerErrorHandlers(app, { loginFormToken });
  // Public: the phone set-up page and CA certificate (never a key), plus renewal and mDNS.
  const localTlsService = localTls && serveLocalTls(app, { tls: localTls, config, templates, projectRoot, limits, dependencies: dependencies.localTls });

  app.get('/healthz', async (request) => {
    // Without a login only "the server is up": whether a reply is being written tells a LAN
    // neighbour when the owner is chatting, and the model servers' states are the owner's business.
    if (!isAuthenticated(request)) return { status: 'ok' };
    // Each model server by name and state only, never addresses or keys.
    return { status: 'ok', backends: await chatModel.checkBackends(), activeReplies: hub.activeCount };
  });

  await registerAuthRoutes(app, {
    passwordHash: () => dependencies.credentials.passwordHash,
    sessionSockets,
    loginBudgets,
    passwordCheckGate,
    sessionTtlMs: config.sessionTtlHours * 3_600_000,
  });

  // Everything registered in here needs a logged-in session. The check runs on request, before
  // any body is read, so anonymous clients cannot make the server parse large bodies.
  await app.register(async (authenticated) => {
    authenticated.addHook('onRoute', (route) => {
      route.bodyLimit ??= authenticatedBodyLimit;
    });
    authenticated.addHook('onRequest', preventCaching);
    authenticated.addHook('onRequest', requireLogin);
    registerChatRoutes(authenticated, { store, hub, chatModel, chatService, view, reader, visionModels });
    registerExportRoutes(authenticated, { store, toolCalls, attachments });
    registerPhotoRoutes(authenticated, { attachments });
    registerSendRoutes(authenticated, { chatService });
    registerTitleRoutes(authenticated, { chatService });
    registerMemoryRoutes(authenticated, { memory, systemPrompt });
    registerToolsRoutes(authenticated, { registry, approvals, mcp });
    authenticated.register(async (socketScope) => {
      socketScope.addHook('preHandler', requireSameOriginSocket);
      registerChatSocket(socketScope, { chatService, store, hub, view, reader, sessionSockets });
    });
  });

  app.addHook('onClose', async () => {
    clearInterval(pruneTimer);
    unlinkMcp();
    await closeMcp();
    await markdown.close();
  });

  return Object.assign(app, { hub, registry, memory, mcp, localTls: localTlsService });
}
