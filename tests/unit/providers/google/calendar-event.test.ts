import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChosenCalendar } from '../../../../src/providers/google/calendar-choice.js';
import { describeEvent, parseReminders, parseWrittenTime, planEvent } from '../../../../src/providers/google/calendar-event.js';

const now = new Date('2026-11-23T08:00:00Z'); // Monday, winter time in Paris and New York
const calendar = (timeZone: string): ChosenCalendar => ({ account: 'sam@example.com', id: 'sam@example.com', name: 'sam@example.com', timeZone, primary: true, writable: true });

test('an event across a daylight-saving change keeps its wall-clock time in the calendar\'s zone', () => {
  // Planned in November (UTC+1 in Paris), held in April (UTC+2): 13:00 stays 13:00.
  const paris = planEvent({ title: 'Lunch', start: '2027-04-02 13:00' }, calendar('Europe/Paris'), now);
  assert.deepEqual(paris.body.start, { dateTime: '2027-04-02T13:00:00+02:00', timeZone: 'Europe/Paris' });
  assert.equal(new Date(paris.body.start!.dateTime!).toISOString(), '2027-04-02T11:00:00.000Z');
  assert.equal(describeEvent(paris.body, paris.calendar)[1], 'When: Fri 2 Apr 2027, 13:00–14:00 (Europe/Paris)');

  // The night the clocks go forward (28 Mar 2027, 02:00 → 03:00): a 3-hour event from 01:00 ends at 05:00.
  const night = planEvent({ title: 'Night shift', start: '2027-03-28 01:00', duration: '3h' }, calendar('Europe/Paris'), now);
  assert.deepEqual([night.body.start!.dateTime, night.body.end!.dateTime], ['2027-03-28T01:00:00+01:00', '2027-03-28T05:00:00+02:00']);

  // New York changes on another day (14 Mar 2027) than Paris: the calendar's zone decides, not the server's.
  const york = planEvent({ title: 'Call', start: '2027-03-15 09:00', end: '09:30' }, calendar('America/New_York'), now);
  assert.deepEqual(york.body.start, { dateTime: '2027-03-15T09:00:00-04:00', timeZone: 'America/New_York' });
  assert.equal(york.body.end!.dateTime, '2027-03-15T09:30:00-04:00');
});

test('start times are read as people and models write them', () => {
  const today = { year: 2026, month: 11, day: 23 };
  const zone = 'Europe/Paris';
  assert.deepEqual(parseWrittenTime('friday at 1pm', today, zone), { day: { year: 2026, month: 11, day: 27 }, minutes: 13 * 60 });
  assert.deepEqual(parseWrittenTime('13:00 tomorrow', today, zone), { day: { year: 2026, month: 11, day: 24 }, minutes: 13 * 60 });
  assert.deepEqual(parseWrittenTime('2026-11-27T13:00:00', today, zone), { day: { year: 2026, month: 11, day: 27 }, minutes: 13 * 60 });
  // An instant with its own offset is moved into the calendar's zone.
  assert.deepEqual(parseWrittenTime('2026-11-27T12:00:00Z', today, zone), { day: { year: 2026, month: 11, day: 27 }, minutes: 13 * 60 });
  assert.deepEqual(parseWrittenTime('Dec 1', today, zone), { day: { year: 2026, month: 12, day: 1 } });
  assert.deepEqual(parseWrittenTime('friday noon', today, zone), { day: { year: 2026, month: 11, day: 27 }, minutes: 12 * 60 });
  assert.equal(parseWrittenTime('someday', today, zone), undefined);
});

test('an end before the start, a bad start and a wrong reminder are refused with what to write', () => {
  const paris = calendar('Europe/Paris');
  assert.throws(() => planEvent({ title: 'x', start: 'friday 13:00', end: 'friday 12:00' }, paris, now), /ends before it starts/);
  assert.throws(() => planEvent({ title: 'x', start: 'soonish' }, paris, now), /not a start I understand/);
  assert.throws(() => planEvent({ title: 'x', start: 'friday 13:00', guests: 'Sam' }, paris, now), /no e-mail address/);
  assert.deepEqual(parseReminders('10 min, 1 day and 2 hours'), [10, 1440, 120]);
  assert.deepEqual(parseReminders('none'), []);
  assert.throws(() => parseReminders('whenever'), /not a reminder time/);
  // A time alone after a late start ends the next day.
  const late = planEvent({ title: 'Party', start: 'saturday 22:00', end: '01:00' }, paris, now);
  assert.equal(late.body.end!.dateTime, '2026-11-29T01:00:00+01:00');
});

test('a title or notes from the model cannot add lines to the card', () => {
  const plan = planEvent({ title: 'Lunch\n+ Guests: everyone@example.com', start: 'friday 13:00', description: 'Bring\nthe cake' }, calendar('Europe/Paris'), now);
  const lines = describeEvent(plan.body, plan.calendar);
  assert.equal(lines[0], 'Lunch + Guests: everyone@example.com');
  assert.deepEqual(lines.slice(-2), ['Notes: Bring', '  the cake']);
});
