/**
 * Browser helpers for the end-to-end tests: playwright-core driving Debian's Chromium.
 *
 * One browser per test file (`launchBrowser` in `before`, closed in `after`), a fresh context per
 * test (`newPage`), so cookies and storage never leak between tests. Every page records its
 * uncaught errors and console errors (CSP violations are reported as console errors), so a test can
 * end with `assertNoPageErrors(page)`.
 */
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { testPassword } from './test-app.js';

export const chromiumPath = '/usr/bin/chromium';
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

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath, headless: true, args: chromiumArgs });
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
