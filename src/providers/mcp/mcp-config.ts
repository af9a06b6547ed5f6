/*
 * The MCP server list, in the `mcp.json` convention other MCP clients use:
 *   {"mcpServers": {"files": {"command": "npx", "args": [...], "env": {...}},
 *                   "home": {"url": "http://…/mcp", "headers": {"Authorization": "Bearer ${HA_TOKEN}"}}}}
 * plus Hearth's own keys per server: `enabled`, `allowTools`, `timeoutSeconds`.
 * A bad file never stops Hearth: each problem becomes one line naming the file, the entry and
 * what is wrong, and the entries that are fine still start.
 */
import fs from 'node:fs';
import path from 'node:path';
import JSON5 from 'json5';

export type Environment = Record<string, string | undefined>;

interface ServerConfigBase {
  /** The entry's name, made safe for tool names: letters, digits, `_` and `-`. */
  name: string;
  enabled: boolean;
  /** Tools that run without asking: `true` for all, else their names as the server gives them. */
  allowTools: true | string[];
  /** How long one call may take. */
  timeoutMs: number;
}

export interface StdioServerConfig extends ServerConfigBase {
  transport: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string | undefined;
}

export interface HttpServerConfig extends ServerConfigBase {
  /** `http` tries Streamable HTTP and falls back to SSE; `sse` speaks only the older SSE transport. */
  transport: 'http' | 'sse';
  url: string;
  headers: Record<string, string>;
}

export type McpServerConfig = StdioServerConfig | HttpServerConfig;

export interface McpConfigResult {
  file: string;
  servers: McpServerConfig[];
  /** One line each, e.g. `mcp.json, server "files": unknown key "comand" (did you mean "command"?)`. */
  problems: string[];
}

export const defaultTimeoutSeconds = 60;
const maximumFileBytes = 1024 * 1024;

const serverKeys = ['command', 'args', 'env', 'cwd', 'url', 'headers', 'type', 'enabled', 'allowTools', 'timeoutSeconds'];
const transportTypes: Record<string, 'stdio' | 'http' | 'sse'> = {
  stdio: 'stdio',
  http: 'http',
  'streamable-http': 'http',
  streamablehttp: 'http',
  sse: 'sse',
};

/** Edit distance, for "did you mean": only ever run on short key names. */
function editDistance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0]!;
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j]!;
      previous[j] = Math.min(above + 1, previous[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return previous[b.length]!;
}

function didYouMean(key: string, known: string[]): string {
  const lower = key.toLowerCase();
  const best = known
    .map((candidate) => ({ candidate, distance: editDistance(lower, candidate.toLowerCase()) }))
    .sort((a, b) => a.distance - b.distance)[0];
  return best && best.distance <= Math.max(1, Math.floor(best.candidate.length / 3)) ? ` (did you mean "${best.candidate}"?)` : '';
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `${VAR}` and `${VAR:-fallback}` from the environment; every unset name is reported. */
function expandVariables(text: string, environment: Environment, missing: Set<string>): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (whole, name: string, fallback: string | undefined) => {
    const value = environment[name];
    if (value !== undefined && value !== '') return value;
    if (fallback !== undefined) return fallback;
    missing.add(name);
    return whole;
  });
}

/** The entry name as it will prefix tool names: `my files` → `my_files`. */
export function sanitizeServerName(name: string): string {
  return name
    .trim()
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 40);
}

/** How the tool registry compares names (case, `-` and `_` alike): two servers must never collide. */
const comparableName = (name: string) => name.toLowerCase().replace(/-/g, '_');

/** A JSON5 syntax error as "line 3, column 14: …". */
function describeSyntaxError(error: unknown): string {
  if (error instanceof SyntaxError) {
    const { lineNumber, columnNumber } = error as SyntaxError & { lineNumber?: number; columnNumber?: number };
    const message = error.message.replace(/^JSON5: /, '').replace(/ at \d+:\d+$/, '');
    return lineNumber ? `not valid JSON at line ${lineNumber}, column ${columnNumber}: ${message}` : `not valid JSON: ${message}`;
  }
  return `not valid JSON: ${String(error)}`;
}

interface EntryContext {
  label: string;
  environment: Environment;
  problems: string[];
  baseDirectory: string;
}

function stringRecord(value: unknown, key: string, context: EntryContext, missing: Set<string>): Record<string, string> | undefined {
  if (value === undefined) return {};
  if (!isObject(value)) {
    context.problems.push(`${context.label}: "${key}" must be an object of names to text`);
    return undefined;
  }
  const result: Record<string, string> = {};
  for (const [name, item] of Object.entries(value)) {
    if (typeof item !== 'string' && typeof item !== 'number' && typeof item !== 'boolean') {
      context.problems.push(`${context.label}: "${key}.${name}" must be text`);
      return undefined;
    }
    result[name] = expandVariables(String(item), context.environment, missing);
  }
  return result;
}

function readServer(entryName: string, value: unknown, context: EntryContext): McpServerConfig | undefined {
  const { label, problems } = context;
  if (!isObject(value)) {
    problems.push(`${label}: must be an object with "command" or "url"`);
    return undefined;
  }
  for (const key of Object.keys(value)) {
    if (!serverKeys.includes(key)) problems.push(`${label}: unknown key "${key}"${didYouMean(key, serverKeys)}, ignored`);
  }

  const enabled = value.enabled ?? true;
  if (typeof enabled !== 'boolean') {
    problems.push(`${label}: "enabled" must be true or false`);
    return undefined;
  }

  let allowTools: true | string[] = [];
  if (value.allowTools === true) allowTools = true;
  else if (Array.isArray(value.allowTools) && value.allowTools.every((item) => typeof item === 'string')) allowTools = value.allowTools as string[];
  else if (value.allowTools !== undefined && value.allowTools !== false) {
    problems.push(`${label}: "allowTools" must be true or a list of tool names`);
    return undefined;
  }

  const timeoutSeconds = value.timeoutSeconds ?? defaultTimeoutSeconds;
  if (typeof timeoutSeconds !== 'number' || !Number.isFinite(timeoutSeconds) || timeoutSeconds < 1 || timeoutSeconds > 3600) {
    problems.push(`${label}: "timeoutSeconds" must be a number from 1 to 3600`);
    return undefined;
  }

  let type: 'stdio' | 'http' | 'sse' | undefined;
  if (value.type !== undefined) {
    type = typeof value.type === 'string' ? transportTypes[value.type.toLowerCase()] : undefined;
    if (!type) {
      problems.push(`${label}: "type" must be one of ${Object.keys(transportTypes).join(', ')}`);
      return undefined;
    }
  }

  const hasCommand = value.command !== undefined;
  const hasUrl = value.url !== undefined;
  if (hasCommand === hasUrl) {
    problems.push(`${label}: needs either "command" (a program to start) or "url" (a server to reach), ${hasCommand ? 'not both' : 'found neither'}`);
    return undefined;
  }
  if (type !== undefined && (type === 'stdio') !== hasCommand) {
    problems.push(`${label}: "type": "${String(value.type)}" does not match ${hasCommand ? '"command"' : '"url"'}`);
    return undefined;
  }

  const missing = new Set<string>();
  const base: ServerConfigBase = { name: entryName, enabled, allowTools, timeoutMs: Math.round(timeoutSeconds * 1000) };
  let server: McpServerConfig | undefined;

  if (hasCommand) {
    if (typeof value.command !== 'string' || value.command.trim() === '') {
      problems.push(`${label}: "command" must be a program name or path`);
      return undefined;
    }
    const args = value.args ?? [];
    if (!Array.isArray(args) || !args.every((item) => typeof item === 'string' || typeof item === 'number')) {
      problems.push(`${label}: "args" must be a list of text`);
      return undefined;
    }
    if (value.cwd !== undefined && typeof value.cwd !== 'string') {
      problems.push(`${label}: "cwd" must be a folder path`);
      return undefined;
    }
    const env = stringRecord(value.env, 'env', context, missing);
    if (!env) return undefined;
    const cwd = value.cwd === undefined ? undefined : path.resolve(context.baseDirectory, expandVariables(value.cwd, context.environment, missing));
    server = {
      ...base,
      transport: 'stdio',
      command: expandVariables(value.command.trim(), context.environment, missing),
      args: args.map((item) => expandVariables(String(item), context.environment, missing)),
      env,
      cwd,
    };
  } else {
    if (typeof value.url !== 'string') {
      problems.push(`${label}: "url" must be text such as "http://127.0.0.1:8123/mcp"`);
      return undefined;
    }
    const written = value.url.trim();
    const url = expandVariables(written, context.environment, missing);
    const headers = stringRecord(value.headers, 'headers', context, missing);
    if (!headers) return undefined;
    if (missing.size === 0 && (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))) {
      // Quoted as written: the expanded text may hold a token from the environment.
      problems.push(`${label}: "url" "${written}" is not an http or https URL`);
      return undefined;
    }
    server = { ...base, transport: type === 'sse' ? 'sse' : 'http', url, headers };
  }

  if (missing.size > 0) {
    const names = [...missing].map((name) => `\${${name}}`).join(', ');
    problems.push(`${label}: ${names} ${missing.size === 1 ? 'is' : 'are'} not set in the environment (put ${missing.size === 1 ? 'it' : 'them'} in .env); server not started`);
    return undefined;
  }
  return server;
}

/** Reads the MCP server list. Never throws: a missing file is no servers; anything wrong is in `problems`. */
export function loadMcpConfig(file: string, environment: Environment): McpConfigResult {
  const shownName = path.basename(file);
  const result: McpConfigResult = { file, servers: [], problems: [] };
  let text: string;
  try {
    const size = fs.statSync(file).size;
    if (size > maximumFileBytes) {
      result.problems.push(`${shownName}: larger than ${maximumFileBytes / 1024} KB, not read`);
      return result;
    }
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return result;
    result.problems.push(`${shownName}: cannot be read (${(error as Error).message})`);
    return result;
  }

  let document: unknown;
  try {
    // JSON5: the comments and trailing commas people leave in hand-edited files are fine.
    document = JSON5.parse(text);
  } catch (error) {
    result.problems.push(`${shownName}: ${describeSyntaxError(error)}`);
    return result;
  }
  if (!isObject(document)) {
    result.problems.push(`${shownName}: must be an object like {"mcpServers": {...}}`);
    return result;
  }
  for (const key of Object.keys(document)) {
    if (key !== 'mcpServers') result.problems.push(`${shownName}: unknown top-level key "${key}"${didYouMean(key, ['mcpServers'])}, ignored`);
  }
  const entries = document.mcpServers;
  if (entries === undefined) {
    if (!Object.keys(document).some((key) => didYouMean(key, ['mcpServers']))) result.problems.push(`${shownName}: has no "mcpServers" object`);
    return result;
  }
  if (!isObject(entries)) {
    result.problems.push(`${shownName}: "mcpServers" must be an object of server entries`);
    return result;
  }

  const taken = new Map<string, string>();
  const baseDirectory = path.dirname(path.resolve(file));
  for (const [entryName, value] of Object.entries(entries)) {
    const label = `${shownName}, server "${entryName}"`;
    const name = sanitizeServerName(entryName);
    if (name === '') {
      result.problems.push(`${label}: the name needs at least one letter or digit`);
      continue;
    }
    const clash = taken.get(comparableName(name));
    if (clash !== undefined) {
      result.problems.push(`${label}: its tools would share the name "${name}" with server "${clash}"; rename one`);
      continue;
    }
    const server = readServer(name, value, { label, environment, problems: result.problems, baseDirectory });
    if (server) {
      taken.set(comparableName(name), entryName);
      result.servers.push(server);
    }
  }
  return result;
}
