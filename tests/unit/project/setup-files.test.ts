/**
 * What a fresh clone's own files promise: git keeps personal data out of commits, and the example
 * settings agree with the documentation.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { projectRoot } from '../../../src/config/project-root.js';
import { launchEnvironment } from '../../support/server-process.js';

const root = projectRoot;

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

test('.env.example and docs/mcp.md give the same Home Assistant MCP address (/api/mcp)', () => {
  const addresses = (file: string) =>
    [...fs.readFileSync(path.join(root, file), 'utf8').matchAll(/homeassistant\.local:8123(\/[\w/]*)/g)].map((match) => match[1]);
  const example = addresses('.env.example');
  const guide = addresses('docs/mcp.md');
  assert.ok(example.length > 0 && guide.length > 0, 'both files show the address');
  // Home Assistant's "Model Context Protocol Server" integration serves Streamable HTTP at /api/mcp
  // (its older SSE transport at /mcp_server/sse, which docs/mcp.md mentions apart).
  assert.deepEqual([...new Set([...example, ...guide])], ['/api/mcp']);
});

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes. */
function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(markdown: string): Set<string> {
  const withoutCode = markdown.replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...withoutCode.matchAll(/^#{1,6} (.+)$/gm)].map((match) => headingAnchor(match[1]!)));
}

test('every link in the README and docs/ leads to a file that exists, and to a heading in it', () => {
  const pages = ['README.md', ...fs.readdirSync(path.join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
  const broken: string[] = [];
  let checked = 0;
  for (const page of pages) {
    const text = fs.readFileSync(path.join(root, page), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target!)) continue; // https:, mailto:
      const [file, anchor] = target!.split('#') as [string, string | undefined];
      const resolved = file === '' ? path.join(root, page) : path.resolve(path.dirname(path.join(root, page)), file);
      checked += 1;
      if (!fs.existsSync(resolved)) broken.push(`${page}: ${target} (no such file)`);
      else if (anchor !== undefined && !anchorsOf(fs.readFileSync(resolved, 'utf8')).has(anchor)) broken.push(`${page}: ${target} (no such heading)`);
    }
  }
  assert.ok(checked > 20, `only ${checked} links found`);
  assert.deepEqual(broken, []);
});

test('the README is short: the commands first, the rest in docs/', () => {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const lines = readme.split('\n').length;
  assert.ok(lines <= 150, `README.md has ${lines} lines`);
  const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  for (const command of ['npm install && npm start', 'npm test', 'npm run test:all']) assert.match(firstBlock, new RegExp(command.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  const scripts = Object.keys(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts as Record<string, string>);
  for (const [, script] of readme.matchAll(/npm run ([\w:-]+)/g)) assert.ok(scripts.includes(script!), `README names npm run ${script}, which package.json lacks`);
});

test('npm start and the systemd unit start the server with the same environment, which the benchmark and process tests use too', () => {
  const packageJson = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const assignments = Object.entries(launchEnvironment).map(([name, value]) => `${name}=${value}`);
  assert.equal(packageJson.scripts.start, `${assignments.join(' ')} exec node scripts/start.js`);
  const unit = fs.readFileSync(path.join(root, 'deploy', 'hearth.service'), 'utf8');
  const environment = [...unit.matchAll(/^Environment=(.*)$/gm)].map((match) => match[1]);
  assert.deepEqual(environment, assignments);
});
