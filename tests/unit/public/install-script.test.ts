import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { test } from 'node:test';
import { projectRoot } from '../../../src/config/project-root.js';

/** Runs public/install.js against a stand-in window; returns the scripts it registered (and the cookie it set in `cookies`). */
async function runInstallScript(window: { isSecureContext: boolean; hasServiceWorker: boolean }, cookies: string[] = []): Promise<string[]> {
  const registered: string[] = [];
  const navigator = window.hasServiceWorker
    ? { serviceWorker: { register: async (url: string) => { registered.push(url); return {}; } } }
    : {};
  const source = fs.readFileSync(path.join(projectRoot, 'public', 'install.js'), 'utf8');
  const document = { set cookie(value: string) { cookies.push(value); } };
  vm.runInNewContext(source, { window: { isSecureContext: window.isSecureContext }, navigator, console, document });
  await new Promise((resolve) => setImmediate(resolve));
  return registered;
}

test('the service worker is registered only in a secure context (HTTPS or localhost), never on plain LAN HTTP', async () => {
  assert.deepEqual(await runInstallScript({ isSecureContext: true, hasServiceWorker: true }), ['/sw.js']);
  assert.deepEqual(await runInstallScript({ isSecureContext: false, hasServiceWorker: true }), [], 'plain http://192.168.x.x: nothing');
  assert.deepEqual(await runInstallScript({ isSecureContext: true, hasServiceWorker: false }), [], 'an old browser: no error');
});

test('every page tells the server the person’s time zone in a cookie, for the times it writes', async () => {
  const cookies: string[] = [];
  await runInstallScript({ isSecureContext: false, hasServiceWorker: false }, cookies);
  assert.equal(cookies.length, 1);
  const zone = encodeURIComponent(Intl.DateTimeFormat().resolvedOptions().timeZone);
  assert.match(cookies[0]!, new RegExp(`^hearth-zone=${zone.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}; path=/; max-age=\\d+; samesite=lax$`));
});
