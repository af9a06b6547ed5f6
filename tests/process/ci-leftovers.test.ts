import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { projectRoot } from '../../src/config/project-root.js';

const leftoversScript = path.join(projectRoot, '.ci', 'leftovers');

/** Runs `.ci/leftovers sh -c <script>` with an empty folder standing in for the system's /tmp. */
function runLeftovers(t: TestContext, script: string) {
  const system = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-system-tmp-'));
  t.after(() => fs.rmSync(system, { recursive: true, force: true }));
  const result = spawnSync(leftoversScript, ['sh', '-c', script], { env: { ...process.env, TMPDIR: system, SYSTEM_TMP: system }, encoding: 'utf8' });
  return { ...result, system, remaining: fs.readdirSync(system) };
}

test('CI fails when the tests leave anything in the temporary folder, whatever its name', (t) => {
  const result = runLeftovers(t, 'touch "$TMPDIR/.org.chromium.Chromium.Ab12Cd"; mkdir "$TMPDIR/org.chromium.Chromium.Ef34Gh" "$TMPDIR/playwright_chromiumdev_profile-x" "$TMPDIR/hearth-test-1"');
  assert.equal(result.status, 1);
  for (const name of ['.org.chromium.Chromium.Ab12Cd', 'org.chromium.Chromium.Ef34Gh', 'playwright_chromiumdev_profile-x', 'hearth-test-1']) {
    assert.match(result.stderr, new RegExp(`/${name.replace(/\./g, '\\.')}\\n`), `${name} is named`);
  }
  assert.deepEqual(result.remaining, [], "the tests' own temporary folder is removed afterwards");
});

test('CI also catches what is written straight to the system temporary folder, not through TMPDIR', (t) => {
  const result = runLeftovers(t, 'touch "$SYSTEM_TMP/.org.chromium.Chromium.Zz99Yy"');
  assert.equal(result.status, 1);
  assert.ok(result.stderr.includes(`${result.system}/.org.chromium.Chromium.Zz99Yy`), result.stderr);
});

test("tests that clean up pass; tsx's compile cache is not a leftover; a failing command still fails", (t) => {
  const clean = runLeftovers(t, 'mkdir "$TMPDIR/hearth-test-2" "$TMPDIR/tsx-1000" && rm -r "$TMPDIR/hearth-test-2"');
  assert.equal(clean.status, 0, clean.stderr);
  assert.equal(clean.stderr, '');
  assert.deepEqual(clean.remaining, []);
  assert.equal(runLeftovers(t, 'exit 3').status, 3);
});
