import type { SqliteDatabase } from '../database.js';
import { backupEntries, createBackup, newestBackupTime, pruneBackups, type BackupPaths } from './backup-file.js';

const day = 24 * 60 * 60 * 1000;

export interface DailyBackupOptions {
  database: SqliteDatabase;
  folder: string;
  keep: number;
  paths: BackupPaths;
  logger: { info(details: object, message: string): void; error(details: object, message: string): void };
  /** How often to look whether a day has passed since the newest backup (tests shorten it). */
  checkEveryMs?: number;
  now?: () => number;
}

/**
 * Backs up once a day while the server runs: at start when the newest backup in the folder is a
 * day old (or there is none), then whenever it becomes so. Checking hourly instead of sleeping 24 h
 * keeps the rhythm across suspends and restarts. Tokens are secrets and stay out of automatic backups.
 */
export function startDailyBackups(options: DailyBackupOptions): { stop: () => Promise<void> } {
  const now = options.now ?? Date.now;
  let running: Promise<void> | undefined;
  const backUpIfDue = () => {
    if (running) return;
    const newest = newestBackupTime(options.folder);
    if (newest !== undefined && now() - newest < day) return;
    running = createBackup({ database: options.database, folder: options.folder, entries: backupEntries(options.paths, false) })
      .then((file) => {
        const removed = pruneBackups(options.folder, options.keep);
        options.logger.info({ file, removed: removed.length }, 'daily backup written');
      })
      .catch((error: unknown) => options.logger.error({ err: error, folder: options.folder }, 'BACKUP_DIR: the daily backup failed'))
      .finally(() => (running = undefined));
  };
  backUpIfDue();
  const timer = setInterval(backUpIfDue, options.checkEveryMs ?? 60 * 60 * 1000).unref();
  return {
    // Stopping waits for a backup under way, so the database is not closed beneath it.
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
