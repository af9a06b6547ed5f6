import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkLanguage, checkTimeZone, timeIn } from '../../../../src/web/http/format-when.js';

// 10:00 UTC on 28 Nov 2026: 23:00 that day in Auckland, 02:00 that day in Los Angeles.
const now = Date.UTC(2026, 10, 28, 10, 0);

test('the same moment falls on the day it is where the person is', () => {
  // 11:30 UTC on the 27th: 00:30 on the 28th in Auckland, 03:30 on the 27th in Los Angeles.
  const moment = Date.UTC(2026, 10, 27, 11, 30);
  assert.deepEqual(timeIn('Pacific/Auckland', 'en-GB').dayGroup(moment, now), { key: 'today', label: 'Today' });
  assert.equal(timeIn('Pacific/Auckland', 'en-GB').listTime(moment, now), '00:30');
  assert.deepEqual(timeIn('America/Los_Angeles', 'en-GB').dayGroup(moment, now), { key: 'yesterday', label: 'Yesterday' });
  assert.equal(timeIn('America/Los_Angeles', 'en-GB').listTime(moment, now), '03:30');
});

test('groups: Today, Yesterday, Previous 7 days, then by month (with the year when it is another)', () => {
  const time = timeIn('UTC', 'en-GB');
  const daysAgo = (days: number) => now - days * 86_400_000;
  assert.equal(time.dayGroup(daysAgo(2), now).label, 'Previous 7 days');
  assert.equal(time.listTime(daysAgo(2), now), 'Thu');
  assert.equal(time.dayGroup(daysAgo(7), now).label, 'Previous 7 days');
  assert.deepEqual(time.dayGroup(daysAgo(8), now), { key: '2026-11', label: 'November' });
  assert.equal(time.listTime(daysAgo(8), now), '20 Nov');
  assert.deepEqual(time.dayGroup(Date.UTC(2025, 9, 3, 12), now), { key: '2025-10', label: 'October 2025' });
  assert.equal(time.listTime(Date.UTC(2025, 9, 3, 12), now), '3 Oct 2025');
  // A clock running a little behind the page's: still today.
  assert.equal(time.dayGroup(now + 60_000, now).label, 'Today');
});

test('the clock is the person’s language’s', () => {
  const moment = Date.UTC(2026, 10, 28, 9, 5);
  assert.equal(timeIn('UTC', 'en-GB').listTime(moment, now), '09:05');
  assert.match(timeIn('UTC', 'en-US,en;q=0.8').listTime(moment, now), /^09:05\s?AM$/);
});

test('a zone or language from the request is used only when Intl knows it; else the server’s zone and en-GB', () => {
  assert.equal(checkTimeZone('Pacific/Auckland'), 'Pacific/Auckland');
  assert.ok(checkTimeZone('America/Argentina/Buenos_Aires'), 'three parts (ICU may give its own name for it)');
  for (const bad of ['Mars/Olympus', '../../etc/passwd', 'Europe/Paris<script>', '', 'x'.repeat(80), undefined, 42]) {
    assert.equal(checkTimeZone(bad), undefined, String(bad));
  }
  assert.equal(timeIn('Not/AZone').zone, new Intl.DateTimeFormat().resolvedOptions().timeZone);
  assert.equal(checkLanguage('de-DE,de;q=0.9'), 'de-DE');
  assert.equal(checkLanguage('"><img>'), undefined);
  assert.equal(checkLanguage(undefined), undefined);
});

test('a message time: the clock today, the day word before it this week, the date after, the year when it is another', () => {
  const time = timeIn('Pacific/Auckland', 'en-GB');
  // 10:00 UTC on the 28th is 23:00 in Auckland; 11:30 UTC on the 27th is 00:30 on the 28th there.
  assert.equal(time.messageTime(Date.UTC(2026, 10, 27, 11, 30), now).text, '00:30');
  assert.equal(time.messageTime(Date.UTC(2026, 10, 27, 1, 5), now).text, 'yesterday 14:05');
  assert.equal(time.messageTime(Date.UTC(2026, 10, 25, 1, 5), now).text, 'Wed 14:05');
  assert.equal(time.messageTime(Date.UTC(2026, 10, 3, 1, 5), now).text, '3 Nov 14:05');
  assert.equal(time.messageTime(Date.UTC(2025, 10, 3, 1, 5), now).text, '3 Nov 2025');
  // To the second, with the whole date, for the tap.
  assert.match(time.messageTime(Date.UTC(2026, 10, 27, 1, 5, 9), now).exact, /^Friday,? 27 November 2026.*14:05:09$/);
});

test('timeIn() asks nothing of Intl until a time is written: made at start, it leaves ICU’s data unloaded', (t) => {
  let formatters = 0;
  const counting = new Proxy(Intl.DateTimeFormat, {
    construct(target, args: ConstructorParameters<typeof Intl.DateTimeFormat>) {
      formatters++;
      return new target(...args);
    },
  });
  const original = Intl.DateTimeFormat;
  Intl.DateTimeFormat = counting;
  t.after(() => {
    Intl.DateTimeFormat = original;
  });
  // A zone and a language no other test here uses, so no cache answers for Intl.
  const time = timeIn('Asia/Tokyo', 'fr-FR');
  timeIn();
  assert.equal(formatters, 0, 'no formatter made before a time is written');
  assert.equal(time.listTime(Date.UTC(2026, 10, 28, 4, 0), now), '13:00');
  assert.ok(formatters > 0, 'writing a time makes them');
  assert.equal(time.zone, 'Asia/Tokyo');
});
