/**
 * Browser helpers for the end-to-end tests: playwright-core driving Chromium (CHROMIUM_PATH, else
 * the usual place for this system: see chromium-path.ts).
 *
 * One browser per test file (`launchBrowser` in `before`, closed in `after`), a fresh context per
 * test (`newPage`), so cookies and storage never leak between tests. Every page records its
 * uncaught errors and console errors (CSP violations are reported as console errors), so a test can
 * end with `assertNoPageErrors(page)`.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { findChromium } from './chromium-path.js';
import { testPassword } from './test-app.js';

let foundChromium: string | undefined;
/** The browser program, looked for once; a missing one fails the browser tests with one clear message. */
export function chromiumPath(): string {
  return (foundChromium ??= findChromium());
}

export const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  // Nothing leaves the machine: Chromium's own lookups (autofill on the login form, sign-in,
  // updates) find no host. Traced with strace, they otherwise asked DNS for *.googleapis.com.
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost',
];

export interface BrowserTemporaryFolder {
  folder: string;
  /** This process's environment with TMPDIR pointing into the folder, for Chromium. */
  environment: Record<string, string | undefined>;
  remove(): void;
}

/** Chromium's Unix socket sits at <TMPDIR>/org.chromium.Chromium.XXXXXX/SingletonSocket. */
const singletonSocketTail = '/org.chromium.Chromium.XXXXXX/SingletonSocket'.length;
/** The longest path a Unix socket can have (sun_path is 108 bytes with its NUL); Chromium stops at start beyond it. */
const socketPathLimit = 107;

/**
 * Chromium writes its own temporary files to TMPDIR (its singleton socket folder
 * org.chromium.Chromium.*, and .org.chromium.Chromium.* shared memory, which Playwright's
 * --disable-dev-shm-usage sends there), and a browser that is killed or crashes leaves them behind.
 * Each browser gets a TMPDIR of its own in a hearth-browser-* folder, removed once it is gone. It is
 * made in TMPDIR unless that is too deep for Chromium's socket (macOS's /var/folders/..., a test's
 * private TMPDIR), then in /tmp.
 */
export function browserTemporaryFolder(base: string = os.tmpdir()): BrowserTemporaryFolder {
  const name = 'hearth-browser-XXXXXX';
  const parent = path.join(base, name).length + singletonSocketTail <= socketPathLimit ? base : '/tmp';
  const folder = fs.mkdtempSync(path.join(parent, name.slice(0, -'XXXXXX'.length)));
  return {
    folder,
    environment: { ...process.env, TMPDIR: folder },
    remove: () => fs.rmSync(folder, { recursive: true, force: true }),
  };
}

const temporaryFolders = new WeakMap<Browser, string>();
/** The folder a browser from launchBrowser keeps its temporary files in (for the test of this helper). */
export function temporaryFolderOf(browser: Browser): string | undefined {
  return temporaryFolders.get(browser);
}

export interface LaunchBrowserOptions {
  /** More Chromium flags after the usual ones (a later flag of the same name wins). */
  extraArgs?: string[];
}

/** Headless Chromium for a test file; its temporary files go when it closes, crashes or is killed. */
export async function launchBrowser(options: LaunchBrowserOptions = {}): Promise<Browser> {
  const temporary = browserTemporaryFolder();
  let browser: Browser;
  try {
    browser = await chromium.launch({
      executablePath: chromiumPath(),
      headless: true,
      args: [...chromiumArgs, ...(options.extraArgs ?? [])],
      env: temporary.environment,
    });
  } catch (error) {
    temporary.remove();
    throw error;
  }
  temporaryFolders.set(browser, temporary.folder);
  // Emitted once the browser process has gone, by close() or not, before close() resolves.
  browser.on('disconnected', temporary.remove);
  return browser;
}

export interface PageProblems {
  /** Uncaught exceptions in the page. */
  pageErrors: string[];
  /** console.error messages, CSP violations included. */
  consoleErrors: string[];
}

const problemsByPage = new WeakMap<Page, PageProblems>();

/** Console errors that say nothing about the app: a browser asking for a favicon it was never offered, etc. */
function isNoise(text: string): boolean {
  return /favicon\.ico/.test(text);
}

/** Starts recording a page's errors (newPage does this for you). */
export function watchPage(page: Page): PageProblems {
  const problems: PageProblems = { pageErrors: [], consoleErrors: [] };
  problemsByPage.set(page, problems);
  page.on('pageerror', (error) => problems.pageErrors.push(`${error.name}: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const text = message.text();
    if (isNoise(text)) return;
    const location = message.location();
    problems.consoleErrors.push(location.url ? `${text} (${location.url}:${location.lineNumber})` : text);
  });
  return problems;
}

export function problemsOf(page: Page): PageProblems {
  const problems = problemsByPage.get(page);
  if (!problems) throw new Error('this page is not watched; open it with newPage()');
  return problems;
}

/** Fails when the page threw or logged a console error (a CSP violation, a failed script...). */
export function assertNoPageErrors(page: Page, ignore: RegExp[] = []): void {
  const { pageErrors, consoleErrors } = problemsOf(page);
  const keep = (text: string) => !ignore.some((pattern) => pattern.test(text));
  assert.deepEqual(pageErrors.filter(keep), [], 'uncaught errors in the page');
  assert.deepEqual(consoleErrors.filter(keep), [], 'console errors in the page (CSP violations show up here)');
}

/** A phone as the issues measure it: 390x844 CSS pixels, touch, light unless `colorScheme: 'dark'` is given. */
export function phone(options: BrowserContextOptions = {}): BrowserContextOptions {
  return { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2, ...options };
}

export interface OpenedPage {
  context: BrowserContext;
  page: Page;
  problems: PageProblems;
}

/** A fresh context (no cookies) and a watched page in it; closed when the test ends. */
export async function newPage(t: TestContext, browser: Browser, options: BrowserContextOptions = {}): Promise<OpenedPage> {
  const context = await browser.newContext(options);
  context.setDefaultTimeout(10_000);
  context.setDefaultNavigationTimeout(10_000);
  t.after(() => context.close());
  const page = await context.newPage();
  const problems = watchPage(page);
  return { context, page, problems };
}

/** Opens /login, types the password into form#login-form and submits it; waits for the navigation. */
export async function loginInBrowser(page: Page, baseUrl: string, password: string = testPassword): Promise<void> {
  await page.goto(`${baseUrl}/login`);
  const form = page.locator('form#login-form');
  await form.locator('input[name="password"]').fill(password);
  await Promise.all([
    page.waitForNavigation({ waitUntil: 'load' }),
    form.locator('input[name="password"]').press('Enter'),
  ]);
}
