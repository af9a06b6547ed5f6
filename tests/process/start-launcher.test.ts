import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { root } from '../support/server-process.js';

/** A copy of what the build reads, in a temporary folder, so the test never touches this checkout's dist/. */
function copyCheckout(): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-launcher-'));
  for (const name of ['src', 'tools', 'scripts/start.js', 'scripts/bundle-server.js', 'package.json', 'tsconfig.json', 'tsconfig.build.json']) {
    fs.cpSync(path.join(root, name), path.join(folder, name), { recursive: true });
  }
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(folder, 'node_modules'), 'dir');
  return folder;
}

const launch = (folder: string) => spawnSync(process.execPath, ['scripts/start.js', '--if-stale'], { cwd: folder, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });

test('the launcher builds a fresh checkout, then only when a source changed or was removed', (t) => {
  const folder = copyCheckout();
  t.after(() => fs.rmSync(folder, { recursive: true, force: true }));

  const fresh = launch(folder);
  assert.equal(fresh.status, 0, fresh.stdout + fresh.stderr);
  assert.match(fresh.stdout, /Building Hearth \(no build yet\)/);
  assert.ok(fs.existsSync(path.join(folder, 'dist', 'src', 'server.js')));
  assert.ok(fs.existsSync(path.join(folder, 'dist', 'tools', 'calculator.js')));
  assert.ok(fs.existsSync(path.join(folder, 'dist', 'src', 'server.bundle.js')), 'the server is bundled into one file');

  const unchanged = launch(folder);
  assert.equal(unchanged.status, 0);
  assert.doesNotMatch(unchanged.stdout, /Building/, 'nothing changed: no build');

  // What a git pull does: a source file newer than the last build.
  const later = new Date(Date.now() + 60_000);
  fs.utimesSync(path.join(folder, 'tools', 'calculator.ts'), later, later);
  const pulled = launch(folder);
  assert.equal(pulled.status, 0, pulled.stdout + pulled.stderr);
  assert.match(pulled.stdout, /Building Hearth \(tools\/calculator\.ts changed\)/);

  // A removed tool must not stay loadable from an old dist/tools/*.js.
  fs.rmSync(path.join(folder, 'tools', 'calculator.ts'));
  const removed = launch(folder);
  assert.equal(removed.status, 0, removed.stdout + removed.stderr);
  assert.match(removed.stdout, /source files were added or removed/);
  assert.equal(fs.existsSync(path.join(folder, 'dist', 'tools', 'calculator.js')), false);
  assert.ok(fs.existsSync(path.join(folder, 'dist', 'src', 'server.js')));
});

test('a build that fails stops the start with a clear line and a failing exit code', (t) => {
  const folder = copyCheckout();
  t.after(() => fs.rmSync(folder, { recursive: true, force: true }));
  fs.writeFileSync(path.join(folder, 'src', 'broken.ts'), 'const value: number = "text";\n');
  const result = spawnSync(process.execPath, ['scripts/start.js'], { cwd: folder, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
  assert.equal(result.status, 1);
  assert.match(result.stderr, /Hearth cannot start: the TypeScript build failed/);
});
