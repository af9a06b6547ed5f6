/*
 * One worker thread behind requests: replies come back to their request, and a worker that
 * crashes or hangs is replaced by a fresh one on the next request; one that never gets ready fails.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { pathToFileURL } from 'node:url';
import { createWorkerThread } from '../../../src/threads/worker-thread.js';

/** A worker file in a temporary folder: it says it is ready when `ready.flag` is beside it, then echoes, crashes or hangs. */
function workerFile(t: TestContext): { source: URL; folder: string } {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-worker-'));
  t.after(() => fs.rmSync(folder, { recursive: true, force: true }));
  const file = path.join(folder, 'echo-worker.mjs');
  fs.writeFileSync(
    file,
    [
      "import fs from 'node:fs';",
      "import { parentPort } from 'node:worker_threads';",
      'parentPort.on("message", (request) => {',
      '  if (request.text === "crash") process.exit(1);',
      '  if (request.text === "hang") for (;;);',
      '  parentPort.postMessage({ id: request.id, echo: request.text.toUpperCase() });',
      '});',
      `if (fs.existsSync(${JSON.stringify(path.join(folder, 'ready.flag'))})) parentPort.postMessage({ ready: true });`,
    ].join('\n'),
  );
  fs.writeFileSync(path.join(folder, 'ready.flag'), '');
  return { source: pathToFileURL(file), folder };
}

const failures = { start: 'could not start', stopped: 'stopped', slow: 'too slow' };

test('each reply reaches its request; a crash or a hang fails what it held, and the next request gets a fresh worker', async (t) => {
  const worker = createWorkerThread<{ text: string }, { echo: string }>(workerFile(t).source, { timeoutMs: 1_000, startTimeoutMs: 20_000, failures });
  t.after(() => worker.stop('done'));

  const [one, two] = await Promise.all([worker.request({ text: 'one' }), worker.request({ text: 'two' })]);
  assert.deepEqual([one.echo, two.echo], ['ONE', 'TWO']);
  assert.equal(worker.idle, true);

  await assert.rejects(worker.request({ text: 'crash' }), { message: 'stopped' });
  assert.equal((await worker.request({ text: 'after a crash' })).echo, 'AFTER A CRASH');

  await assert.rejects(worker.request({ text: 'hang' }), { message: 'too slow' });
  assert.equal((await worker.request({ text: 'after a hang' })).echo, 'AFTER A HANG');

  await worker.stop('closing');
  assert.equal((await worker.request({ text: 'after stop' })).echo, 'AFTER STOP', 'a stopped worker starts again when asked');
});

test('a worker that never says it is ready fails with the start failure instead of leaving the request waiting', async (t) => {
  const { source, folder } = workerFile(t);
  fs.rmSync(path.join(folder, 'ready.flag'));
  const worker = createWorkerThread<{ text: string }, { echo: string }>(source, { timeoutMs: 2_000, startTimeoutMs: 300, failures });
  t.after(() => worker.stop('done'));
  await assert.rejects(worker.request({ text: 'hello' }), { message: 'could not start' });

  // The control: the same file, once it says it is ready, answers.
  fs.writeFileSync(path.join(folder, 'ready.flag'), '');
  const patient = createWorkerThread<{ text: string }, { echo: string }>(source, { timeoutMs: 2_000, startTimeoutMs: 20_000, failures });
  t.after(() => patient.stop('done'));
  assert.equal((await patient.request({ text: 'hello' })).echo, 'HELLO');
});
