import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { test } from 'node:test';
import { projectRoot } from '../../../src/config/project-root.js';

interface StandInPage {
  isSecureContext: boolean;
  hasServiceWorker: boolean;
  /** The cookies the page already has ("name=value" each). */
  cookies?: string[];
  /** The login page: its form, whose submit listeners the stand-in keeps. */
  loginForm?: boolean;
}

/**
 * Runs public/install.js against a stand-in window; returns the scripts it registered, the cookies it
 * set (as written) and a function that sends the login form.
 */
async function runInstallScript(page: StandInPage): Promise<{ registered: string[]; written: string[]; submit: () => void }> {
  const registered: string[] = [];
  const written: string[] = [];
  const navigator = page.hasServiceWorker
    ? { serviceWorker: { register: async (url: string) => { registered.push(url); return {}; } } }
    : {};
  const source = fs.readFileSync(path.join(projectRoot, 'public', 'install.js'), 'utf8');
  const jar = new Map((page.cookies ?? []).map((cookie) => [cookie.split('=')[0]!, cookie] as const));
  const submitted: Array<() => void> = [];
  const loginForm = { addEventListener: (type: string, listener: () => void) => { if (type === 'submit') submitted.push(listener); } };
  const document = {
    get cookie() { return [...jar.values()].join('; '); },
    set cookie(value: string) {
      written.push(value);
      const pair = value.split(';')[0]!;
      jar.set(pair.split('=')[0]!, pair);
    },
    getElementById: (id: string) => (id === 'login-form' && page.loginForm ? loginForm : null),
  };
  vm.runInNewContext(source, { window: { isSecureContext: page.isSecureContext }, navigator, console, document, Date, Intl });
  await new Promise((resolve) => setImmediate(resolve));
  return { registered, written, submit: () => submitted.forEach((listener) => listener()) };
}

const plainHttp = { isSecureContext: false, hasServiceWorker: false };
const zoneCookie = `hearth-zone=${encodeURIComponent(Intl.DateTimeFormat().resolvedOptions().timeZone)}`;
const offsetCookie = `hearth-zone-offset=${new Date().getTimezoneOffset()}`;
const lasting = '; path=/; max-age=31536000; samesite=lax';

test('the service worker is registered only in a secure context (HTTPS or localhost), never on plain LAN HTTP', async () => {
  assert.deepEqual((await runInstallScript({ isSecureContext: true, hasServiceWorker: true })).registered, ['/sw.js']);
  assert.deepEqual((await runInstallScript({ isSecureContext: false, hasServiceWorker: true })).registered, [], 'plain http://192.168.x.x: nothing');
  assert.deepEqual((await runInstallScript({ isSecureContext: true, hasServiceWorker: false })).registered, [], 'an old browser: no error');
});

test('a page tells the server the person’s time zone in a cookie, with the clock offset it was asked at', async () => {
  const { written } = await runInstallScript(plainHttp);
  assert.deepEqual(written, [zoneCookie + lasting, offsetCookie + lasting]);
});

test('the zone is not asked again (Intl blocks a phone’s page) while the clock offset is the one last told', async () => {
  assert.deepEqual((await runInstallScript({ ...plainHttp, cookies: [zoneCookie, offsetCookie] })).written, []);
  // Travel or summer time: the offset differs, so the zone is asked again.
  const { written } = await runInstallScript({ ...plainHttp, cookies: ['hearth-zone=Pacific%2FChatham', 'hearth-zone-offset=-825'] });
  assert.deepEqual(written, [zoneCookie + lasting, offsetCookie + lasting]);
});

test('the login page asks for the zone only as its form is sent, before the chat page it leads to', async () => {
  const { written, submit } = await runInstallScript({ ...plainHttp, loginForm: true });
  assert.deepEqual(written, [], 'nothing while the page loads');
  submit();
  assert.deepEqual(written, [zoneCookie + lasting, offsetCookie + lasting]);
});
