import fs from 'node:fs';
import compress from '@fastify/compress';
import formBody from '@fastify/formbody';
import Fastify, { type FastifyInstance, type FastifyServerOptions, type RouteOptions } from 'fastify';
import { projectRoot } from './config/project-root.js';
import type { Services } from './services.js';
import { isAuthenticated, requireLogin, requireOwnOriginForChanges, requireSameOriginSocket } from './web/auth/auth-guard.js';
import { loginFormToken, preventCaching, registerAuthRoutes } from './web/auth/auth-routes.js';
import { loginEndsAt, slideSession } from './web/auth/session-lifetime.js';
import { registerModelRoutes } from './web/chat/model-routes.js';
import { registerChatRoutes } from './web/chat/chat-routes.js';
import { registerChatSocket } from './web/chat/chat-socket.js';
import { registerExportRoutes } from './web/chat/export-routes.js';
import { registerMessageEditorRoutes } from './web/chat/message-editor-routes.js';
import { registerPhotoViewerRoutes } from './web/chat/photo-viewer-routes.js';
import { registerSendRoutes } from './web/chat/send-routes.js';
import { registerTitleRoutes } from './web/chat/title-routes.js';
import { registerAppInstallRoutes } from './web/http/app-install-routes.js';
import { registerCsrfCheck } from './web/http/csrf-check.js';
import { registerErrorHandlers } from './web/http/error-handlers.js';
import { capConnectionsPerAddress, fastifyTimeouts, listenerLimits, type ListenerLimits } from './web/http/listener-limits.js';
import { registerProxyNotice } from './web/http/proxy-notice.js';
import { requestValidation } from './web/http/request-schemas.js';
import { registerSecurityHeaders } from './web/http/security-headers.js';
import { registerSessions } from './web/http/sessions.js';
import { registerSocketsWithShutdown } from './web/http/shutdown.js';
import { registerStaticFiles } from './web/http/static-files.js';
import { registerViews } from './web/http/views.js';
import { registerMemoryRoutes } from './web/memory-page/memory-routes.js';
import { registerSettingsRoutes } from './web/settings-page/settings-routes.js';
import { registerPhotoRoutes } from './web/photos/photo-routes.js';
import type { LocalTlsService } from './web/tls/serve-local-tls.js';
import { registerToolsRoutes } from './web/tools-page/tools-routes.js';

/* Fastify only: the listener, plugins, hooks and routes, given the services (services.ts) to serve. */

export interface AppOptions {
  /** Time allowed to receive a whole request (headers and body); tests shorten it. */
  requestTimeoutMs?: number;
  /** Time-outs and the per-address connection cap of every listener; tests lower them. */
  listenerLimits?: Partial<ListenerLimits>;
  /** Told of every route as it is registered (the route table test walks them). */
  onRoute?: (route: RouteOptions) => void;
  /** Routes added to the logged-in scope after Hearth's own; tests use it to show a new route gets the scope's checks unasked. */
  moreLoggedInRoutes?: (scope: FastifyInstance) => void;
}

export type HearthApp = FastifyInstance & { localTls?: LocalTlsService };

/** Bodies of logged-in requests (a memory file, a prompt template, a long message). */
const authenticatedBodyLimit = 1024 * 1024;
/** Everything else (login form, unknown routes) is parsed only this far. */
const anonymousBodyLimit = 16 * 1024;

/** The app without listening, so tests can use app.inject() and a real socket alike. Closing it closes the services. */
export async function buildApp(services: Services, options: AppOptions = {}): Promise<HearthApp> {
  const { config, localTls } = services;
  const https = Boolean(config.tlsCert && config.tlsKey);
  // Slow-body, slow-header and silent sockets are closed (Fastify's default requestTimeout is 0:
  // never), and so is a TLS socket that never finishes its handshake. A WebSocket leaves these
  // timers once its upgrade is done. The set-up listener gets the same limits.
  const limits = listenerLimits({
    trustProxy: config.trustProxy,
    overrides: { requestTimeoutMs: options.requestTimeoutMs, ...options.listenerLimits },
  });
  const timeouts = fastifyTimeouts(limits);
  const app = Fastify({
    loggerInstance: services.logger,
    trustProxy: config.trustProxy ?? false,
    bodyLimit: anonymousBodyLimit,
    requestTimeout: timeouts.requestTimeout,
    http: timeouts.http,
    // Route schemas: ids are whole numbers, and a refusal names the field and the rule.
    ...requestValidation,
    ...(https ? { https: { cert: fs.readFileSync(config.tlsCert!), key: fs.readFileSync(config.tlsKey!), ...timeouts.tls } } : {}),
    ...(localTls ? { https: { cert: localTls.current().certificatePem, key: localTls.current().privateKeyPem, ...timeouts.tls } } : {}),
  } as FastifyServerOptions) as unknown as FastifyInstance;
  capConnectionsPerAddress(app.server, limits);
  if (options.onRoute) app.addHook('onRoute', options.onRoute);

  await registerSecurityHeaders(app, { https: https || Boolean(localTls) || Boolean(config.trustProxy) });
  // After the security headers, before sessions are read or bodies parsed: a change from another
  // origin stops here.
  app.addHook('onRequest', requireOwnOriginForChanges);
  registerProxyNotice(app, { trustProxy: Boolean(config.trustProxy) });
  await app.register(compress, { threshold: 1024, encodings: ['br', 'gzip'] });
  await app.register(formBody);
  await registerSessions(app, {
    secretKey: services.credentials.secretKey,
    cookieMaxAgeMs: loginEndsAt(services.sessionLifetime, 0, 0),
    store: services.sessionStore,
  });
  await registerViews(app, services.templates);
  await registerStaticFiles(app, projectRoot);
  registerAppInstallRoutes(app, { projectRoot });
  // Once no reply can call them, MCP servers stop alongside the pages and requests, not after.
  await registerSocketsWithShutdown(app, { stopReplies: () => services.stopReplies(), socketOptions: { maxPayload: 4 * 1024 * 1024 } });
  registerErrorHandlers(app, { loginFormToken });
  // Public: the phone set-up page and CA certificate (never a key), plus renewal and mDNS. Loaded
  // only with TLS=auto: node-forge, mDNS and the QR code are not needed otherwise.
  const localTlsService =
    localTls &&
    (await import('./web/tls/serve-local-tls.js')).serveLocalTls(app, { tls: localTls, config, templates: services.templates, projectRoot, limits, dependencies: services.localTlsDependencies });

  app.get('/healthz', async (request) => {
    // Without a login only "the server is up": whether a reply is being written tells a LAN
    // neighbour when the owner is chatting, and the model servers' states are the owner's business.
    if (!isAuthenticated(request)) return { status: 'ok' };
    // Each model server by name and state only, never addresses or keys.
    return { status: 'ok', backends: await services.chatModel.checkBackends(), activeReplies: services.hub.activeCount };
  });

  await registerAuthRoutes(app, {
    passwordHash: () => services.credentials.passwordHash,
    sessionSockets: services.sessionSockets,
    loginBudgets: services.loginBudgets,
    passwordCheckGate: services.passwordCheckGate,
    sessionLifetime: services.sessionLifetime,
    sessionSliding: services.sessionSliding,
  });

  // Everything registered in here needs a logged-in session. The check runs on request, before
  // any body is read, so anonymous clients cannot make the server parse large bodies.
  await app.register(async (authenticated) => {
    authenticated.addHook('onRoute', (route) => {
      route.bodyLimit ??= authenticatedBodyLimit;
    });
    authenticated.addHook('onRequest', preventCaching);
    authenticated.addHook('onRequest', requireLogin);
    // A login lasts while it is used: each request (at most once a minute) moves its end.
    authenticated.addHook('onRequest', async (request) => slideSession(request, services.sessionSliding));
    // Every POST, PUT, PATCH and DELETE in here needs the session's CSRF token; routes need not ask.
    registerCsrfCheck(authenticated);
    const { store, hub, chatModel, chatService, view, reader, toolCalls, attachments } = services;
    const hasGoogleAccount = () => services.google.listAccounts().length > 0;
    registerChatRoutes(authenticated, { store, hub, chatModel, chatService, view, reader, hasGoogleAccount });
    registerModelRoutes(authenticated, { chatModel, chatService, view });
    registerExportRoutes(authenticated, { store, toolCalls, attachments });
    registerMessageEditorRoutes(authenticated, { store, view });
    registerPhotoRoutes(authenticated, { attachments });
    registerPhotoViewerRoutes(authenticated, { attachments, view });
    registerSendRoutes(authenticated, { chatService });
    registerTitleRoutes(authenticated, { chatService, store, view });
    registerMemoryRoutes(authenticated, { memory: services.memory });
    registerSettingsRoutes(authenticated, { systemPrompt: services.systemPrompt });
    registerToolsRoutes(authenticated, { registry: services.registry, approvals: services.approvals, mcp: services.mcp, google: services.google });
    authenticated.register(async (socketScope) => {
      socketScope.addHook('preHandler', requireSameOriginSocket);
      registerChatSocket(socketScope, { chatService, store, hub, view, reader, sessionSockets: services.sessionSockets, sessionSliding: services.sessionSliding, sidebarWaitMs: services.sidebarWaitMs });
    });
    options.moreLoggedInRoutes?.(authenticated);
  });

  app.addHook('onClose', () => services.close());

  return Object.assign(app, { localTls: localTlsService });
}
