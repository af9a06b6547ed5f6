import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import dotenv from 'dotenv';
import { buildApp } from './app.js';
import { createServices, loggerOptions } from './services.js';
import { startDailyBackups } from './storage/backup/daily-backup.js';
import { ensureCredentials, passwordHashSetting } from './web/auth/credentials.js';
import { ConfigError, loadConfig, type Config } from './config/config.js';
import { projectRoot } from './config/project-root.js';
import { createChatModelFromConfig } from './engine/llm/chat-model-from-config.js';
import { openDatabase } from './storage/database.js';
import { createSettingsStore } from './storage/settings-store.js';

/** The addresses a phone on the same network can open. */
function lanAddresses(config: Config, protocol: string): string[] {
  if (config.host !== '0.0.0.0' && config.host !== '::') return [`${protocol}://${config.host}:${config.port}`];
  const addresses = Object.values(os.networkInterfaces())
    .flat()
    .filter((entry) => entry && entry.family === 'IPv4' && !entry.internal)
    .map((entry) => `${protocol}://${entry!.address}:${config.port}`);
  return [...addresses, `${protocol}://localhost:${config.port}`];
}

/** A listen error as one line that names the variable to change; undefined for other errors. */
function listenProblem(error: NodeJS.ErrnoException, config: Config): string | undefined {
  if (error.code === 'EADDRINUSE') {
    return `PORT: ${config.port} is already in use (another Hearth, or another program?). Stop it, or set PORT to a free port`;
  }
  if (error.code === 'EACCES') {
    return `PORT: ${config.port} needs administrator rights on this system. Set PORT to 1024 or above`;
  }
  if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') {
    return `HOST: "${config.host}" is not an address of this machine (${error.code}). Set HOST to 0.0.0.0 (every network), 127.0.0.1 (this machine only) or one of its own addresses`;
  }
  return undefined;
}

/**
 * Whether Ollama answers GET /api/version (what ollama-js's version() asks), through node:http:
 * fetch would load Node's own undici (about 9 MB and 0.1 s of CPU) on a server that no one has
 * chatted with yet.
 */
function ollamaAnswers(host: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const url = new URL('api/version', host.endsWith('/') ? host : `${host}/`);
    const request = (url.protocol === 'https:' ? https : http).get(url, { timeout: timeoutMs }, (response) => {
      response.resume();
      resolve(response.statusCode !== undefined && response.statusCode >= 200 && response.statusCode < 300);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(false));
  });
}

/** Says in the log, not only in the browser, when Ollama does not answer at start. Never delays start-up. */
function warnWhenOllamaIsDown(isReachable: () => Promise<boolean>, config: Config, log: { warn: (message: string) => void }): void {
  const timeout = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5_000).unref());
  void Promise.race([isReachable(), timeout]).then((reachable) => {
    if (!reachable) {
      log.warn(`OLLAMA_HOST: Ollama does not answer at ${config.ollamaHost}. Start it (ollama serve) or set OLLAMA_HOST to where it runs; chats fail until it answers`);
    }
  });
}

async function main(): Promise<void> {
  // The environment wins over .env (dotenv never overrides what is already set).
  dotenv.config({ path: path.join(process.cwd(), '.env'), quiet: true });
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Hearth cannot start: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }

  const database = openDatabase(config.dataDir, { compact: true });
  const settings = createSettingsStore(database);
  const credentials = await ensureCredentials(config, settings);
  // Read on every login, so `npm run set-password` applies without a restart.
  const liveCredentials = {
    secretKey: credentials.secretKey,
    get passwordHash() {
      return config.passwordHash ?? settings.get(passwordHashSetting) ?? credentials.passwordHash;
    },
  };
  const chatModel = createChatModelFromConfig(config);
  // MCP servers start once Hearth listens: one that cannot start has spawned none.
  const services = await createServices({ config, database, chatModel, credentials: liveCredentials, logger: loggerOptions(config.logLevel), startMcpServers: false });
  const app = await buildApp(services);
  // Every way out (an error, the 10 s give-up below) ends with no MCP server left running:
  // each runs in its own process group, which nothing else would stop once Hearth is gone.
  process.on('exit', () => services.mcp.servers.killProcessesNow());

  const dailyBackups = config.dailyBackups
    ? startDailyBackups({ database, folder: config.backupDir, keep: config.backupKeep, paths: config, logger: app.log })
    : undefined;

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: stopping replies and saving them');
    const timer = setTimeout(() => process.exit(1), 10_000).unref();
    try {
      await app.close();
      await dailyBackups?.stop();
      database.close();
    } finally {
      clearTimeout(timer);
      process.exit(0);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    const problem = listenProblem(error as NodeJS.ErrnoException, config);
    closing = true;
    await app.close().catch(() => undefined);
    await dailyBackups?.stop();
    if (!problem) throw error;
    console.error(`Hearth cannot start: ${problem}`);
    process.exit(1);
  }
  services.mcp.servers.start();
  await app.localTls?.announce();
  warnWhenOllamaIsDown(() => ollamaAnswers(config.ollamaHost, 5_000), config, app.log);
  // An .env copied from an older .env.example sets SESSION_TTL_HOURS=24: logins would still end daily.
  if (config.sessionTtlHours !== undefined) {
    app.log.info(`SESSION_TTL_HOURS=${config.sessionTtlHours}: every login ends ${config.sessionTtlHours} h after it was made, however it is used. Leave it empty to stay logged in while in use (up to SESSION_IDLE_DAYS=${config.sessionIdleDays} days idle)`);
  }
  const protocol = config.tlsCert || app.localTls ? 'https' : 'http';
  const lines = ['', 'Hearth is running. Open it from a browser on this network:'];
  for (const address of lanAddresses(config, protocol)) lines.push(`  ${address}`);
  if (app.localTls) lines.push(...app.localTls.startupLines(lanAddresses(config, protocol)[0]!));
  if (credentials.generatedPassword) {
    lines.push('', `First start: your password is  ${credentials.generatedPassword}`);
    lines.push('It is shown only this once. Change it any time with: npm run set-password');
  }
  console.log(lines.join('\n') + '\n');
  app.log.info({ projectRoot, dataDir: config.dataDir, ollama: config.ollamaHost }, 'ready');
}

main().catch((error: unknown) => {
  console.error(`Hearth cannot start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
