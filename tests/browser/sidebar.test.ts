/**
 * The sidebar on a phone (390x844, touch), in a time zone far from the server's: chats under
 * Today / Yesterday / Previous 7 days / a month, times that agree with the messages', deleting
 * with Undo, and Log out that asks first. Light and dark, axe clean.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { createConversationStore } from '../../src/storage/conversation-store.js';
import { assertNoPageErrors, launchBrowser, phone } from '../support/browser.js';
import { normalize, openChat, waitFor, waitForSocket } from '../support/chat-page.js';

let browser: Browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

/** Set to /work/screens (or any folder) to keep the screenshots. */
const shots = process.env.HEARTH_SCREENSHOTS;
const zone = 'Pacific/Auckland';
// Half a world from the server's zone (tests run in UTC or Europe): days start at other hours.
const phoneInAuckland = phone({ locale: 'en-GB', timezoneId: zone });

async function violationsOf(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  return results.violations.map((violation) => `${violation.id}: ${violation.help} — ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

/** Axe in light and in dark, and a screenshot of each when asked. */
async function checkBothSchemes(page: Page, name: string): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    assert.deepEqual(await violationsOf(page), [], `axe, ${name}, ${colorScheme}`);
    if (shots) await page.screenshot({ path: `${shots}/sidebar-${name}-${colorScheme}.png` });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

const zoneParts = (timestamp: number, options: Intl.DateTimeFormatOptions) => {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', ...options }).formatToParts(timestamp);
  return (type: string) => Number(parts.find((part) => part.type === type)!.value);
};

/** Noon in Auckland `daysBack` days before today there: safely inside that day whatever the server's zone or DST. */
function aucklandNoon(daysBack: number): number {
  const today = zoneParts(Date.now(), { year: 'numeric', month: 'numeric', day: 'numeric' });
  const wall = Date.UTC(today('year'), today('month') - 1, today('day') - daysBack, 12);
  const seen = zoneParts(wall, { year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric' });
  const offset = Date.UTC(seen('year'), seen('month') - 1, seen('day'), seen('hour'), seen('minute')) - wall;
  return wall - offset;
}

/** Chats written at those moments (a question and an answer each); returns their ids by title. */
function seedChats(database: Parameters<typeof createConversationStore>[0], chats: Array<[title: string, at: number]>): Record<string, number> {
  let clock = 0;
  const store = createConversationStore(database, () => clock);
  const ids: Record<string, number> = {};
  for (const [title, at] of chats) {
    clock = at;
    const conversation = store.createConversation(title, 'llama3.2:latest');
    store.addMessage(conversation.id, 'user', `${title}, please`);
    store.addMessage(conversation.id, 'assistant', `Here is what I know about ${title.toLowerCase()}.`);
    ids[title] = conversation.id;
  }
  return ids;
}

const groupTitles = (page: Page) => page.locator('#history-list .history-group-title').allTextContents();
const itemTitles = (page: Page) => page.locator('#history-list .history-item .history-title').allTextContents();

/** Deletes a chat that is not the open one, as the ⋯ menu of another tab showing it would (hx-delete on its route). */
async function deleteFromAnotherTab(page: Page, id: number): Promise<void> {
  await page.evaluate((conversationId) => {
    const button = document.createElement('button');
    button.id = 'menu-delete';
    button.textContent = 'Delete this chat';
    button.setAttribute('hx-delete', `/c/${conversationId}`);
    document.querySelector('.chat-header')!.append(button);
    (window as unknown as { htmx: { process(element: Element): void } }).htmx.process(button);
  }, id);
  await page.locator('#menu-delete').click();
}

test('the sidebar groups chats by day in the person’s zone, and its times agree with the messages’', async (t) => {
  const { test: app, page, baseUrl } = await openChat(t, browser, { context: phoneInAuckland });
  const fortyDaysAgo = aucklandNoon(40);
  const ids = seedChats(app.database, [
    ['Trip to Wellington', fortyDaysAgo],
    ['Sourdough starter', aucklandNoon(5)],
    ['Tax questions', aucklandNoon(1)],
    ['Birthday ideas', Date.now()],
  ]);

  await page.goto(`${baseUrl}/c/${ids['Tax questions']}`);
  await waitForSocket(page);
  await page.locator('#sidebar-open').click();
  await page.locator('#sidebar:popover-open').waitFor();

  const sameYear = new Date(fortyDaysAgo).getUTCFullYear() === new Date().getUTCFullYear();
  const month = new Intl.DateTimeFormat('en-GB', { timeZone: zone, month: 'long', ...(sameYear ? {} : { year: 'numeric' }) }).format(fortyDaysAgo);
  assert.deepEqual(await groupTitles(page), ['Today', 'Yesterday', 'Previous 7 days', month]);
  assert.deepEqual((await itemTitles(page)).map(normalize), ['Birthday ideas', 'Tax questions', 'Sourdough starter', 'Trip to Wellington']);
  // Each heading is over its own chats.
  assert.equal(normalize(await page.locator('.history-group', { hasText: 'Yesterday' }).locator('.history-title').textContent()), 'Tax questions');

  // Yesterday's chat at noon in Auckland: the sidebar says 12:00, and so does the message.
  const item = page.locator(`#history-item-${ids['Tax questions']}`);
  assert.equal(normalize(await item.locator('.history-time').textContent()), '12:00');
  assert.match(normalize(await page.locator('#chat-thread .chat-message-time time').first().textContent()), /^yesterday 12:00$/);
  const weekday = new Intl.DateTimeFormat('en-GB', { timeZone: zone, weekday: 'short' }).format(aucklandNoon(5));
  assert.equal(normalize(await page.locator(`#history-item-${ids['Sourdough starter']} .history-time`).textContent()), weekday);
  await checkBothSchemes(page, 'groups');

  // Search results come under the same headings, the best match first within each.
  await page.locator('#history-search').fill('wellington');
  await waitFor(page, () => document.querySelectorAll('#history-list .history-item').length === 1);
  assert.deepEqual(await groupTitles(page), [month]);
  await page.locator('#history-search').fill('here');
  await waitFor(page, () => document.querySelectorAll('#history-list .history-item').length === 4);
  assert.deepEqual(await groupTitles(page), ['Today', 'Yesterday', 'Previous 7 days', month]);
  assertNoPageErrors(page);
});

test('deleting the open chat offers Undo for a few seconds, and Undo brings it back in its place', async (t) => {
  // A long window: axe and the screenshots below take longer than a person's 10 s on a busy machine.
  const { test: app, page, baseUrl } = await openChat(t, browser, { context: phoneInAuckland, app: { dependencies: { undoDeleteMs: 300_000 } } });
  const ids = seedChats(app.database, [
    ['Oldest', aucklandNoon(3)],
    ['Middle', aucklandNoon(2)],
    ['Newest', aucklandNoon(1)],
  ]);
  await page.goto(`${baseUrl}/c/${ids.Middle}`);
  await waitForSocket(page);
  const before = await itemTitles(page);
  assert.deepEqual(before.map(normalize), ['Newest', 'Middle', 'Oldest']);
  // No delete sign on the rows any more: it lives in the chat's menu.
  assert.equal(await page.locator('#history-list button').count(), 0);

  // The open chat, from its ⋯ menu.
  await page.locator('#chat-menu-button').click();
  await Promise.all([page.waitForURL(`${baseUrl}/?deleted=${ids.Middle}`), page.locator('#chat-delete').click()]);
  const notice = page.locator('#undo-area .undo-notice');
  await notice.waitFor();
  assert.equal(await page.locator('#undo-area').getAttribute('role'), 'status');
  assert.match(normalize(await notice.textContent()), /Chat deleted\s*Undo/);
  const undo = notice.getByRole('button', { name: 'Undo' });
  const box = (await undo.boundingBox())!;
  assert.ok(box.height >= 44 && box.width >= 44, `Undo is ${box.width}x${box.height}`);
  assert.deepEqual((await itemTitles(page)).map(normalize), ['Newest', 'Oldest'], 'gone from the list at once');
  // Held while axe and the screenshots take their time (the notice leaves after 10 s).
  await page.evaluate(() => document.getAnimations().forEach((animation) => animation.pause()));
  await checkBothSchemes(page, 'undo');
  await page.evaluate(() => document.getAnimations().forEach((animation) => animation.play()));

  await Promise.all([page.waitForURL(`${baseUrl}/c/${ids.Middle}`), undo.click()]);
  assert.deepEqual(await itemTitles(page), before, 'back in its place');
  assert.match(normalize(await page.locator('#chat-thread').textContent()), /Here is what I know about middle\./);
  assert.equal(await page.locator(`#history-item-${ids.Middle}[class~="history-item-current"]`).count(), 1);
  assertNoPageErrors(page);
});

test('a chat deleted without Undo is gone for good after the window, and the notice leaves', async (t) => {
  const { test: app, page, baseUrl } = await openChat(t, browser, { context: phoneInAuckland, app: { dependencies: { undoDeleteMs: 300 } } });
  const ids = seedChats(app.database, [
    ['Keep', aucklandNoon(2)],
    ['Remove', aucklandNoon(1)],
  ]);
  await page.goto(`${baseUrl}/c/${ids.Keep}`);
  await waitForSocket(page);

  // From another chat's page: the row leaves and the notice appears here; the page stays.
  await deleteFromAnotherTab(page, ids.Remove!);
  await page.locator('#undo-area .undo-notice').waitFor();
  assert.equal(await page.locator(`#history-item-${ids.Remove}`).count(), 0);
  assert.equal(new URL(page.url()).pathname, `/c/${ids.Keep}`);

  // The chat service purges it after its window: the row is gone from the database.
  const rows = app.database.prepare<[number], { count: number }>('SELECT count(*) AS count FROM conversations WHERE id = ?');
  for (let tries = 0; tries < 200 && rows.get(ids.Remove!)!.count > 0; tries++) await new Promise((resolve) => setTimeout(resolve, 25));
  assert.equal(rows.get(ids.Remove!)!.count, 0, 'purged');
  // The notice goes by itself (its CSS animation, run to its end here instead of waiting 10 s).
  const durations = await page.evaluate(() =>
    document.getAnimations().map((animation) => {
      const duration = animation.effect?.getTiming().duration;
      animation.finish();
      return duration;
    }),
  );
  assert.deepEqual(durations, [10_000]);
  assert.equal(await page.locator('#undo-area .undo-notice').isVisible(), false);
  await page.reload();
  assert.deepEqual((await itemTitles(page)).map(normalize), ['Keep']);
  assertNoPageErrors(page);
});

test('Log out sits apart and asks first; Cancel keeps the login', async (t) => {
  const { page, baseUrl } = await openChat(t, browser, { context: phoneInAuckland });
  await page.locator('#sidebar-open').click();
  await page.locator('#sidebar:popover-open').waitFor();
  const ask = page.locator('#logout-ask');
  const tools = (await page.locator('#tools-link').boundingBox())!;
  const askBox = (await ask.boundingBox())!;
  assert.ok(askBox.y >= tools.y + tools.height, 'below Memory and Tools, not beside them');
  assert.ok(askBox.height >= 44, `Log out is ${askBox.height} px tall`);
  assert.equal(await page.locator('#logout').isVisible(), false, 'nothing logs out in one tap');

  await ask.click();
  await page.locator('#logout-confirm:popover-open').waitFor();
  assert.match(normalize(await page.locator('#logout-confirm').textContent()), /Log out of Hearth on this device\?/);
  await checkBothSchemes(page, 'logout');
  await page.locator('#logout-confirm').getByRole('button', { name: 'Cancel' }).click();
  assert.equal(await page.locator('#logout').isVisible(), false);
  await page.reload();
  assert.equal(new URL(page.url()).pathname, '/', 'still logged in');

  await page.locator('#sidebar-open').click();
  await page.locator('#logout-ask').click();
  await Promise.all([page.waitForURL(`${baseUrl}/login`), page.locator('#logout').click()]);
  assertNoPageErrors(page);
});
