import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ToolError } from '../../../../src/engine/tools/tool.js';
import { describeChange, planChange } from '../../../../src/providers/google/calendar-change.js';
import type { ChosenCalendar } from '../../../../src/providers/google/calendar-choice.js';
import type { CalendarEvent } from '../../../../src/providers/google/calendar-event.js';

const now = new Date('2026-11-23T08:00:00Z'); // Monday, winter time in Paris
const paris: ChosenCalendar = { account: 'sam@example.com', id: 'sam@example.com', name: 'sam@example.com', timeZone: 'Europe/Paris', primary: true, writable: true };
const wall = (dateTime: string) => ({ dateTime, timeZone: 'Europe/Paris' });
const meeting: CalendarEvent = { id: 'm1', summary: 'Meeting', start: wall('2026-11-24T16:00:00+01:00'), end: wall('2026-11-24T17:30:00+01:00') };
const holiday: CalendarEvent = { id: 'h1', summary: 'Holiday', start: { date: '2026-12-24' }, end: { date: '2026-12-27' } };

test('a new start keeps the length; a time alone keeps the day, a day alone keeps the time', () => {
  assert.deepEqual(planChange(meeting, { start: 'friday 09:00' }, paris, now).patch, { start: wall('2026-11-27T09:00:00+01:00'), end: wall('2026-11-27T10:30:00+01:00') });
  assert.deepEqual(planChange(meeting, { start: '10:15' }, paris, now).patch, { start: wall('2026-11-24T10:15:00+01:00'), end: wall('2026-11-24T11:45:00+01:00') });
  // Into summer time: 16:00 stays 16:00 on the wall, the offset changes.
  assert.deepEqual(planChange(meeting, { start: '2027-04-06' }, paris, now).patch, { start: wall('2027-04-06T16:00:00+02:00'), end: wall('2027-04-06T17:30:00+02:00') });
  // A new end or length alone moves only the end; a time before the start ends the next day.
  assert.deepEqual(planChange(meeting, { end: '18:00' }, paris, now).patch.end, wall('2026-11-24T18:00:00+01:00'));
  assert.deepEqual(planChange(meeting, { duration: '30' }, paris, now).patch.end, wall('2026-11-24T16:30:00+01:00'));
  assert.deepEqual(planChange(meeting, { end: '01:00' }, paris, now).patch.end, wall('2026-11-25T01:00:00+01:00'));
});

test('all day and back: the other kind of time is cleared, as a patch must', () => {
  assert.deepEqual(planChange(meeting, { allDay: true }, paris, now).patch, { start: { date: '2026-11-24', dateTime: null }, end: { date: '2026-11-25', dateTime: null } });
  assert.deepEqual(planChange(holiday, { start: '2026-12-28' }, paris, now).patch, { start: { date: '2026-12-28', dateTime: null }, end: { date: '2026-12-31', dateTime: null } }, 'three days stay three days');
  assert.deepEqual(planChange(holiday, { duration: '1 day' }, paris, now).patch.end, { date: '2026-12-25', dateTime: null });
  const timed = planChange(holiday, { start: '10:00' }, paris, now);
  assert.deepEqual(timed.patch, { start: { ...wall('2026-12-24T10:00:00+01:00'), date: null }, end: { ...wall('2026-12-24T11:00:00+01:00'), date: null } });
  assert.deepEqual(timed.after.start, wall('2026-12-24T10:00:00+01:00'), 'the event as it will be has no nulls');
});

test('a series moved by days moves its weekday; its time of day stays unless a new one is given', () => {
  const series: CalendarEvent = { id: 'yoga', summary: 'Yoga', recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU'], start: wall('2026-11-24T18:00:00+01:00'), end: wall('2026-11-24T19:00:00+01:00') };
  const named: CalendarEvent = { id: 'yoga_20261208', recurringEventId: 'yoga', start: wall('2026-12-08T18:00:00+01:00'), end: wall('2026-12-08T19:00:00+01:00') };
  // "Tuesday the 8th's yoga, and every time, on Wednesdays": the series' first time moves a day too.
  assert.deepEqual(planChange(series, { start: '2026-12-09' }, paris, now, named).patch, {
    start: wall('2026-11-25T18:00:00+01:00'),
    end: wall('2026-11-25T19:00:00+01:00'),
    recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=WE'],
  });
  assert.deepEqual(planChange(series, { start: '19:30' }, paris, now, named).patch, { start: wall('2026-11-24T19:30:00+01:00'), end: wall('2026-11-24T20:30:00+01:00') });
  const twice = { ...series, recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU,TH'] };
  assert.throws(() => planChange(twice, { start: '2026-12-09' }, paris, now, named), /several days of the week/);
  assert.ok(planChange(twice, { start: '2026-12-15 18:00' }, paris, now, named), 'a whole week later is the same days');
});

test('nothing to change, or an end before the start, is told to the model', () => {
  assert.throws(() => planChange(meeting, {}, paris, now), (error: unknown) => error instanceof ToolError && /Nothing would change/.test(error.message));
  assert.throws(() => planChange(meeting, { title: 'Meeting', start: '16:00' }, paris, now), /Nothing would change/);
  assert.throws(() => planChange(meeting, { start: '16:00', end: '2026-11-24 15:00' }, paris, now), /end before it starts/);
  assert.throws(() => planChange(meeting, { start: 'someday' }, paris, now), /is not a time I understand/);
  assert.throws(() => planChange(meeting, { guests: 'Bo' }, paris, now), /has no e-mail address/);
});

test('the card keeps unchanged lines plain and shows a change as the old line then the new', () => {
  const plan = planChange({ ...meeting, location: 'Room 1', description: 'Agenda\n- budget' }, { title: 'Budget meeting', description: 'Agenda\n- budget\n- plans' }, paris, now);
  assert.deepEqual(describeChange({ ...meeting, location: 'Room 1', description: 'Agenda\n- budget' }, plan, paris), [
    '- Meeting',
    '+ Budget meeting',
    '  When: Tue 24 Nov 2026, 16:00–17:30 (Europe/Paris)',
    '  Calendar: main calendar of sam@example.com',
    '  Where: Room 1',
    '- Notes: Agenda',
    '-   - budget',
    '+ Notes: Agenda',
    '+   - budget',
    '+   - plans',
    '  No one is e-mailed: it has no guests.',
  ]);
  assert.deepEqual(plan.changed, ['title', 'notes']);
});
