import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { projectRoot } from '../../../src/config/project-root.js';

const publicFolder = path.join(projectRoot, 'public');

// tsc --checkJs runs on them in `npm run typecheck` (tsconfig.public.json, and tsconfig.sw.json for
// the service worker), which `npm run test:all` and CI run first.
test('every page script asks to be type-checked (// @ts-check) and is in a tsconfig that checks it', () => {
  const scripts = fs.readdirSync(publicFolder).filter((name) => name.endsWith('.js'));
  assert.ok(scripts.length >= 8, scripts.join(', '));
  for (const name of scripts) {
    assert.match(fs.readFileSync(path.join(publicFolder, name), 'utf8'), /^\/\/ @ts-check\n/, `${name} starts with // @ts-check`);
  }
  const config = (name: string) => fs.readFileSync(path.join(projectRoot, name), 'utf8');
  assert.match(config('tsconfig.public.json'), /"include": \["public\/\*\.js"/);
  assert.match(config('tsconfig.sw.json'), /"include": \["public\/sw\.js"\]/);
  assert.match(JSON.parse(config('package.json')).scripts.typecheck, /tsc -p tsconfig\.public\.json && tsc -p tsconfig\.sw\.json/);
});
