/*
 * The one call the app makes at start: read mcp.json, log what is wrong with it, and start the
 * servers in the background. The returned `problems` are for the tools page.
 */
import { loadMcpConfig, type Environment } from './mcp-config.js';
import { McpServerManager, type McpLogger, type McpServerManagerOptions } from './mcp-servers.js';

export interface McpSetup {
  servers: McpServerManager;
  /** The config file that was read (absolute path). */
  file: string;
  /** One line each, naming the file, the server entry and the mistake. */
  problems: string[];
}

export function startMcpServers(configFile: string, environment: Environment, logger: McpLogger, options: McpServerManagerOptions = {}): McpSetup {
  const { servers: configs, problems, file } = loadMcpConfig(configFile, environment);
  for (const problem of problems) logger.warn({ file }, problem);
  const servers = new McpServerManager(configs, logger, options);
  servers.start();
  return { servers, file, problems };
}
