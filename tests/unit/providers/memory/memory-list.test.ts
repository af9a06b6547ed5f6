import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { createMemoryFile } from '../../../../src/providers/memory/memory-file.js';
import { changeMemoryList, memoryPercentFull, readMemoryEntries } from '../../../../src/providers/memory/memory-list.js';
import { openDatabase } from '../../../../src/storage/database.js';

function temporaryMemory(t: TestContext, content: string, maxBytes = 2048) {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-memory-list-'));
  const database = openDatabase(folder);
  t.after(() => {
    database.close();
    fs.rmSync(folder, { recursive: true, force: true });
  });
  const file = path.join(folder, 'memory.md');
  fs.writeFileSync(file, content);
  return { memory: createMemoryFile({ file, maxBytes, database }), file };
}

const handEdited = [
  '# About Ada',
  '',
  '* The user is called Ada.',
  '* Keeps bees',
  '  in Leeds.',
  '',
  'Prefers short answers.',
  'Drinks green tea.',
  '',
  '> Never book meetings before 10.',
  '',
].join('\n');

test('a hand-edited file reads as its items, lines and blocks, with headings between them', async () => {
  const entries = await readMemoryEntries(handEdited);
  assert.deepEqual(
    entries.map((entry) => [entry.number, entry.kind, entry.text]),
    [
      [1, 'heading', 'About Ada'],
      [2, 'item', 'The user is called Ada.'],
      [3, 'item', 'Keeps bees\nin Leeds.'],
      [4, 'line', 'Prefers short answers.'],
      [5, 'line', 'Drinks green tea.'],
      [6, 'block', '> Never book meetings before 10.'],
    ],
  );
});

test('a memory that is not a list at all is one entry per line; CRLF files too', async () => {
  assert.deepEqual((await readMemoryEntries('User: Ada\nLikes: tea\n')).map((entry) => entry.text), ['User: Ada', 'Likes: tea']);
  assert.deepEqual((await readMemoryEntries('- one\r\n- two\r\n')).map((entry) => entry.text), ['one', 'two']);
  assert.deepEqual(await readMemoryEntries(''), []);
});

test('editing, removing and adding change only their own entry: every other byte of a hand edit stays', async (t) => {
  const { memory, file } = temporaryMemory(t, handEdited);
  let revision = (await memory.read()).revision;

  let result = await changeMemoryList(memory, revision, { action: 'edit', entry: 3, text: 'Keeps bees\nand hens in Leeds.' });
  assert.ok(result.ok);
  assert.equal(fs.readFileSync(file, 'utf8'), handEdited.replace('* Keeps bees\n  in Leeds.', '* Keeps bees\n  and hens in Leeds.'), 'continuation indented under the marker');
  revision = result.snapshot.revision;

  result = await changeMemoryList(memory, revision, { action: 'remove', entry: 4 });
  assert.ok(result.ok);
  assert.equal(fs.readFileSync(file, 'utf8').includes('Prefers short answers.\n'), false);
  assert.match(fs.readFileSync(file, 'utf8'), /in Leeds\.\n\nDrinks green tea\.\n\n> Never/);
  revision = result.snapshot.revision;

  result = await changeMemoryList(memory, revision, { action: 'add', text: 'Has a cat called Pip.' });
  assert.ok(result.ok);
  assert.equal(
    fs.readFileSync(file, 'utf8'),
    '# About Ada\n\n* The user is called Ada.\n* Keeps bees\n  and hens in Leeds.\n\nDrinks green tea.\n\n> Never book meetings before 10.\n\n- Has a cat called Pip.\n',
  );
  assert.deepEqual(memory.versions().map((version) => version.author), ['browser', 'browser', 'browser', 'hand edit']);
});

test('adding continues a list that ends the file in its own style; an empty memory starts one', async (t) => {
  const { memory, file } = temporaryMemory(t, '1. one\n2. two');
  const result = await changeMemoryList(memory, (await memory.read()).revision, { action: 'add', text: 'three' });
  assert.ok(result.ok);
  assert.equal(fs.readFileSync(file, 'utf8'), '1. one\n2. two\n3. three\n');

  const empty = temporaryMemory(t, '');
  assert.ok((await changeMemoryList(empty.memory, (await empty.memory.read()).revision, { action: 'add', text: 'likes tea' })).ok);
  assert.equal(fs.readFileSync(empty.file, 'utf8'), '- likes tea\n');
});

test('removing the last entry empties the file; an edit to nothing removes the entry', async (t) => {
  const { memory, file } = temporaryMemory(t, '- only\n- other\n');
  let result = await changeMemoryList(memory, (await memory.read()).revision, { action: 'edit', entry: 1, text: '   ' });
  assert.ok(result.ok);
  assert.equal(fs.readFileSync(file, 'utf8'), '- other\n');
  result = await changeMemoryList(memory, result.snapshot.revision, { action: 'remove', entry: 1 });
  assert.ok(result.ok);
  assert.equal(fs.readFileSync(file, 'utf8'), '');
});

test('a change that would go over the cap is refused in plain words; removing still works when over it', async (t) => {
  const { memory, file } = temporaryMemory(t, '- short\n', 20);
  const revision = (await memory.read()).revision;
  const refused = await changeMemoryList(memory, revision, { action: 'add', text: 'a much longer fact than fits' });
  assert.equal(refused.ok, false);
  assert.equal(!refused.ok && refused.reason, 'full');
  assert.match(!refused.ok ? refused.message : '', /^There is no room for that: it would make the memory \d+% full\. Remove or shorten something first\.$/);
  assert.equal(fs.readFileSync(file, 'utf8'), '- short\n');

  fs.writeFileSync(file, '- a hand edit far over the cap\n- second\n');
  const over = await memory.read();
  assert.equal(over.overCap, true);
  const removed = await changeMemoryList(memory, over.revision, { action: 'remove', entry: 2 });
  assert.ok(removed.ok, 'removing makes it smaller, so it is allowed');
  assert.equal(fs.readFileSync(file, 'utf8'), '- a hand edit far over the cap\n');
});

test('a change to a memory that moved on since the page showed it writes nothing', async (t) => {
  const { memory, file } = temporaryMemory(t, '- one\n- two\n');
  const revision = (await memory.read()).revision;
  fs.writeFileSync(file, '- two\n');
  const result = await changeMemoryList(memory, revision, { action: 'remove', entry: 1 });
  assert.equal(!result.ok && result.reason, 'changed');
  assert.equal(fs.readFileSync(file, 'utf8'), '- two\n');

  const current = (await memory.read()).revision;
  const missing = await changeMemoryList(memory, current, { action: 'edit', entry: 5, text: 'x' });
  assert.equal(!missing.ok && missing.reason, 'no-entry');
});

test('how full the memory is, in whole percent', () => {
  assert.equal(memoryPercentFull(0, 2048), 0);
  assert.equal(memoryPercentFull(5, 2048), 1);
  assert.equal(memoryPercentFull(65, 2048), 3);
  assert.equal(memoryPercentFull(2048, 2048), 100);
  assert.equal(memoryPercentFull(2100, 2048), 103);
});
