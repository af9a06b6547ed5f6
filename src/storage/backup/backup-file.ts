import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { joinDraftPieces } from '../conversation-store.js';
import type { SqliteDatabase } from '../database.js';

/*
 * A Hearth backup is one SQLite file: an online backup of the database (safe while the server
 * writes to it) plus two tables of its own, so restoring needs nothing but SQLite:
 *   backup_info  (key, value)          format = 'hearth-backup', version = '1', created_at (ISO 8601)
 *   backup_files (name, content, mode) memory.md, system-prompt.md and, when asked, tokens/<file>
 * `sqlite3 FILE "SELECT name FROM backup_files"` lists what a backup holds.
 */

export const backupFormat = 'hearth-backup';
export const backupVersion = '1';
const backupNamePattern = /^hearth-backup-\d{4}-\d{2}-\d{2}-\d{6}(-\d+)?\.sqlite$/;

/** A file a backup carries: its name inside the backup and where it lives on this machine. */
export interface BackupFileEntry {
  name: string;
  file: string;
}

/** Where the files a backup carries live, from the configuration. */
export interface BackupPaths {
  memoryFile: string;
  systemPromptFile: string;
  tokensDir: string;
}

/** memory.md and the system prompt always; OAuth tokens (secrets) only when asked. */
export function backupEntries(paths: BackupPaths, includeTokens: boolean): BackupFileEntry[] {
  const entries = [
    { name: 'memory.md', file: paths.memoryFile },
    { name: 'system-prompt.md', file: paths.systemPromptFile },
  ];
  if (includeTokens && fs.existsSync(paths.tokensDir)) {
    for (const name of fs.readdirSync(paths.tokensDir).sort()) {
      const file = path.join(paths.tokensDir, name);
      if (!name.startsWith('.') && fs.statSync(file).isFile()) entries.push({ name: `tokens/${name}`, file });
    }
  }
  return entries;
}

/** Where an entry of a backup goes back to on restore. */
export function restoreTarget(name: string, paths: BackupPaths): string | undefined {
  if (name === 'memory.md') return paths.memoryFile;
  if (name === 'system-prompt.md') return paths.systemPromptFile;
  const token = /^tokens\/([^/\\]+)$/.exec(name)?.[1];
  // A backup file is data from outside: a name that climbs out of the tokens folder is ignored.
  if (token && token !== '.' && token !== '..') return path.join(paths.tokensDir, token);
  return undefined;
}

const twoDigits = (value: number) => String(value).padStart(2, '0');

/** hearth-backup-YYYY-MM-DD-HHMMSS.sqlite, in local time (what a person looks for in a folder). */
export function backupFileName(when: Date): string {
  const date = `${when.getFullYear()}-${twoDigits(when.getMonth() + 1)}-${twoDigits(when.getDate())}`;
  const time = `${twoDigits(when.getHours())}${twoDigits(when.getMinutes())}${twoDigits(when.getSeconds())}`;
  return `hearth-backup-${date}-${time}.sqlite`;
}

/** Writes a backup into folder and returns its path. The file appears only once complete. */
export async function createBackup(options: { database: SqliteDatabase; folder: string; entries: BackupFileEntry[]; now?: Date }): Promise<string> {
  const now = options.now ?? new Date();
  fs.mkdirSync(options.folder, { recursive: true, mode: 0o700 });
  let target = path.join(options.folder, backupFileName(now));
  for (let count = 2; fs.existsSync(target); count += 1) target = target.replace(/(-\d+)?\.sqlite$/, `-${count}.sqlite`);
  const temporary = `${target}.${process.pid}.partial`;
  try {
    await options.database.backup(temporary);
    fs.chmodSync(temporary, 0o600);
    const copy = new Database(temporary);
    try {
      copy.exec(`
        CREATE TABLE backup_info (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE backup_files (name TEXT PRIMARY KEY, content BLOB NOT NULL, mode INTEGER NOT NULL);
      `);
      const info = copy.prepare('INSERT INTO backup_info (key, value) VALUES (?, ?)');
      const file = copy.prepare('INSERT INTO backup_files (name, content, mode) VALUES (?, ?, ?)');
      copy.transaction(() => {
        info.run('format', backupFormat);
        info.run('version', backupVersion);
        info.run('created_at', now.toISOString());
        for (const entry of options.entries) {
          const stat = fs.statSync(entry.file, { throwIfNoEntry: false });
          if (stat?.isFile()) file.run(entry.name, fs.readFileSync(entry.file), stat.mode & 0o777);
        }
        // A reply streaming now is saved in pieces: the backup's message holds its text so far.
        joinDraftPieces(copy);
      })();
      // The backup holds a WAL-free single file: no -wal/-shm beside it to forget.
      copy.pragma('journal_mode = DELETE');
    } finally {
      copy.close();
    }
    fs.renameSync(temporary, target);
    return target;
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}

export interface BackupContents {
  createdAt: string;
  files: Array<{ name: string; content: Buffer; mode: number }>;
}

/** Reads and checks a backup; throws an Error saying what is wrong with it. */
export function readBackup(file: string): BackupContents {
  if (!fs.existsSync(file)) throw new Error(`${file} does not exist`);
  let backup: SqliteDatabase;
  try {
    backup = new Database(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new Error(`${file} cannot be opened as a backup: ${(error as Error).message}`);
  }
  try {
    const info = new Map<string, string>();
    try {
      for (const row of backup.prepare('SELECT key, value FROM backup_info').all() as Array<{ key: string; value: string }>) info.set(row.key, row.value);
    } catch {
      throw new Error(`${file} is not a Hearth backup (no backup_info table)`);
    }
    if (info.get('format') !== backupFormat) throw new Error(`${file} is not a Hearth backup`);
    if (info.get('version') !== backupVersion) throw new Error(`${file} is a backup in format version ${info.get('version')}; this Hearth reads version ${backupVersion}`);
    const integrity = backup.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') throw new Error(`${file} is damaged (integrity check: ${String(integrity)})`);
    const files = backup.prepare('SELECT name, content, mode FROM backup_files ORDER BY name').all() as BackupContents['files'];
    return { createdAt: info.get('created_at') ?? 'unknown', files };
  } finally {
    backup.close();
  }
}

/** Writes the database part of a backup to databaseFile (the backup's own tables left out). */
export function extractDatabase(backupFile: string, databaseFile: string): void {
  const temporary = `${databaseFile}.${process.pid}.restoring`;
  fs.copyFileSync(backupFile, temporary);
  try {
    fs.chmodSync(temporary, 0o600);
    const copy = new Database(temporary);
    try {
      copy.exec('DROP TABLE backup_files; DROP TABLE backup_info;');
      copy.exec('VACUUM');
    } finally {
      copy.close();
    }
    fs.renameSync(temporary, databaseFile);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}

/** Deletes all but the keep newest backups in folder (only files named like a backup). */
export function pruneBackups(folder: string, keep: number): string[] {
  if (!fs.existsSync(folder)) return [];
  const backups = fs
    .readdirSync(folder)
    .filter((name) => backupNamePattern.test(name))
    .sort()
    .reverse();
  const removed = backups.slice(keep).map((name) => path.join(folder, name));
  for (const file of removed) fs.rmSync(file, { force: true });
  return removed;
}

/** The newest backup's time in folder, from its name, or undefined when there is none. */
export function newestBackupTime(folder: string): number | undefined {
  if (!fs.existsSync(folder)) return undefined;
  const newest = fs.readdirSync(folder).filter((name) => backupNamePattern.test(name)).sort().at(-1);
  if (!newest) return undefined;
  return fs.statSync(path.join(folder, newest)).mtimeMs;
}
