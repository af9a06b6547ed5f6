import type { FastifyInstance } from 'fastify';
import type { ApprovalDesk } from '../tools-engine/approvals.js';
import type { ToolRegistry } from '../tools-engine/tool-registry.js';

export interface ToolsRoutesDependencies {
  registry: ToolRegistry;
  approvals: ApprovalDesk;
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

/** The /tools page: what the assistant can use, and what it may do without asking. */
export function registerToolsRoutes(app: FastifyInstance, dependencies: ToolsRoutesDependencies): void {
  const { registry, approvals } = dependencies;

  app.get<{ Querystring: { changed?: string } }>('/tools', (request, reply) => {
    const changed = typeof request.query.changed === 'string' ? request.query.changed.slice(0, 120) : '';
    return reply.view('tools', {
      title: 'Tools',
      ...toolRowsFor(registry, approvals),
      notice: changed ? `${changed} will ask you before it acts again.` : undefined,
      csrfToken: reply.generateCsrf(),
    });
  });

  app.post<{ Body: { tool?: string } }>('/tools/revoke', { preHandler: app.csrfProtection }, async (request, reply) => {
    const name = typeof request.body?.tool === 'string' ? request.body.tool : '';
    if (!approvals.revoke(name)) {
      return reply.code(404).view('not-found', { title: 'Nothing to revoke', message: `"${name.slice(0, 80)}" was not set to run without asking.` });
    }
    request.log.info({ tool: name }, 'always-allow revoked');
    return reply.redirect(`/tools?changed=${encodeURIComponent(name)}`, 303);
  });
}
