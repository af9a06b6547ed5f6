/*
 * npm run restore FILE [-- --yes] [-- --force]: puts a backup made by `npm run backup` (or the daily
 * backup) back: the database, memory.md, the system prompt and any tokens it holds. It asks first
 * (--yes answers for scripts), refuses while something listens on Hearth's port (--force overrides), and
 * moves what it replaces into DATA_DIR/replaced-by-restore-<time>/.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import readline from 'node:readline/promises';
import { parseArgs } from 'node:util';
import dotenv from 'dotenv';
import { backupFileName } from '../src/storage/backup/backup-file.js';
import { planRestore, restoreBackup } from '../src/storage/backup/restore-backup.js';
import { ConfigError, loadConfig, type Config } from '../src/config/config.js';

/**
 * Whether something listens on the configured port of this machine: Hearth, most likely. A TCP
 * connect rather than a request, so it works the same over HTTP and HTTPS.
 */
function portIsInUse(config: Config): Promise<boolean> {
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return new Promise((resolve) => {
    const socket = net.connect({ host, port: config.port, timeout: 2_000 });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(false));
  });
}

async function main(): Promise<number> {
  dotenv.config({ path: path.join(process.cwd(), '.env'), quiet: true });
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { yes: { type: 'boolean', default: false }, force: { type: 'boolean', default: false } } });
  const backupFile = positionals[0];
  if (!backupFile || positionals.length > 1) {
    console.error('Usage: npm run restore FILE [-- --yes] [-- --force]');
    return 2;
  }
  const config = loadConfig(process.env);
  const plan = planRestore(path.resolve(backupFile), config.dataDir, config);

  if (!values.force && (await portIsInUse(config))) {
    console.error(`Hearth seems to be running: something listens on port ${config.port}. Stop it first (systemctl --user stop hearth, or Ctrl-C), then restore. --force restores anyway.`);
    return 1;
  }
  console.log(`Backup from ${plan.createdAt}. Restoring replaces:`);
  console.log(`  ${plan.databaseFile}  (conversations, memory versions, settings, password)`);
  for (const file of plan.files) console.log(`  ${file.target}`);
  const aside = path.join(config.dataDir, backupFileName(new Date()).replace(/^hearth-backup-/, 'replaced-by-restore-').replace(/\.sqlite$/, ''));
  console.log(`What is there now is moved to ${aside}/`);
  if (!values.yes) {
    if (!process.stdin.isTTY) {
      console.error('Not restoring: no terminal to confirm on. Add --yes to restore without asking.');
      return 1;
    }
    const terminal = readline.createInterface({ input: process.stdin, output: process.stdout });
    const answer = await terminal.question('Type yes to restore: ');
    terminal.close();
    if (answer.trim().toLowerCase() !== 'yes') {
      console.log('Nothing was changed.');
      return 1;
    }
  }
  const moved = restoreBackup(path.resolve(backupFile), plan, aside);
  if (moved.length === 0) fs.rmSync(aside, { recursive: true, force: true });
  console.log(`Restored. ${moved.length} replaced file(s) kept in ${moved.length ? aside : '(nothing was replaced)'}. Start Hearth again.`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`Restore failed: ${error instanceof ConfigError || error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
