import type { FastifyBaseLogger } from 'fastify';
import type { ToolServices } from '../../engine/tools/tool.js';
import type { ToolRegistry } from '../../engine/tools/tool-registry.js';
import { McpArgumentReader } from './mcp-arguments.js';
import type { McpServerManager } from './mcp-servers.js';
import { createMcpTools } from './mcp-tool.js';

/** The registry group of one server's tools. */
const groupOf = (server: string) => `mcp:${server}`;

/**
 * Keeps the registry's MCP tools in step with the servers: one group per server, replaced when
 * a server connects, changes its list (tools/list_changed) or goes down.
 */
export function linkMcpToolsToRegistry(servers: McpServerManager, registry: ToolRegistry, services: ToolServices, logger: FastifyBaseLogger): () => void {
  const argumentReader = new McpArgumentReader();
  const known = new Set<string>();
  const refresh = () => {
    const byServer = new Map<string, ReturnType<typeof createMcpTools>>();
    for (const tool of createMcpTools(servers, services, argumentReader)) {
      const group = byServer.get(tool.info.server) ?? [];
      group.push(tool);
      byServer.set(tool.info.server, group);
    }
    for (const server of new Set([...known, ...byServer.keys()])) {
      const clashes = registry.replaceGroup(groupOf(server), byServer.get(server) ?? []);
      if (clashes.length > 0) logger.warn({ server, tools: clashes }, 'MCP tools left out: another tool already has their names');
    }
    known.clear();
    for (const server of byServer.keys()) known.add(server);
  };
  servers.on('tools-changed', refresh);
  refresh();
  return () => servers.off('tools-changed', refresh);
}
