/**
 * Disk space of deleted chats goes back to the disk: a database made before incremental
 * auto-vacuum is compacted once when Hearth opens it, and freed pages are given back in batches.
 * (Deleting a chat with photos through the app is in tests/app/photos.test.ts.)
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import Database from 'better-sqlite3';
import { openDatabase } from '../../../src/storage/database.js';
import { createFreeSpaceReclaimer, useIncrementalVacuum } from '../../../src/storage/free-space.js';
import { createSettingsStore } from '../../../src/storage/settings-store.js';

function dataFolder(t: TestContext): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-free-space-'));
  t.after(() => fs.rmSync(folder, { recursive: true, force: true }));
  return folder;
}

/** A database as Hearth made it before this change: schema migrated, auto_vacuum off, 6 MB freed by a delete. */
function olderDatabase(folder: string): string {
  const database = openDatabase(folder);
  createSettingsStore(database).set('kept', 'still here');
  database.exec('CREATE TABLE filler (bytes BLOB)');
  const insert = database.prepare('INSERT INTO filler (bytes) VALUES (randomblob(?))');
  for (let index = 0; index < 8; index++) insert.run(1024 * 1024);
  database.exec('DELETE FROM filler WHERE rowid > 2');
  // Back to how older versions left it: no auto-vacuum (this VACUUM also keeps the freed pages out of the picture).
  database.pragma('auto_vacuum = NONE');
  database.exec('VACUUM');
  database.exec('INSERT INTO filler (bytes) VALUES (randomblob(6291456)); DELETE FROM filler WHERE rowid = (SELECT max(rowid) FROM filler)');
  database.pragma('wal_checkpoint(TRUNCATE)');
  assert.equal(database.pragma('auto_vacuum', { simple: true }), 0);
  database.close();
  return path.join(folder, 'hearth.sqlite');
}

test('an older database is compacted once when opened: it shrinks, keeps its data, and is not compacted again', (t) => {
  const folder = dataFolder(t);
  const file = olderDatabase(folder);
  const before = fs.statSync(file).size;
  const lines: string[] = [];

  const database = openDatabase(folder, { log: (line) => lines.push(line), compact: true });
  assert.equal(database.pragma('auto_vacuum', { simple: true }), 2, 'incremental from now on');
  assert.equal(createSettingsStore(database).get('kept'), 'still here');
  assert.equal((database.prepare('SELECT count(*) AS count FROM filler').get() as { count: number }).count, 2);
  assert.equal(database.pragma('integrity_check', { simple: true }), 'ok');
  const after = fs.statSync(file).size;
  t.diagnostic(`compacted at start: ${(before / 1024 / 1024).toFixed(1)} MB → ${(after / 1024 / 1024).toFixed(1)} MB`);
  assert.ok(after < before - 5 * 1024 * 1024, `${before} → ${after} bytes`);
  assert.equal(lines.length, 0, 'a small database is compacted without a word');

  // Opened again: nothing to do.
  assert.deepEqual(useIncrementalVacuum(database, file, (line) => lines.push(line)), { state: 'already' });
  database.close();
});

test('only the server compacts: another process opening an older database (set-password, a bench) leaves it as it is', (t) => {
  const folder = dataFolder(t);
  const file = olderDatabase(folder);
  const before = fs.statSync(file).size;
  const database = openDatabase(folder);
  assert.equal(database.pragma('auto_vacuum', { simple: true }), 0, 'not compacted');
  assert.equal(createSettingsStore(database).get('kept'), 'still here');
  database.close();
  assert.equal(fs.statSync(file).size, before);
});

test('giving space back never waits on another reader of the file, and stops quietly when the database closes', async (t) => {
  const folder = dataFolder(t);
  const database = openDatabase(folder);
  const file = path.join(folder, 'hearth.sqlite');
  database.exec('CREATE TABLE filler (bytes BLOB)');
  database.prepare('INSERT INTO filler (bytes) VALUES (randomblob(?))').run(4 * 1024 * 1024);
  database.exec('DELETE FROM filler');
  // The sqlite3 shell or a backup tool reading the file, its snapshot held open.
  const reader = new Database(file, { readonly: true });
  t.after(() => reader.close());
  reader.exec('BEGIN');
  reader.prepare('SELECT count(*) FROM filler').get();
  const started = performance.now();
  const result = await createFreeSpaceReclaimer(database).reclaim();
  const waited = performance.now() - started;
  assert.ok(result.pages > 0, 'the pages were still given back');
  // With the busy timeout (5 s) the checkpoint would have held the event loop that long.
  assert.ok(waited < 2500, `it did not wait for the reader (${Math.round(waited)} ms)`);
  assert.equal(database.pragma('busy_timeout', { simple: true }), 5000, 'the busy timeout is back for everything else');
  reader.exec('COMMIT');

  // Shut down between two batches: the pass ends without an error.
  database.prepare('INSERT INTO filler (bytes) VALUES (randomblob(?))').run(4 * 1024 * 1024);
  database.exec('DELETE FROM filler');
  const pass = createFreeSpaceReclaimer(database, { pagesPerStep: 64 }).reclaim();
  database.close();
  const partial = await pass;
  assert.ok(partial.pages > 0 && partial.pages < 1024, `one batch, then it stopped (${partial.pages} pages)`);
});

test('freed pages go back in batches, one pass at a time; a few are left for SQLite to reuse', async (t) => {
  const folder = dataFolder(t);
  const database = openDatabase(folder);
  t.after(() => database.close());
  const file = path.join(folder, 'hearth.sqlite');
  database.exec('CREATE TABLE filler (bytes BLOB)');
  database.prepare('INSERT INTO filler (bytes) VALUES (randomblob(?))').run(4 * 1024 * 1024);
  database.prepare('INSERT INTO filler (bytes) VALUES (randomblob(?))').run(100 * 1024);
  const reclaimer = createFreeSpaceReclaimer(database, { pagesPerStep: 100 });

  // A small delete is left alone: its pages are reused by the next photo.
  database.exec('DELETE FROM filler WHERE rowid = 2');
  assert.deepEqual(await reclaimer.reclaim(), { pages: 0, bytes: 0 });
  assert.ok((database.pragma('freelist_count', { simple: true }) as number) > 0);

  database.exec('DELETE FROM filler');
  const free = database.pragma('freelist_count', { simple: true }) as number;
  // Asked twice at once: one pass.
  const [first, second] = await Promise.all([reclaimer.reclaim(), reclaimer.reclaim()]);
  assert.equal(first, second);
  assert.equal(first!.pages, free);
  assert.equal(first!.bytes, free * (database.pragma('page_size', { simple: true }) as number));
  assert.equal(database.pragma('freelist_count', { simple: true }), 0);
  assert.ok(fs.statSync(file).size < 512 * 1024, `the file is small again: ${fs.statSync(file).size} bytes`);
  assert.equal(fs.statSync(`${file}-wal`).size, 0, 'and the WAL is emptied');
});
