/*
 * A change to an event that exists: the model's words (a new title, start, end, place, notes,
 * guests) become a patch holding only the fields that change, and the event as it will be
 * after. Times are wall-clock times in the calendar's own zone, so a move across a daylight
 * saving change keeps the time of day; a move that gives only a new start keeps the length.
 * For a whole series the day the person named is the occurrence's, so the series moves by as
 * many days, keeping its own time of day unless a new one is given.
 */
import { ToolError } from '../../engine/tools/tool.js';
import { addDays, dayOf, formatClock, isoDay, parseClock, parseDay, parseDuration, zonedIso, zonedTime, type CalendarDay } from './calendar-days.js';
import type { ChosenCalendar } from './calendar-choice.js';
import { describeEvent, parseWrittenTime, type CalendarEvent, type EventRequest } from './calendar-event.js';
import { addressesIn } from './draft-message.js';

/** What changes, in a new event's words (guests: addresses to add); reminders stay as they are. */
export type ChangeRequest = Partial<Omit<EventRequest, 'reminders'>>;

export interface ChangePlan {
  /** Only the changed fields, as sent to events.patch. */
  patch: CalendarEvent;
  /** The event as it will be saved. */
  after: CalendarEvent;
  /** What changed, in words: "title, time". */
  changed: string[];
  /** The guests Google e-mails about the change (none: sendUpdates 'none'). */
  notified: string[];
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();
const dayNumber = (day: CalendarDay) => Date.UTC(day.year, day.month - 1, day.day) / 86_400_000;
const minutesOf = (instant: Date, zone: string) => {
  const [hour, minute] = formatClock(instant, zone).split(':').map(Number);
  return hour! * 60 + minute!;
};
const at = (day: CalendarDay, minutes: number, zone: string) => zonedTime(day, Math.floor(minutes / 60), minutes % 60, zone);

/** The guests (not the person, not the organizer) Google writes to. */
export function guestsOf(event: CalendarEvent): string[] {
  return (event.attendees ?? []).filter((attendee) => !attendee.self && !attendee.organizer && attendee.email).map((attendee) => attendee.email!);
}

/** "14:00" alone (the same day), or a day with or without a time. */
function readMoment(text: string, today: CalendarDay, zone: string): { day?: CalendarDay; minutes?: number } {
  const value = text.trim().toLowerCase();
  const clock = /^(noon|midday)$/.test(value) ? 12 * 60 : parseClock(value.replace(/^at\s+/, ''));
  if (clock !== undefined) return { minutes: clock };
  const written = parseWrittenTime(text, today, zone);
  if (!written) throw new ToolError(`"${text}" is not a time I understand. Write a day and a time ("2026-11-27 13:00", "friday 13:00"), a time alone ("15:00") or a day alone.`);
  return written;
}

const weekdayCodes = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA'];

/** A series moved by some days repeats on the new weekday; rules with several days are left to Google Calendar. */
function shiftRecurrence(recurrence: string[], days: number): string[] {
  if (days % 7 === 0) return recurrence;
  return recurrence.map((rule) => {
    if (!/^RRULE:/i.test(rule)) return rule;
    if (/BYMONTHDAY|BYYEARDAY|BYSETPOS/i.test(rule)) throw new ToolError('This series repeats on dates of the month or year; move it by whole weeks, move single times (which: this), or change its days in Google Calendar.');
    const byDay = /BYDAY=([^;]+)/i.exec(rule);
    if (!byDay) return rule;
    if (!/^[A-Z]{2}$/i.test(byDay[1]!)) throw new ToolError('This series repeats on several days of the week; move single times (which: this), or change its days in Google Calendar.');
    const index = weekdayCodes.indexOf(byDay[1]!.toUpperCase());
    return rule.replace(byDay[0], `BYDAY=${weekdayCodes[(((index + days) % 7) + 7) % 7]}`);
  });
}

/**
 * The change to `event` (an event, or a series' own event). `named` is the occurrence the person
 * spoke of when the change is to its whole series: a day they give is that occurrence's new day.
 */
export function planChange(event: CalendarEvent, request: ChangeRequest, calendar: ChosenCalendar, now: Date, named?: CalendarEvent): ChangePlan {
  const zone = calendar.timeZone;
  const today = dayOf(now, zone);
  const patch: CalendarEvent = {};
  const changed: string[] = [];

  if (request.title !== undefined) {
    const title = oneLine(request.title);
    if (!title) throw new ToolError('The new title is empty.');
    if (title !== (event.summary ?? '')) {
      patch.summary = title;
      changed.push('title');
    }
  }

  if (request.start !== undefined || request.end !== undefined || request.duration !== undefined || request.allDay !== undefined) {
    const times = planTimes(event, request, zone, today, named);
    if (times) {
      Object.assign(patch, times.patch);
      changed.push('time');
    }
  }

  if (request.location !== undefined && oneLine(request.location) !== (event.location ?? '')) {
    patch.location = oneLine(request.location);
    changed.push('place');
  }
  if (request.description !== undefined && request.description.trim() !== (event.description ?? '').trim()) {
    patch.description = request.description.trim();
    changed.push('notes');
  }
  if (request.guests !== undefined) {
    const invited = new Set((event.attendees ?? []).map((attendee) => attendee.email?.toLowerCase()));
    const wanted = [...new Set(addressesIn(request.guests).map((address) => address.toLowerCase()))];
    if (wanted.length === 0) throw new ToolError(`"${request.guests}" has no e-mail address; give the guests to add as addresses, comma-separated.`);
    const added = wanted.filter((address) => !invited.has(address));
    if (added.length > 0) {
      // A list is replaced whole by a patch: every guest so far, then the new ones.
      patch.attendees = [...(event.attendees ?? []), ...added.map((email) => ({ email }))];
      changed.push('guests');
    }
  }

  if (changed.length === 0) throw new ToolError('Nothing would change: say what is new (title, start, end or duration, all_day, location, description, guests).');
  const after: CalendarEvent = { ...event, ...patch };
  if (patch.start) after.start = withoutNulls(patch.start);
  if (patch.end) after.end = withoutNulls(patch.end);
  return { patch, after, changed, notified: guestsOf(after) };
}

const withoutNulls = <T extends object>(value: T): T => Object.fromEntries(Object.entries(value).filter(([, field]) => field !== null && field !== undefined)) as T;

function planTimes(event: CalendarEvent, request: ChangeRequest, zone: string, today: CalendarDay, named: CalendarEvent | undefined): { patch: CalendarEvent } | undefined {
  const wasAllDay = Boolean(event.start?.date);
  const anchorDay = (time: CalendarEvent['start']) => (time?.date ? parseDay(time.date, today)! : dayOf(new Date(time?.dateTime ?? 0), zone));
  const firstDay = anchorDay(event.start);
  // A day the person gives is the named occurrence's; the series moves by as many days.
  const shift = named ? dayNumber(firstDay) - dayNumber(anchorDay(named.start)) : 0;
  const mapDay = (day: CalendarDay) => addDays(day, shift);

  const start = request.start !== undefined ? readMoment(request.start, today, zone) : undefined;
  const allDay = request.allDay ?? (wasAllDay ? start?.minutes === undefined : false);
  let patch: CalendarEvent;
  let newFirst: CalendarDay;

  if (allDay) {
    const oldLast = wasAllDay ? addDays(parseDay(event.end?.date ?? event.start!.date!, today)!, event.end?.date ? -1 : 0) : dayOf(new Date(new Date(event.end?.dateTime ?? event.start!.dateTime!).getTime() - 1), zone);
    newFirst = start?.day ? mapDay(start.day) : firstDay;
    let last = addDays(newFirst, Math.max(0, dayNumber(oldLast) - dayNumber(firstDay)));
    if (request.end !== undefined) {
      const end = readMoment(request.end, today, zone);
      if (!end.day) throw new ToolError(`"${request.end}" is not a last day; for an all-day event give a day.`);
      last = mapDay(end.day);
    } else if (request.duration !== undefined) {
      const days = /^\s*(\d+)\s*days?\s*$/i.exec(request.duration);
      if (!days) throw new ToolError(`"${request.duration}" is not a number of days; an all-day event lasts whole days ("2 days").`);
      last = addDays(newFirst, Math.max(1, Number(days[1])) - 1);
    }
    if (dayNumber(last) < dayNumber(newFirst)) throw new ToolError('The event would end before it starts.');
    patch = { start: { date: isoDay(newFirst), dateTime: null }, end: { date: isoDay(addDays(last, 1)), dateTime: null } };
    if (wasAllDay && patch.start!.date === event.start?.date && patch.end!.date === event.end?.date) return undefined;
  } else {
    const oldStart = wasAllDay ? undefined : new Date(event.start!.dateTime!);
    const oldLength = oldStart ? new Date(event.end?.dateTime ?? event.start!.dateTime!).getTime() - oldStart.getTime() : 60 * 60_000;
    newFirst = start?.day ? mapDay(start.day) : firstDay;
    const minutes = start?.minutes ?? (oldStart ? minutesOf(oldStart, zone) : undefined);
    if (minutes === undefined) throw new ToolError('Give the time it starts at, such as "start: 10:00"; it is an all-day event now.');
    const startInstant = at(newFirst, minutes, zone);
    let endInstant: Date;
    if (request.end !== undefined) {
      const end = readMoment(request.end, today, zone);
      if (end.minutes === undefined) throw new ToolError(`"${request.end}" is not an end I understand; write a time ("14:00") or a day and a time.`);
      // A time alone ends the same day, or the next when it is not after the start (23:00–01:00).
      const endDay = end.day ? mapDay(end.day) : end.minutes <= minutes ? addDays(newFirst, 1) : newFirst;
      endInstant = at(endDay, end.minutes, zone);
    } else if (request.duration !== undefined) {
      const length = parseDuration(request.duration);
      if (length === undefined) throw new ToolError(`"${request.duration}" is not a duration; use minutes (45) or hours (1.5h).`);
      endInstant = new Date(startInstant.getTime() + length * 60_000);
    } else {
      endInstant = new Date(startInstant.getTime() + oldLength);
    }
    if (endInstant.getTime() <= startInstant.getTime()) throw new ToolError('The event would end before it starts.');
    const wall = (instant: Date): CalendarEvent['start'] => ({ dateTime: zonedIso(instant, zone), timeZone: zone, ...(wasAllDay ? { date: null } : {}) });
    patch = { start: wall(startInstant), end: wall(endInstant) };
    const same = (written: string | null | undefined, instant: Date) => written !== undefined && written !== null && new Date(written).getTime() === instant.getTime();
    if (!wasAllDay && same(event.start?.dateTime, startInstant) && same(event.end?.dateTime, endInstant)) return undefined;
  }
  if (event.recurrence?.length) {
    const recurrence = shiftRecurrence(event.recurrence, dayNumber(newFirst) - dayNumber(firstDay));
    if (recurrence.join('\n') !== event.recurrence.join('\n')) patch.recurrence = recurrence;
  }
  return { patch };
}

/** The event as lines, its guests plain (they are not invited anew). */
export function describeChangedEvent(event: CalendarEvent, calendar: ChosenCalendar): string[] {
  return describeEvent(event, calendar).map((line) => line.replace(/^Guests \(Google e-mails each an invitation\): /, 'Guests: '));
}

/**
 * The card: the event before and after, line by line. A line that stays is shown plain
 * (indented), a changed one as "- old" then "+ new"; last, who Google e-mails about it.
 */
export function describeChange(before: CalendarEvent, plan: ChangePlan, calendar: ChosenCalendar, repeating?: 'this' | 'series'): string[] {
  const sections = (event: CalendarEvent) => {
    const lines = describeChangedEvent(event, calendar);
    // Notes run over several lines: each labelled line owns the indented ones after it.
    const grouped: Array<{ key: string; lines: string[] }> = [];
    lines.forEach((line, index) => {
      if (index > 0 && line.startsWith('  ')) grouped.at(-1)!.lines.push(line);
      else grouped.push({ key: index === 0 ? 'title' : (/^([A-Za-z]+):/.exec(line)?.[1] ?? line), lines: [line] });
    });
    return grouped;
  };
  const old = sections(before);
  const now = sections(plan.after);
  const order = ['title', 'When', 'Calendar', 'Where', 'Guests', 'Reminders', 'Repeats', 'Notes'];
  const keys = [...new Set([...old, ...now].map((section) => section.key))].sort((a, b) => order.indexOf(a) - order.indexOf(b));
  const card: string[] = [];
  for (const key of keys) {
    const was = old.find((section) => section.key === key)?.lines ?? [];
    const will = now.find((section) => section.key === key)?.lines ?? [];
    if (was.join('\n') === will.join('\n')) card.push(...was.map((line) => `  ${line}`));
    else card.push(...was.map((line) => `- ${line}`), ...will.map((line) => `+ ${line}`));
  }
  if (repeating === 'series') card.push('  Every time it repeats: the whole series.');
  if (repeating === 'this') card.push('  Only this time: the other times of the series stay as they are.');
  card.push(plan.notified.length > 0 ? `  Google e-mails the change to: ${plan.notified.join(', ')}` : '  No one is e-mailed: it has no guests.');
  return card;
}
