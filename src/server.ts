import os from 'node:os';
import path from 'node:path';
import dotenv from 'dotenv';
import { buildApp, loggerOptions } from './app.js';
import { ensureCredentials, passwordHashSetting } from './auth/credentials.js';
import { ConfigError, loadConfig, type Config } from './config/config.js';
import { projectRoot } from './config/project-root.js';
import { createChatModel } from './llm/chat-model.js';
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

  const database = openDatabase(config.dataDir);
  const settings = createSettingsStore(database);
  const credentials = await ensureCredentials(config, settings);
  // Read on every login, so `npm run set-password` applies without a restart.
  const liveCredentials = {
    secretKey: credentials.secretKey,
    get passwordHash() {
      return config.passwordHash ?? settings.get(passwordHashSetting) ?? credentials.passwordHash;
    },
  };
  const chatModel = createChatModel({ host: config.ollamaHost });
  const app = await buildApp({ config, database, chatModel, credentials: liveCredentials, logger: loggerOptions(config.logLevel) });

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: stopping replies and saving them');
    const timer = setTimeout(() => process.exit(1), 10_000).unref();
    try {
      await app.close();
      database.close();
    } finally {
      clearTimeout(timer);
      process.exit(0);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ host: config.host, port: config.port });
  await app.localTls?.announce();
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
