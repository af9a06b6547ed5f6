/*
 * npm run backup [-- --tokens] [-- --out FOLDER]: writes one file, hearth-backup-YYYY-MM-DD-HHMMSS.sqlite,
 * into BACKUP_DIR (default ./backups). It holds the database (SQLite online backup: safe while the
 * server runs and writes), memory.md and the system prompt; Gmail/Calendar tokens only with --tokens.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import dotenv from 'dotenv';
import { backupEntries, createBackup } from '../src/storage/backup/backup-file.js';
import { databaseFileIn } from '../src/storage/backup/restore-backup.js';
import { ConfigError, loadConfig } from '../src/config/config.js';

async function main(): Promise<number> {
  dotenv.config({ path: path.join(process.cwd(), '.env'), quiet: true });
  const { values } = parseArgs({ options: { tokens: { type: 'boolean', default: false }, out: { type: 'string' } } });
  const config = loadConfig(process.env);
  const databaseFile = databaseFileIn(config.dataDir);
  if (!fs.existsSync(databaseFile)) {
    console.error(`Nothing to back up: ${databaseFile} does not exist (DATA_DIR: ${config.dataDir}).`);
    return 1;
  }
  // A connection of its own: the running server keeps writing while SQLite copies a consistent state.
  const database = new Database(databaseFile, { fileMustExist: true });
  database.pragma('busy_timeout = 5000');
  try {
    const folder = values.out ? path.resolve(values.out) : config.backupDir;
    const entries = backupEntries(config, values.tokens);
    const file = await createBackup({ database, folder, entries });
    const tokens = entries.filter((entry) => entry.name.startsWith('tokens/') && fs.existsSync(entry.file)).length;
    console.log(`Backup written: ${file}`);
    console.log(values.tokens ? `It includes ${tokens} OAuth token file(s): keep it as safe as a password.` : 'OAuth tokens are not included (add --tokens to include them).');
    return 0;
  } finally {
    database.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`Backup failed: ${error instanceof ConfigError ? error.message : error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
