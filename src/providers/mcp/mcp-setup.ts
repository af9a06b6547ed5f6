/*
 * What the app does with mcp.json at start: read it, log what is wrong with it, and start the
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

/** Reads mcp.json and logs its problems; the servers start on `servers.start()`. */
export function loadMcpServers(configFile: string, environment: Environment, logger: McpLogger, options: McpServerManagerOptions = {}): McpSetup {
  const { servers: configs, problems, file } = loadMcpConfig(configFile, environment);
  for (const problem of problems) logger.warn({ file }, problem);
  return { servers: new McpServerManager(configs, logger, options), file, problems };
}

export function startMcpServers(configFile: string, environment: Environment, logger: McpLogger, options: McpServerManagerOptions = {}): McpSetup {
  const setup = loadMcpServers(configFile, environment, logger, options);
  setup.servers.start();
  return setup;
}
