import fs from 'node:fs';
import path from 'node:path';
import net from 'node:net';

/** One OpenAI-compatible server (llama.cpp's llama-server, LM Studio, vLLM, or a cloud API). */
export interface OpenAiBackendSettings {
  /** Short stable id, part of the model ids conversations store (`@<id>/<model>`). */
  id: string;
  /** What the person sees in the model picker and in errors, e.g. "GPU box". */
  name: string;
  /** The API root including /v1, e.g. http://192.168.1.50:8000/v1 */
  baseUrl: string;
  apiKey: string | undefined;
  /** Where the key came from (a variable name), so a 401 can say what to fix. */
  apiKeyVariable: string | undefined;
  /** Models that accept pictures; `*` for all. These servers have no capabilities endpoint. */
  visionModels: string[];
}

/** Everything the server reads from its environment, validated once at start. */
export interface Config {
  host: string;
  port: number;
  ollamaHost: string;
  /** The model for a new chat when none is chosen (OLLAMA_MODEL); unset: the first one listed. */
  defaultModel: string | undefined;
  /** OpenAI-compatible model servers beside Ollama (OPENAI_BASE_URL and OPENAI_BACKENDS). */
  openAiBackends: OpenAiBackendSettings[];
  passwordHash: string | undefined;
  secretKey: string | undefined;
  /** A login ends after this many days without use (SESSION_IDLE_DAYS); each use extends it. */
  sessionIdleDays: number;
  /** When set (SESSION_TTL_HOURS), a login also ends this many hours after it was made, however it is used. */
  sessionTtlHours: number | undefined;
  dataDir: string;
  memoryFile: string;
  memoryMaxBytes: number;
  /** The editable system prompt template (created from the default when first saved). */
  systemPromptFile: string;
  maxToolRounds: number;
  /**
   * How tools are offered (TOOL_CALLS): 'auto' natively to a model whose server says it calls
   * tools (Ollama's `tools` capability), as [TOOL:] text to the rest; 'native' and 'inline' force one.
   */
  toolCalls: 'auto' | 'native' | 'inline';
  /** Model ids always sent tools natively (TOOL_CALLS_NATIVE_MODELS): an OpenAI-compatible server cannot say it can. */
  toolCallsNativeModels: string[];
  /** Model ids always taught [TOOL:] instead (TOOL_CALLS_INLINE_MODELS): a model whose tool template is broken. */
  toolCallsInlineModels: string[];
  tokensDir: string;
  googleCredentials: string;
  /** Port of the loopback address `npm run auth:gmail` listens on (0: any free port). */
  gmailAuthPort: number;
  /** read_email cuts a message body after this many characters. */
  emailBodyMaxCharacters: number;
  /** For tests: Google API and OAuth addresses (a local stand-in). Unset: Google's own. */
  googleApiRootUrl: string | undefined;
  googleOAuthAuthUrl: string | undefined;
  googleOAuthTokenUrl: string | undefined;
  googleOAuthRevokeUrl: string | undefined;
  /** The MCP server list (mcp.json convention); a missing file means no MCP servers. */
  mcpConfig: string;
  logLevel: string;
  trustProxy: string | undefined;
  tlsCert: string | undefined;
  tlsKey: string | undefined;
  /** Where `npm run backup` writes; when BACKUP_DIR is set, the server also backs up daily there. */
  backupDir: string;
  dailyBackups: boolean;
  /** How many of the newest backups in backupDir the daily backup keeps. */
  backupKeep: number;
  /** 'auto': Hearth makes its own local CA and server certificate and serves HTTPS with them. */
  tls: 'off' | 'auto';
  /** Extra host names or addresses the automatic certificate should cover (e.g. a name your router gives). */
  tlsNames: string[];
  /** Port of the plain-HTTP listener that serves only the phone set-up page (TLS=auto); undefined: none. */
  setupPort: number | undefined;
  /** Answer as hearth.local on the network (mDNS). */
  mdns: boolean;
  /** The web tools: web_search and read_web_page (docs/web.md). */
  web: WebSettings;
}

/** WEB, SEARXNG_URL, BRAVE_SEARCH_API_KEY and WEB_ALLOW. */
export interface WebSettings {
  /** WEB=off: no web_search or read_web_page at all. */
  enabled: boolean;
  /** A SearXNG instance for web_search (its JSON API); else Brave with a key; else DuckDuckGo. */
  searxngUrl: string | undefined;
  braveApiKey: string | undefined;
  /** Hosts read_web_page may read though they are on the home network (a home wiki). */
  allowHosts: string[];
}

/** A configuration value that cannot be used; the message names the variable. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable}: ${problem}`);
    this.name = 'ConfigError';
  }
}

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

type Environment = Record<string, string | undefined>;

function text(env: Environment, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function integer(env: Environment, name: string, fallback: number, minimum: number, maximum: number): number {
  const value = text(env, name);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) throw new ConfigError(name, `"${value}" is not a whole number`);
  const number = Number(value);
  if (number < minimum || number > maximum) {
    throw new ConfigError(name, `${number} is out of range (${minimum} to ${maximum})`);
  }
  return number;
}

function url(env: Environment, name: string, fallback: string): string {
  const value = text(env, name) ?? fallback;
  // Ollama's own tooling accepts a bare host:port, so do we.
  const withScheme = /^[a-z]+:\/\//i.test(value) ? value : `http://${value}`;
  let parsed: URL;
  try {
    parsed = new URL(withScheme);
  } catch {
    throw new ConfigError(name, `"${value}" is not a URL (expected e.g. http://127.0.0.1:11434)`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(name, `"${value}" must use http or https`);
  }
  return parsed.origin;
}

/** An optional full URL (path kept), such as an OAuth endpoint. */
function optionalUrl(env: Environment, name: string): string | undefined {
  const value = text(env, name);
  if (value === undefined) return undefined;
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) {
    throw new ConfigError(name, `"${value}" is not an http or https URL`);
  }
  return value;
}

function filePath(env: Environment, name: string, fallback: string, cwd: string): string {
  return path.resolve(cwd, text(env, name) ?? fallback);
}

/** An OpenAI-compatible API root; a bare host:port gets the /v1 that llama.cpp, LM Studio and vLLM all serve. */
function apiBaseUrl(variable: string, value: string, owner = ''): string {
  const withScheme = /^[a-z]+:\/\//i.test(value) ? value : `http://${value}`;
  if (!URL.canParse(withScheme)) throw new ConfigError(variable, `${owner}"${value}" is not a URL (expected e.g. http://127.0.0.1:8080/v1)`);
  const parsed = new URL(withScheme);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ConfigError(variable, `${owner}"${value}" must use http or https`);
  if (parsed.search || parsed.hash || parsed.username) throw new ConfigError(variable, `${owner}"${value}" must be a plain address (no query, #fragment or user:password@; put keys in an API key variable)`);
  const pathname = parsed.pathname.replace(/\/+$/, '');
  return `${parsed.origin}${pathname === '' ? '/v1' : pathname}`;
}

const backendIdPattern = /^[a-z0-9][a-z0-9-]{0,39}$/;
const backendKeys = ['id', 'name', 'baseUrl', 'apiKeyEnv', 'visionModels'];

function slug(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
}

function modelList(variable: string, value: unknown): string[] {
  if (value === undefined) return [];
  if (typeof value === 'string') return value.split(',').map((item) => item.trim()).filter(Boolean);
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value.map((item) => item.trim()).filter(Boolean);
  throw new ConfigError(variable, 'visionModels must be a list of model names (or "*" for all)');
}

function toolCallsMode(env: Environment): Config['toolCalls'] {
  const value = text(env, 'TOOL_CALLS')?.toLowerCase() ?? 'auto';
  if (value === 'auto' || value === 'native' || value === 'inline') return value;
  throw new ConfigError('TOOL_CALLS', `"${value}" is not one of auto, native, inline`);
}

/** OPENAI_BASE_URL (one server) and OPENAI_BACKENDS (a JSON list); keys stay in variables named here. */
function openAiBackends(env: Environment): OpenAiBackendSettings[] {
  const backends: OpenAiBackendSettings[] = [];
  const baseUrl = text(env, 'OPENAI_BASE_URL');
  if (baseUrl !== undefined) {
    const apiKey = text(env, 'OPENAI_API_KEY');
    const address = apiBaseUrl('OPENAI_BASE_URL', baseUrl);
    backends.push({
      id: 'openai',
      name: text(env, 'OPENAI_NAME') ?? new URL(address).host,
      baseUrl: address,
      apiKey,
      apiKeyVariable: apiKey === undefined ? undefined : 'OPENAI_API_KEY',
      visionModels: modelList('OPENAI_VISION_MODELS', text(env, 'OPENAI_VISION_MODELS')),
    });
  } else {
    for (const variable of ['OPENAI_API_KEY', 'OPENAI_NAME', 'OPENAI_VISION_MODELS']) {
      if (text(env, variable) !== undefined) throw new ConfigError(variable, 'is set but OPENAI_BASE_URL is not; set the server address too');
    }
  }

  const list = text(env, 'OPENAI_BACKENDS');
  if (list === undefined) return backends;
  const variable = 'OPENAI_BACKENDS';
  let entries: unknown;
  try {
    entries = JSON.parse(list);
  } catch (error) {
    throw new ConfigError(variable, `is not valid JSON (${(error as Error).message}); expected e.g. [{"name": "GPU box", "baseUrl": "http://192.168.1.50:8000/v1"}]`);
  }
  if (!Array.isArray(entries)) throw new ConfigError(variable, 'must be a JSON list: [{"name": ..., "baseUrl": ...}, ...]');
  entries.forEach((entry: unknown, index) => {
    const where = `entry ${index + 1}`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new ConfigError(variable, `${where} must be an object with "name" and "baseUrl"`);
    const fields = entry as Record<string, unknown>;
    const unknown = Object.keys(fields).filter((key) => !backendKeys.includes(key));
    if (unknown.length > 0) throw new ConfigError(variable, `${where} has unknown key "${unknown[0]}" (known: ${backendKeys.join(', ')})`);
    if (typeof fields.name !== 'string' || !fields.name.trim()) throw new ConfigError(variable, `${where} needs a "name", e.g. "GPU box"`);
    const name = fields.name.trim();
    if (typeof fields.baseUrl !== 'string') throw new ConfigError(variable, `"${name}" needs a "baseUrl", e.g. "http://192.168.1.50:8000/v1"`);
    const id = fields.id === undefined ? slug(name) : fields.id;
    if (typeof id !== 'string' || !backendIdPattern.test(id)) {
      throw new ConfigError(variable, `"${name}" needs an "id" of lowercase letters, digits and dashes (it names the server in saved chats)`);
    }
    if (id === 'ollama' || backends.some((backend) => backend.id === id)) throw new ConfigError(variable, `the id "${id}" is used twice; give "${name}" its own "id"`);
    let apiKey: string | undefined;
    if (fields.apiKeyEnv !== undefined) {
      if (typeof fields.apiKeyEnv !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(fields.apiKeyEnv)) {
        throw new ConfigError(variable, `"${name}": apiKeyEnv must be the name of a variable in .env, e.g. "VLLM_KEY" (not the key itself)`);
      }
      apiKey = text(env, fields.apiKeyEnv);
      if (apiKey === undefined) throw new ConfigError(fields.apiKeyEnv, `is not set, but "${name}" in OPENAI_BACKENDS reads its API key from it`);
    }
    backends.push({
      id,
      name,
      baseUrl: apiBaseUrl(variable, fields.baseUrl, `"${name}": baseUrl `),
      apiKey,
      apiKeyVariable: typeof fields.apiKeyEnv === 'string' ? fields.apiKeyEnv : undefined,
      visionModels: modelList(variable, fields.visionModels),
    });
  });
  return backends;
}

export function loadConfig(env: Environment, cwd: string = process.cwd()): Config {
  const host = text(env, 'HOST') ?? '0.0.0.0';
  if (net.isIP(host) === 0 && !/^[a-z0-9.-]+$/i.test(host)) {
    throw new ConfigError('HOST', `"${host}" is not an address or host name`);
  }

  const passwordHash = text(env, 'PASSWORD_HASH');
  if (passwordHash !== undefined && !/^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/.test(passwordHash)) {
    throw new ConfigError('PASSWORD_HASH', 'is not a bcrypt hash (run `npm run set-password` to make one)');
  }

  const secretKey = text(env, 'SECRET_KEY');
  if (secretKey !== undefined && secretKey.length < 32) {
    throw new ConfigError('SECRET_KEY', `must be at least 32 characters (it has ${secretKey.length})`);
  }

  const logLevel = text(env, 'LOG_LEVEL') ?? 'info';
  if (!logLevels.includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `"${logLevel}" is not one of ${logLevels.join(', ')}`);
  }

  const tlsCert = text(env, 'TLS_CERT');
  const tlsKey = text(env, 'TLS_KEY');
  if ((tlsCert === undefined) !== (tlsKey === undefined)) {
    throw new ConfigError(tlsCert === undefined ? 'TLS_CERT' : 'TLS_KEY', 'TLS_CERT and TLS_KEY must be set together');
  }

  const tls = text(env, 'TLS')?.toLowerCase() ?? 'off';
  if (tls !== 'off' && tls !== 'auto') throw new ConfigError('TLS', `"${tls}" is not auto or off`);
  if (tls === 'auto' && tlsCert !== undefined) {
    throw new ConfigError('TLS', 'auto makes its own certificate: leave TLS_CERT and TLS_KEY empty, or set TLS=off');
  }
  const tlsNames = (text(env, 'TLS_NAMES') ?? '').split(',').map((name) => name.trim().toLowerCase()).filter(Boolean);
  for (const name of tlsNames) {
    if (net.isIP(name) === 0 && !/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(name)) {
      throw new ConfigError('TLS_NAMES', `"${name}" is not a host name or IP address`);
    }
  }
  const port = integer(env, 'PORT', 8888, 0, 65535);
  const setupPort = text(env, 'SETUP_PORT')?.toLowerCase() === 'off' ? undefined : integer(env, 'SETUP_PORT', 8880, 0, 65535);
  if (tls === 'auto' && setupPort !== undefined && setupPort !== 0 && setupPort === port) {
    throw new ConfigError('SETUP_PORT', `must differ from PORT (${port}), or be off`);
  }
  const mdns = text(env, 'MDNS')?.toLowerCase() ?? 'off';
  if (mdns !== 'on' && mdns !== 'off') throw new ConfigError('MDNS', `"${mdns}" is not on or off`);

  const dataDir = filePath(env, 'DATA_DIR', './data', cwd);
  const mcpConfig = filePath(env, 'MCP_CONFIG', './mcp.json', cwd);
  // The file's contents are checked by loadMcpConfig, which never stops start-up; a folder here is a plain mistake.
  if (fs.statSync(mcpConfig, { throwIfNoEntry: false })?.isDirectory()) {
    throw new ConfigError('MCP_CONFIG', `"${mcpConfig}" is a folder; point it at a JSON file such as ./mcp.json`);
  }
  const web = text(env, 'WEB')?.toLowerCase() ?? 'on';
  if (web !== 'on' && web !== 'off') throw new ConfigError('WEB', `"${web}" is not on or off`);
  const webAllow = (text(env, 'WEB_ALLOW') ?? '').split(',').map((name) => name.trim().toLowerCase()).filter(Boolean);
  for (const name of webAllow) {
    if (!/^(\[[0-9a-f:.]+\]|[a-z0-9.:-]+)$/.test(name)) throw new ConfigError('WEB_ALLOW', `"${name}" is not a host name or address`);
  }
  return {
    host,
    port,
    ollamaHost: url(env, 'OLLAMA_HOST', 'http://127.0.0.1:11434'),
    defaultModel: text(env, 'OLLAMA_MODEL'),
    openAiBackends: openAiBackends(env),
    passwordHash,
    secretKey,
    sessionIdleDays: integer(env, 'SESSION_IDLE_DAYS', 30, 1, 3650),
    sessionTtlHours: text(env, 'SESSION_TTL_HOURS') === undefined ? undefined : integer(env, 'SESSION_TTL_HOURS', 24, 1, 24 * 365),
    dataDir,
    systemPromptFile: filePath(env, 'SYSTEM_PROMPT_FILE', path.join(dataDir, 'system-prompt.md'), cwd),
    memoryFile: filePath(env, 'MEMORY_FILE', './memory.md', cwd),
    memoryMaxBytes: integer(env, 'MEMORY_MAX_BYTES', 2048, 64, 1024 * 1024),
    maxToolRounds: integer(env, 'MAX_TOOL_ROUNDS', 10, 1, 100),
    toolCalls: toolCallsMode(env),
    toolCallsNativeModels: modelList('TOOL_CALLS_NATIVE_MODELS', text(env, 'TOOL_CALLS_NATIVE_MODELS')),
    toolCallsInlineModels: modelList('TOOL_CALLS_INLINE_MODELS', text(env, 'TOOL_CALLS_INLINE_MODELS')),
    tokensDir: filePath(env, 'TOKENS_DIR', './tokens', cwd),
    googleCredentials: filePath(env, 'GOOGLE_CREDENTIALS', './credentials.json', cwd),
    gmailAuthPort: integer(env, 'GMAIL_AUTH_PORT', 8889, 0, 65535),
    emailBodyMaxCharacters: integer(env, 'EMAIL_BODY_MAX_CHARS', 3000, 200, 100_000),
    googleApiRootUrl: optionalUrl(env, 'GOOGLE_API_ROOT_URL'),
    googleOAuthAuthUrl: optionalUrl(env, 'GOOGLE_OAUTH_AUTH_URL'),
    googleOAuthTokenUrl: optionalUrl(env, 'GOOGLE_OAUTH_TOKEN_URL'),
    googleOAuthRevokeUrl: optionalUrl(env, 'GOOGLE_OAUTH_REVOKE_URL'),
    mcpConfig,
    logLevel,
    trustProxy: text(env, 'TRUST_PROXY'),
    tlsCert: tlsCert && path.resolve(cwd, tlsCert),
    tlsKey: tlsKey && path.resolve(cwd, tlsKey),
    backupDir: filePath(env, 'BACKUP_DIR', './backups', cwd),
    dailyBackups: text(env, 'BACKUP_DIR') !== undefined,
    backupKeep: integer(env, 'BACKUP_KEEP', 7, 1, 10_000),
    tls,
    tlsNames,
    setupPort,
    mdns: mdns === 'on',
    web: { enabled: web === 'on', searxngUrl: optionalUrl(env, 'SEARXNG_URL'), braveApiKey: text(env, 'BRAVE_SEARCH_API_KEY'), allowHosts: webAllow },
  };
}
