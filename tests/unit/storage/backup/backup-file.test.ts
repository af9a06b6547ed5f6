import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { backupEntries, createBackup, pruneBackups, readBackup } from '../../../../src/storage/backup/backup-file.js';
import { startDailyBackups } from '../../../../src/storage/backup/daily-backup.js';
import { openDatabase } from '../../../../src/storage/database.js';

test('without --tokens a backup leaves the OAuth tokens out; a file that is not a backup is refused', async (t) => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-backup-'));
  t.after(() => fs.rmSync(home, { recursive: true, force: true }));
  const tokensDir = path.join(home, 'tokens');
  fs.mkdirSync(tokensDir);
  fs.writeFileSync(path.join(tokensDir, 'me@example.com.json'), '{}');
  fs.writeFileSync(path.join(home, 'memory.md'), 'memory');
  const database = openDatabase(path.join(home, 'data'));
  t.after(() => database.close());
  const paths = { memoryFile: path.join(home, 'memory.md'), systemPromptFile: path.join(home, 'none.md'), tokensDir };
  const file = await createBackup({ database, folder: path.join(home, 'backups'), entries: backupEntries(paths, false) });
  assert.deepEqual(readBackup(file).files.map((entry) => entry.name), ['memory.md']);
  const withTokens = await createBackup({ database, folder: path.join(home, 'backups'), entries: backupEntries(paths, true) });
  assert.notEqual(withTokens, file, 'two backups in the same second get different names');
  assert.deepEqual(readBackup(withTokens).files.map((entry) => entry.name), ['memory.md', 'tokens/me@example.com.json']);

  assert.throws(() => readBackup(path.join(home, 'data', 'hearth.sqlite')), /is not a Hearth backup/);
  fs.writeFileSync(path.join(home, 'junk.sqlite'), 'not a database at all, just text '.repeat(10));
  assert.throws(() => readBackup(path.join(home, 'junk.sqlite')), /junk\.sqlite/);
});

test('daily backups: one at start when none is a day old, none again within the day, and only BACKUP_KEEP newest kept', async (t) => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-backup-'));
  t.after(() => fs.rmSync(home, { recursive: true, force: true }));
  const folder = path.join(home, 'backups');
  fs.mkdirSync(folder);
  // Five old backups, two days old, plus a file that is not a backup and must be left alone.
  const old = Date.now() / 1000 - 2 * 86_400;
  for (let day = 1; day <= 5; day += 1) {
    const name = path.join(folder, `hearth-backup-2020-01-0${day}-120000.sqlite`);
    fs.writeFileSync(name, 'old');
    fs.utimesSync(name, old, old);
  }
  fs.writeFileSync(path.join(folder, 'notes.txt'), 'mine');
  const database = openDatabase(path.join(home, 'data'));
  t.after(() => database.close());
  const logged: string[] = [];
  const logger = { info: (_: object, message: string) => logged.push(message), error: (_: object, message: string) => logged.push(`error: ${message}`) };
  const paths = { memoryFile: path.join(home, 'memory.md'), systemPromptFile: path.join(home, 'prompt.md'), tokensDir: path.join(home, 'tokens') };

  const first = startDailyBackups({ database, folder, keep: 3, paths, logger, checkEveryMs: 20 });
  await first.stop();
  let names = fs.readdirSync(folder).sort();
  assert.equal(names.filter((name) => name.startsWith('hearth-backup-')).length, 3);
  assert.ok(names.includes('notes.txt'));
  assert.deepEqual(names.slice(0, 2), ['hearth-backup-2020-01-04-120000.sqlite', 'hearth-backup-2020-01-05-120000.sqlite'], 'the oldest went');
  assert.deepEqual(logged, ['daily backup written']);

  // A fresh backup is there: a restart within the day does not write another.
  const second = startDailyBackups({ database, folder, keep: 3, paths, logger, checkEveryMs: 20 });
  await new Promise((resolve) => setTimeout(resolve, 100));
  await second.stop();
  names = fs.readdirSync(folder).sort();
  assert.equal(names.filter((name) => name.startsWith('hearth-backup-')).length, 3);
  assert.deepEqual(logged, ['daily backup written']);
  assert.deepEqual(pruneBackups(folder, 1).length, 2);
});
