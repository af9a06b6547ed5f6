/**
 * The "done when", in real Chromium at phone size: "put lunch with Sam on Friday at 1"
 * ends with the event in the stand-in's calendar after one approval, and "reply to the school
 * that we'll be there" sends one threaded reply after one approval. The approval cards pass axe
 * in light and dark.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, phone } from '../support/browser.js';
import { openChat, send, waitFor, waitForReplyEnd } from '../support/chat-page.js';
import { account, fixedNow, startGoogleHarness } from '../support/google-setup.js';

let browser: Browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

async function violations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).include('.tool-call-card').withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  return results.violations.map((violation) => `${violation.id}: ${violation.help} — ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

const screens = process.env.HEARTH_SCREENS;

for (const colorScheme of ['light', 'dark'] as const) {
  test(`${colorScheme}: "put lunch with Sam on Friday at 1" — one approval, and the event is in the calendar`, async (t) => {
    const google = await startGoogleHarness(t);
    const { page, test: app } = await openChat(t, browser, {
      app: { dependencies: { toolServices: { google: google.google, now: () => fixedNow } } },
      context: phone({ colorScheme }),
    });
    app.standin.enqueue({ content: '[TOOL:create_event]title: Lunch with Sam\nstart: friday 13:00\nduration: 1h[/TOOL]' }, { content: 'Lunch with Sam is in your calendar on Friday at 13:00.' });
    await send(page, 'put lunch with Sam on Friday at 1');

    const card = page.locator('.tool-call-card[data-tool="create_event"]');
    await card.locator('.tool-approval').waitFor();
    assert.match(await card.locator('.tool-call-change').innerText(), /\+ Lunch with Sam\n\+ When: Fri 27 Nov 2026, 13:00–14:00 \(Europe\/Paris\)\n\+ Calendar: main calendar of sam@example\.com/);
    assert.deepEqual(google.standin.inserted, [], 'nothing saved before Approve');
    assert.deepEqual(await violations(page), []);
    const approve = card.locator('button.tool-approve');
    const box = (await approve.boundingBox())!;
    assert.ok(box.height >= 44 && box.width >= 44, `Approve is at least 44 px (${box.width}×${box.height})`);
    if (screens) await page.screenshot({ path: `${screens}/google-write-event-${colorScheme}.png` });

    await approve.click();
    await page.locator('.tool-call-card[data-tool="create_event"][data-status="done"]').waitFor();
    await waitFor(page, () => /in your calendar on Friday/.test(document.querySelector('#chat-thread')?.textContent ?? ''));
    await waitForReplyEnd(page, 30_000);
    const events = google.standin.accounts.get(account)!.events;
    assert.equal(events.length, 1);
    assert.equal(events[0]!.summary, 'Lunch with Sam');
    assert.equal(events[0]!.start.dateTime, '2026-11-27T13:00:00+01:00');
    assert.match(await card.innerText(), /Added an event to your calendar — Lunch with Sam, Fri 27 Nov 2026, 13:00–14:00/);
  });
}

test('"reply to the school that we\'ll be there" — one approval, one threaded reply, no "Always allow"', async (t) => {
  const google = await startGoogleHarness(t);
  const { page, test: app } = await openChat(t, browser, {
    app: { dependencies: { toolServices: { google: google.google, now: () => fixedNow } } },
    context: phone(),
  });
  app.standin.enqueue(
    { content: '[TOOL:search_emails]from:school[/TOOL]' },
    { content: "[TOOL:reply_email]reply_to: 18c2f0a1b2c3d4e5\nbody: We'll be there.\nSam[/TOOL]" },
    { content: 'I replied to the school.' },
  );
  await send(page, "reply to the school that we'll be there");
  const card = page.locator('.tool-call-card[data-tool="reply_email"]');
  await card.locator('.tool-approval').waitFor();
  assert.equal(await card.locator('input[name="always"]').count(), 0, 'sending is never always allowed');
  assert.match(await card.innerText(), /Once sent, it cannot be called back\./);
  assert.match(await card.locator('.tool-call-change').innerText(), /\+ From: sam@example\.com\n\+ To: School Office <office@school\.example>\n\+ Subject: Re: Trip on Friday/);
  assert.deepEqual(await violations(page), []);
  if (screens) await page.screenshot({ path: `${screens}/google-write-reply.png` });
  await card.locator('button.tool-approve').click();
  await waitFor(page, () => /I replied to the school/.test(document.querySelector('#chat-thread')?.textContent ?? ''));
  await waitForReplyEnd(page, 30_000);
  assert.equal(google.standin.sent.length, 1);
  assert.equal(google.standin.sent[0]!.threadId, 'thread-trip');
  assert.equal(google.standin.sent[0]!.headers['in-reply-to'], '<trip-2@school.example>');
});
