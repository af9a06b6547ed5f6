import type { FastifyInstance } from 'fastify';
import type { McpSetup } from '../../providers/mcp/mcp-setup.js';
import type { ApprovalDesk } from '../../engine/tools/approvals.js';
import type { ToolRegistry } from '../../engine/tools/tool-registry.js';
import { reauthorizeCommand } from '../../providers/google/google-errors.js';
import type { GoogleServices } from '../../providers/google/google-services.js';
import { fields, text } from '../http/request-schemas.js';

/** What the last action on the tools page did, for the page it redirects to. */
export interface ToolsNotice {
  action: 'allowed' | 'revoked' | 'restarted';
  /** The tool or server the action was done to, as the server found it (never text from an address). */
  name: string;
}

declare module 'fastify' {
  interface Session {
    /** Shown once by the next GET /tools, then dropped (a flash): a link cannot make the page say anything. */
    toolsNotice?: ToolsNotice;
  }
}

export interface ToolsRoutesDependencies {
  registry: ToolRegistry;
  approvals: ApprovalDesk;
  mcp: McpSetup;
  google: Pick<GoogleServices, 'accountStates'>;
}

export interface GoogleAccountView {
  account: string;
  state: 'connected' | 'needs-reauthorization';
  /** In plain words: works, or what to run to make it work again. */
  summary: string;
  command: string;
}

/** Each Google account and whether Gmail and Calendar work with it, in plain words. */
export function googleAccountViews(google: Pick<GoogleServices, 'accountStates'>): GoogleAccountView[] {
  return google.accountStates().map(({ account, state }) => ({
    account,
    state,
    summary: state === 'connected' ? 'Connected: the assistant can read its mail and calendar, and write drafts.' : 'Needs to be connected again: Google no longer accepts its permission.',
    command: state === 'connected' ? '' : reauthorizeCommand(account),
  }));
}

export interface McpServerView {
  name: string;
  state: string;
  /** In plain words: up with N tools, starting, down (and why, and when it is tried again). */
  summary: string;
  lastError: string;
  notes: string[];
  canRestart: boolean;
}

const stateWords: Record<string, string> = { up: 'Running', starting: 'Starting…', down: 'Not running', disabled: 'Turned off in the config', stopped: 'Stopped' };

/** The MCP servers from mcp.json, each with whether it is up and, if not, why. */
export function mcpServerViews(mcp: McpSetup, now = Date.now()): McpServerView[] {
  return mcp.servers.status().map((status) => {
    const tools = `${status.toolCount} tool${status.toolCount === 1 ? '' : 's'}`;
    const retry = status.state === 'down' && status.retryAt ? `; tried again in ${Math.max(1, Math.round((status.retryAt.getTime() - now) / 1000))} s` : '';
    return {
      name: status.name,
      state: status.state,
      summary: status.state === 'up' ? `${stateWords.up}, ${tools}${status.transport ? ` (${status.transport})` : ''}` : `${stateWords[status.state] ?? status.state}${retry}`,
      lastError: status.lastError ?? '',
      notes: status.notes,
      canRestart: status.state !== 'disabled',
    };
  });
}

export interface ToolRowView {
  name: string;
  description: string;
  source: string;
  actsOnWorld: boolean;
  alwaysAllowed: boolean;
  /** In plain words: does it ask before it runs, and why. */
  approval: string;
}

/** Every tool with where it comes from and whether it asks first; "Always allow" ticks shown and revocable. */
export function toolRowsFor(registry: ToolRegistry, approvals: ApprovalDesk): { tools: ToolRowView[]; orphanAllowed: string[] } {
  const allowed = new Set(approvals.alwaysAllowed());
  const tools = registry.all.map((tool) => {
    const alwaysAllowed = tool.actsOnWorld && allowed.has(tool.name);
    return {
      name: tool.name,
      description: tool.description,
      source: tool.source,
      actsOnWorld: tool.actsOnWorld,
      alwaysAllowed,
      approval: !tool.actsOnWorld
        ? 'Runs without asking: it only reads.'
        : alwaysAllowed
          ? 'Runs without asking: you chose "Always allow".'
          : 'Asks you before it acts.',
    };
  });
  // Ticks for tools that are gone (a removed MCP server) stay revocable, so nothing is hidden.
  const known = new Set(registry.all.map((tool) => tool.name));
  return { tools, orphanAllowed: [...allowed].filter((name) => !known.has(name)) };
}

/** The sentence for a notice; only actions the server did have one. */
export function toolsNoticeText(notice: ToolsNotice): string {
  switch (notice.action) {
    case 'allowed':
      return `${notice.name} will act without asking. Take it back here at any time.`;
    case 'revoked':
      return `${notice.name} will ask you before it acts again.`;
    case 'restarted':
      return `The ${notice.name} server is starting again.`;
  }
}

/** The /tools page: what the assistant can use, and what it may do without asking. */
export function registerToolsRoutes(app: FastifyInstance, dependencies: ToolsRoutesDependencies): void {
  const { registry, approvals, mcp, google } = dependencies;

  app.get('/tools', (request, reply) => {
    // The notice comes from the session, put there by the POST that redirected here; the
    // address carries none, so a link cannot make the page claim a tool was allowed.
    const notice = request.session.toolsNotice;
    if (notice) delete request.session.toolsNotice;
    return reply.view('tools', {
      title: 'Tools',
      ...toolRowsFor(registry, approvals),
      servers: mcpServerViews(mcp),
      googleAccounts: googleAccountViews(google),
      connectCommand: reauthorizeCommand(),
      mcpFile: mcp.file,
      mcpProblems: mcp.problems,
      notice: notice ? toolsNoticeText(notice) : undefined,
      csrfToken: reply.generateCsrf(),
    });
  });

  const toolForm = { schema: { body: fields({ tool: text('tool name') }, ['tool']) } };

  app.post<{ Body: { tool: string } }>('/tools/allow', toolForm, async (request, reply) => {
    const tool = registry.find(request.body.tool);
    if (!tool || !tool.actsOnWorld) {
      return reply.code(404).view('not-found', { title: 'Nothing to change', message: 'That tool does not exist or never asks first.' });
    }
    approvals.allowAlways(tool.name);
    request.log.info({ tool: tool.name }, 'always-allow set from the tools page');
    request.session.toolsNotice = { action: 'allowed', name: tool.name };
    return reply.redirect('/tools', 303);
  });

  app.post<{ Body: { server: string } }>('/tools/servers/restart', { schema: { body: fields({ server: text('server name') }, ['server']) } }, async (request, reply) => {
    const name = request.body.server;
    if (!mcp.servers.status().some((status) => status.name === name)) {
      return reply.code(404).view('not-found', { title: 'No such server', message: `There is no MCP server named "${name.slice(0, 80)}" in ${mcp.file}.` });
    }
    // In the background: the page comes back at once and shows "Starting…".
    void mcp.servers.restart(name).catch((error: unknown) => request.log.warn({ err: error, server: name }, 'MCP server restart failed'));
    request.session.toolsNotice = { action: 'restarted', name };
    return reply.redirect('/tools', 303);
  });

  app.post<{ Body: { tool: string } }>('/tools/revoke', toolForm, async (request, reply) => {
    const name = request.body.tool;
    if (!approvals.revoke(name)) {
      return reply.code(404).view('not-found', { title: 'Nothing to revoke', message: `"${name.slice(0, 80)}" was not set to run without asking.` });
    }
    request.log.info({ tool: name }, 'always-allow revoked');
    request.session.toolsNotice = { action: 'revoked', name };
    return reply.redirect('/tools', 303);
  });
}
