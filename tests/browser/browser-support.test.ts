/**
 * The browser the tests drive cleans up after itself: Chromium's own temporary files (its
 * singleton folder, shared memory files) land in a folder of the test helper's, and nothing is
 * left in the temporary folder when the browser is closed, or when it died without closing.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import type { Browser } from 'playwright-core';
import { browserTemporaryFolder, launchBrowser, temporaryFolderOf } from '../support/browser.js';

/** Points TMPDIR at an empty folder for this test, so everything the browser leaves can be seen. */
function privateTemporaryFolder(t: TestContext): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-tmpdir-'));
  const before = process.env.TMPDIR;
  process.env.TMPDIR = folder;
  t.after(() => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    fs.rmSync(folder, { recursive: true, force: true });
  });
  return folder;
}

async function browseSomething(browser: Browser): Promise<void> {
  const page = await browser.newPage();
  await page.setContent('<h1>Hearth</h1><canvas width="800" height="600"></canvas>');
  await page.evaluate(() => document.querySelector('canvas')!.toDataURL('image/png').length);
}

/** Playwright removes its own profile and artifacts folders a moment after the browser is gone. */
async function entriesOnceSettled(folder: string): Promise<string[]> {
  for (let waited = 0; waited < 10_000; waited += 100) {
    if (fs.readdirSync(folder).length === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return fs.readdirSync(folder).sort();
}

test("Chromium's temporary files go to the helper's own folder, and closing leaves nothing in TMPDIR", async (t) => {
  const folder = privateTemporaryFolder(t);
  const browser = await launchBrowser();
  t.after(() => browser.close());
  await browseSomething(browser);
  const running = fs.readdirSync(folder);
  assert.deepEqual(running.filter((name) => /org\.chromium|com\.google\.Chrome/.test(name)), [], `nothing of Chromium's directly in TMPDIR: ${running.join(', ')}`);
  const own = temporaryFolderOf(browser)!;
  assert.match(path.basename(own), /^hearth-browser-/);
  assert.ok(fs.readdirSync(own).some((name) => name.startsWith('org.chromium.Chromium.')), "Chromium's singleton folder is in the browser's own folder");
  await browser.close();
  assert.equal(fs.existsSync(own), false, 'removed once close() returns');
  assert.deepEqual(await entriesOnceSettled(folder), []);
});

test('a browser killed without closing leaves nothing in TMPDIR either', async (t) => {
  const folder = privateTemporaryFolder(t);
  const browser = await launchBrowser();
  t.after(() => browser.close());
  await browseSomething(browser);
  const session = await browser.newBrowserCDPSession();
  const { processInfo } = (await session.send('SystemInfo.getProcessInfo')) as { processInfo: Array<{ type: string; id: number }> };
  const pid = processInfo.find((info) => info.type === 'browser')!.id;
  const gone = new Promise((resolve) => browser.once('disconnected', resolve));
  process.kill(pid, 'SIGKILL');
  await gone;
  assert.deepEqual(await entriesOnceSettled(folder), [], 'a crashed browser leaves nothing behind');
  assert.equal(fs.existsSync(temporaryFolderOf(browser)!), false);
});

test("where TMPDIR is too deep for Chromium's socket path (macOS's /var/folders/...), the browser's folder goes to /tmp", (t) => {
  const macTemporary = '/var/folders/zz/zyxvpxvq6csfxvn_n0000000000000/T';
  const temporary = browserTemporaryFolder(macTemporary);
  t.after(temporary.remove);
  assert.equal(path.dirname(temporary.folder), '/tmp');
  assert.equal(temporary.environment.TMPDIR, temporary.folder);
  const socket = path.join(temporary.folder, 'org.chromium.Chromium.XXXXXX', 'SingletonSocket');
  assert.ok(socket.length <= 107, `${socket} fits a Unix socket path`);
});
