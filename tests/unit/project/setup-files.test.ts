/**
 * What a fresh clone's own files promise: git keeps personal data out of commits, and the example
 * settings agree with the README.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const root = path.resolve(import.meta.dirname, '..', '..', '..');

/** Whether .gitignore keeps this path out of `git add` (asked of git itself, not re-implemented). */
function isIgnored(file: string): boolean {
  try {
    execFileSync('git', ['check-ignore', '--quiet', '--no-index', file], { cwd: root, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

test('git ignores every place that holds conversations, keys or the password hash', () => {
  for (const file of [
    'backups/hearth-backup-2026-11-23-140500.sqlite',
    'data/hearth.sqlite',
    'tokens/someone@example.com.json',
    '.env',
    'memory.md',
    'mcp.json',
  ]) {
    assert.ok(isIgnored(file), `${file} would be committed`);
  }
  assert.ok(!isIgnored('tokens/.gitkeep'), 'the empty tokens folder is kept');
});

test('.env.example and the README give the same Home Assistant MCP address (/api/mcp)', () => {
  const addresses = (file: string) =>
    [...fs.readFileSync(path.join(root, file), 'utf8').matchAll(/homeassistant\.local:8123(\/[\w/]*)/g)].map((match) => match[1]);
  const example = addresses('.env.example');
  const readme = addresses('README.md');
  assert.ok(example.length > 0 && readme.length > 0, 'both files show the address');
  // Home Assistant's "Model Context Protocol Server" integration serves Streamable HTTP at /api/mcp
  // (its older SSE transport at /mcp_server/sse, which the README mentions apart).
  assert.deepEqual([...new Set([...example, ...readme])], ['/api/mcp']);
});
