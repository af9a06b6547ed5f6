import fs from 'node:fs';
import path from 'node:path';
import { extractDatabase, readBackup, restoreTarget, type BackupPaths } from './backup-file.js';

export interface RestorePlan {
  createdAt: string;
  databaseFile: string;
  /** Files the backup puts back, with where they go. */
  files: Array<{ name: string; target: string; content: Buffer; mode: number }>;
}

export const databaseFileIn = (dataDir: string) => path.join(dataDir, 'hearth.sqlite');

/** Checks a backup and says what restoring it would write; nothing is changed. */
export function planRestore(backupFile: string, dataDir: string, paths: BackupPaths): RestorePlan {
  const contents = readBackup(backupFile);
  const files: RestorePlan['files'] = [];
  for (const entry of contents.files) {
    const target = restoreTarget(entry.name, paths);
    if (target) files.push({ ...entry, target });
  }
  return { createdAt: contents.createdAt, databaseFile: databaseFileIn(dataDir), files };
}

/**
 * Puts a backup back. What it replaces is moved into asideFolder first (same relative names), so a
 * restore of the wrong file can itself be undone by hand. Returns the files moved aside.
 */
export function restoreBackup(backupFile: string, plan: RestorePlan, asideFolder: string): string[] {
  const moved: string[] = [];
  const moveAside = (file: string, name: string) => {
    if (!fs.existsSync(file)) return;
    const destination = path.join(asideFolder, name);
    fs.mkdirSync(path.dirname(destination), { recursive: true, mode: 0o700 });
    fs.renameSync(file, destination);
    moved.push(destination);
  };
  fs.mkdirSync(path.dirname(plan.databaseFile), { recursive: true, mode: 0o700 });
  // The new database is complete beside the old one before anything is moved.
  const incoming = `${plan.databaseFile}.incoming`;
  extractDatabase(backupFile, incoming);
  const databaseName = path.basename(plan.databaseFile);
  for (const suffix of ['', '-wal', '-shm']) moveAside(plan.databaseFile + suffix, databaseName + suffix);
  fs.renameSync(incoming, plan.databaseFile);
  for (const file of plan.files) {
    moveAside(file.target, file.name);
    fs.mkdirSync(path.dirname(file.target), { recursive: true, mode: 0o700 });
    fs.writeFileSync(file.target, file.content, { mode: file.mode || 0o600 });
    fs.chmodSync(file.target, file.mode || 0o600);
  }
  return moved;
}
