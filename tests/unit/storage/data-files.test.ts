/**
 * The database holds the password hash and the session secret: it and its WAL/SHM files are
 * readable by their owner only, whatever the data folder's mode or the umask.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { openDatabase } from '../../../src/storage/database.js';
import { createSettingsStore } from '../../../src/storage/settings-store.js';

const modeOf = (file: string) => (fs.statSync(file).mode & 0o777).toString(8);

test('a database made in an existing 0755 folder is 0600, and so are its -wal and -shm files', (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-mode-'));
  t.after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  fs.chmodSync(dataDir, 0o755);
  const previousUmask = process.umask(0o022);
  t.after(() => process.umask(previousUmask));

  const database = openDatabase(dataDir);
  createSettingsStore(database).set('password_hash', 'a secret worth hiding');
  const file = path.join(dataDir, 'hearth.sqlite');
  for (const name of [file, `${file}-wal`, `${file}-shm`]) {
    assert.ok(fs.existsSync(name), `${path.basename(name)} exists`);
    assert.equal(modeOf(name), '600', path.basename(name));
  }
  database.close();
});

test('an existing database readable by others is narrowed to 0600 when opened', (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-mode-'));
  t.after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const file = path.join(dataDir, 'hearth.sqlite');
  openDatabase(dataDir).close();
  fs.chmodSync(file, 0o644);
  fs.writeFileSync(`${file}-wal`, '');
  fs.chmodSync(`${file}-wal`, 0o644);
  const database = openDatabase(dataDir);
  t.after(() => database.close());
  assert.equal(modeOf(file), '600');
  assert.equal(modeOf(`${file}-wal`), '600');
});
