import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { createMemoryFile } from '../../../../src/providers/memory/memory-file.js';
import { openDatabase } from '../../../../src/storage/database.js';

function temporaryMemory(t: import('node:test').TestContext, maxBytes = 2048) {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-memory-'));
  const database = openDatabase(folder);
  t.after(() => {
    database.close();
    fs.rmSync(folder, { recursive: true, force: true });
  });
  return { memory: createMemoryFile({ file: path.join(folder, 'memory.md'), maxBytes, database }), folder };
}

test('100 concurrent updates and hand edits never corrupt the file, and every version is recorded', async (t) => {
  const { memory } = temporaryMemory(t);
  await memory.read();
  const written = new Set<string>();
  const work: Array<Promise<unknown>> = [];
  for (let index = 0; index < 100; index += 1) {
    const content = `- fact number ${index}\n`.repeat(1 + (index % 5));
    written.add(content);
    work.push(memory.write(content, index % 2 ? 'assistant' : 'browser'));
    if (index % 10 === 0) {
      const hand = `- hand edit ${index}\n`;
      written.add(hand);
      fs.writeFileSync(memory.file, hand);
    }
  }
  const results = await Promise.all(work);
  assert.ok(results.every((result) => (result as { ok: boolean }).ok));
  const final = fs.readFileSync(memory.file, 'utf8');
  assert.ok(written.has(final), 'the file holds one whole version, never a mix');
  const recorded = new Set(memory.versions(1000).map((version) => version.content));
  for (let index = 0; index < 100; index += 1) {
    assert.ok(recorded.has(`- fact number ${index}\n`.repeat(1 + (index % 5))), `version ${index} recorded`);
  }
  assert.equal(fs.readdirSync(path.dirname(memory.file)).filter((name) => name.endsWith('.tmp')).length, 0, 'no temporary files left');
});

test('a write based on an old revision is refused instead of clobbering', async (t) => {
  const { memory } = temporaryMemory(t);
  const seen = await memory.read();
  fs.writeFileSync(memory.file, '- hand\n');
  const result = await memory.write('- model\n', 'assistant', seen.revision);
  assert.equal(result.ok, false);
  assert.equal(fs.readFileSync(memory.file, 'utf8'), '- hand\n');
});

test('an unwritable memory file gives a clear error', { skip: process.getuid?.() === 0 ? 'root ignores file permissions' : false }, async (t) => {
  const { memory, folder } = temporaryMemory(t);
  await memory.read();
  fs.chmodSync(folder, 0o500);
  let result;
  try {
    result = await memory.write('- x\n', 'browser');
  } finally {
    // Before the folder is removed: a read-only folder cannot be emptied by a normal user.
    fs.chmodSync(folder, 0o700);
  }
  assert.equal(result.ok, false);
  assert.match((result as { message: string }).message, /cannot be written \(EACCES\)/);
});

test('a memory file that is a folder gives a clear error, not a crash', async (t) => {
  const { memory } = temporaryMemory(t);
  fs.mkdirSync(memory.file);
  await assert.rejects(memory.read(), /The memory file .* could not be read/);
  const result = await memory.write('- x\n', 'browser');
  assert.equal(result.ok, false);
});

test('saving the same memory again adds no version; a real change does', async (t) => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-polish-'));
  const database = openDatabase(folder);
  t.after(() => {
    database.close();
    fs.rmSync(folder, { recursive: true, force: true });
  });
  const memory = createMemoryFile({ file: path.join(folder, 'memory.md'), maxBytes: 2048, database });
  assert.equal((await memory.write('- likes tea\n', 'browser')).ok, true);
  const count = memory.versions().length;
  const same = await memory.write('- likes tea\r\n', 'browser');
  assert.equal(same.ok, true);
  assert.equal(same.ok && same.unchanged, true);
  assert.equal(memory.versions().length, count, 'the same text (CRLF or not) adds no version');
  assert.equal((await memory.write('- likes coffee\n', 'browser')).ok, true);
  assert.equal(memory.versions().length, count + 1);
  assert.equal(memory.versions()[0]!.content, '- likes coffee\n');
});
