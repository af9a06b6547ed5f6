/**
 * Lighthouse as a phone (its default mobile emulation and throttling) scores the login page, a chat
 * with messages, a code block, a photo, a tool card and an approval card, and the memory page at least 95 in
 * performance, accessibility, best practices and SEO; and none of those pages asks for anything
 * outside the server.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { loginInBrowser, watchPage, assertNoPageErrors } from '../support/browser.js';
import { addPhotoTurn, askForApproval, chatWithToolAndCode, trackSocket, waitFor, waitForSocket } from '../support/chat-page.js';
import { auditPageSteadily, formatScores, launchAuditedBrowser, lighthouseCategories, type SteadyPageScores } from '../support/lighthouse.js';
import { buildTestApp } from '../support/test-app.js';
import { createTestRegistry } from '../support/test-tools.js';

const minimumScore = 0.95;

function describeRun(run: SteadyPageScores, withHints: boolean): string {
  return [
    `${new URL(run.url).pathname}: ${formatScores(run.scores)} (performance ${run.performanceRuns.map((each) => `${Math.round(each.performance * 100)} at ${each.cpuSlowdownMultiplier.toFixed(1)}x, CPU index ${each.benchmarkIndex}`).join('; ')}; ${run.durationMs} ms)`,
    ...run.failingAudits.map((audit) => `  failing ${audit}`),
    ...(withHints ? run.hints.map((hint) => `  hint ${hint}`) : []),
    ...run.foreignRequests.map((request) => `  foreign request ${request}`),
    ...run.runWarnings.map((warning) => `  warning ${warning}`),
  ].join('\n');
}

test('Lighthouse (mobile) scores login, chat and memory pages at least 95 in every category', { timeout: 240_000 }, async (t: TestContext) => {
  const { registry } = createTestRegistry();
  const testApp = await buildTestApp(t, { dependencies: { registry } });
  const baseUrl = await testApp.listen();
  const browser = await launchAuditedBrowser();
  t.after(() => browser.close());

  // Login page first, while the profile has no session (a logged-in browser is sent on to the chat).
  const runs: SteadyPageScores[] = [await auditPageSteadily(browser, `${baseUrl}/login`, minimumScore)];

  // Log in and prepare a chat in the same profile: two turns, a code block, a tool card and an approval card.
  const page = await browser.context.newPage();
  page.setDefaultTimeout(10_000);
  watchPage(page);
  await trackSocket(page);
  await loginInBrowser(page, baseUrl);
  assert.equal(new URL(page.url()).pathname, '/', 'logged in');
  await waitForSocket(page);
  await chatWithToolAndCode(page, testApp.standin);
  // A photo message between the turns, stored as the browser sends one: a thumbnail shown without
  // its size would move everything below it when it loads (layout shift).
  await waitFor(page, () => /^\/c\/\d+$/.test(location.pathname));
  const conversationId = Number(new URL(page.url()).pathname.split('/')[2]);
  await addPhotoTurn(page, testApp.database, conversationId);
  await askForApproval(page);
  await waitFor(page, () => /^\/c\/\d+$/.test(location.pathname));
  const chatUrl = page.url();
  // What Lighthouse will load: the saved chat, rendered by the server, still holds every part.
  await page.reload();
  for (const part of ['.chat-message-user', '.chat-message-assistant pre', '.tool-call-card', '.tool-approval button.tool-approve', '.message-photo img[width][height]']) {
    assert.ok((await page.locator(part).count()) > 0, `the reloaded chat page shows ${part}`);
  }
  assertNoPageErrors(page);
  await page.close();

  runs.push(await auditPageSteadily(browser, chatUrl, minimumScore));
  runs.push(await auditPageSteadily(browser, `${baseUrl}/memory`, minimumScore));
  console.log(runs.map((run) => describeRun(run, false)).join('\n'));
  const report = runs.map((run) => describeRun(run, true)).join('\n');

  for (const run of runs) {
    // Lighthouse audited the logged-in pages, not the login form a stranger is redirected to.
    assert.equal(new URL(run.finalUrl).pathname, new URL(run.url).pathname, `Lighthouse ended on ${run.finalUrl}, not ${run.url}:\n${report}`);
    assert.deepEqual(run.foreignRequests, [], `requests outside the server:\n${report}`);
    // A photo thumbnail (or anything else) that takes its space only once loaded moves the page.
    assert.deepEqual(run.failingAudits.filter((audit) => audit.startsWith('performance/cumulative-layout-shift')), [], `layout shift on ${run.url}:\n${report}`);
    for (const category of lighthouseCategories) {
      assert.ok(run.scores[category] >= minimumScore, `${category} below ${minimumScore * 100} on ${run.url}:\n${report}`);
    }
  }
});
