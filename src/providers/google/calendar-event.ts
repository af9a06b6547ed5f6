/*
 * A calendar event as the tools write it and show it. The model's words ("friday at 13:00",
 * "2026-11-27T13:00", "tomorrow") become wall-clock times in the calendar's own zone; what is
 * sent to Google and what the approval card shows are made from the same plan, so the card is
 * the event as it will be saved.
 */
import type { calendar_v3 } from '@googleapis/calendar';
import { ToolError } from '../../engine/tools/tool.js';
import { addDays, dayOf, formatClock, formatDay, isoDay, parseClock, parseDay, parseDuration, sameDay, zonedIso, zonedTime, type CalendarDay } from './calendar-days.js';
import { calendarLabel, type ChosenCalendar } from './calendar-choice.js';
import { addressesIn } from './draft-message.js';

export type CalendarEvent = calendar_v3.Schema$Event;

/** A moment as written: a day, and a time of day unless it is a whole day. */
export interface WrittenTime {
  day: CalendarDay;
  /** Minutes after midnight; undefined for a whole day. */
  minutes?: number;
}

const isoDateTime = /^(\d{4}-\d{2}-\d{2})[t ](\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(z|[+-]\d{2}:?\d{2})?$/i;

/** "friday at 1pm", "13:00 tomorrow", "2026-11-27 13:00", "2026-11-27T13:00:00+01:00", "Nov 27". */
export function parseWrittenTime(text: string, today: CalendarDay, timeZone: string): WrittenTime | undefined {
  const value = text.trim().toLowerCase().replace(/\s+/g, ' ').replace(/[.,]$/, '');
  const iso = isoDateTime.exec(value);
  if (iso) {
    if (iso[4]) {
      // An instant written with its offset: the wall time it is in the calendar's zone.
      const instant = new Date(`${iso[1]}T${iso[2]}:${iso[3]}:00${iso[4] === 'z' ? 'Z' : iso[4].replace(/^([+-]\d{2})(\d{2})$/, '$1:$2')}`);
      if (Number.isNaN(instant.getTime())) return undefined;
      const [hour, minute] = formatClock(instant, timeZone).split(':').map(Number);
      return { day: dayOf(instant, timeZone), minutes: hour! * 60 + minute! };
    }
    const day = parseDay(iso[1]!, today);
    const minutes = parseClock(`${iso[2]}:${iso[3]}`);
    return day && minutes !== undefined ? { day, minutes } : undefined;
  }
  const clock = String.raw`(\d{1,2}(?:[:.h]\d{2})?\s*(?:am|pm)?|noon|midday|midnight)`;
  const clockMinutes = (written: string) => (/^(noon|midday)$/.test(written) ? 12 * 60 : written === 'midnight' ? 0 : parseClock(written));
  const splits = [new RegExp(`^(.+?),?\\s+(?:at\\s+)?${clock}$`), new RegExp(`^(?:at\\s+)?${clock},?\\s+(?:on\\s+)?(.+)$`)];
  for (const [index, pattern] of splits.entries()) {
    const match = pattern.exec(value);
    if (!match) continue;
    const [dayText, clockText] = index === 0 ? [match[1]!, match[2]!] : [match[2]!, match[1]!];
    const day = parseDay(dayText, today);
    const minutes = clockMinutes(clockText);
    if (day && minutes !== undefined && minutes < 24 * 60) return { day, minutes };
  }
  const day = parseDay(value, today);
  return day ? { day } : undefined;
}

export interface EventRequest {
  title: string;
  start: string;
  end?: string;
  duration?: string;
  allDay?: boolean;
  location?: string;
  description?: string;
  guests?: string;
  reminders?: string;
}

export interface EventPlan {
  calendar: ChosenCalendar;
  /** What is sent to Google, as it is sent. */
  body: CalendarEvent;
  guests: string[];
  /** Whether Google e-mails the guests (sendUpdates). */
  sendUpdates: 'all' | 'none';
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/** "10 min, 1 hour, 1 day" → minutes before the start; "none" → no reminders. */
export function parseReminders(text: string): number[] {
  if (/^\s*(none|no|off|0)\s*$/i.test(text)) return [];
  return text.split(/,|\band\b/).map((part) => part.trim().replace(/\s+before$/i, '')).filter(Boolean).map((part) => {
    const days = /^(\d+)\s*(?:d|days?)$/i.exec(part);
    const weeks = /^(\d+)\s*(?:w|weeks?)$/i.exec(part);
    const minutes = days ? Number(days[1]) * 1440 : weeks ? Number(weeks[1]) * 10_080 : parseDuration(part);
    // Calendar takes reminders up to four weeks ahead.
    if (minutes === undefined || minutes > 40_320) throw new ToolError(`"${part}" is not a reminder time; write minutes, hours or days before, such as "10 min, 1 day".`);
    return minutes;
  });
}

/** The event to save, from the model's words, in the calendar's own zone. */
export function planEvent(request: EventRequest, calendar: ChosenCalendar, now: Date): EventPlan {
  const zone = calendar.timeZone;
  const today = dayOf(now, zone);
  const title = oneLine(request.title);
  if (!title) throw new ToolError('Give the event a title.');
  const start = parseWrittenTime(request.start, today, zone);
  if (!start) throw new ToolError(`"${request.start}" is not a start I understand. Write a day and a time, such as "2026-11-27 13:00" or "friday 13:00", or a day alone for an all-day event.`);
  const allDay = request.allDay === true || start.minutes === undefined;

  const body: CalendarEvent = { summary: title };
  if (allDay) {
    let lastDay = start.day;
    if (request.end) {
      const end = parseWrittenTime(request.end, today, zone);
      if (!end) throw new ToolError(`"${request.end}" is not an end day I understand.`);
      lastDay = end.day;
    } else if (request.duration && /^\s*\d+\s*days?\s*$/i.test(request.duration)) {
      lastDay = addDays(start.day, Number(/\d+/.exec(request.duration)![0]) - 1);
    }
    if (dayNumber(lastDay) < dayNumber(start.day)) throw new ToolError('The event ends before it starts.');
    // An all-day event's end date is the day after its last day.
    body.start = { date: isoDay(start.day) };
    body.end = { date: isoDay(addDays(lastDay, 1)) };
  } else {
    const startInstant = zonedTime(start.day, Math.floor(start.minutes! / 60), start.minutes! % 60, zone);
    let endInstant: Date;
    if (request.end) {
      const endClock = parseClock(request.end.trim().toLowerCase());
      if (endClock !== undefined) {
        // A time alone ends the same day, or the next when it is earlier than the start (23:00–01:00).
        const endDay = endClock <= start.minutes! ? addDays(start.day, 1) : start.day;
        endInstant = zonedTime(endDay, Math.floor(endClock / 60), endClock % 60, zone);
      } else {
        const end = parseWrittenTime(request.end, today, zone);
        if (!end || end.minutes === undefined) throw new ToolError(`"${request.end}" is not an end I understand; write a time ("14:00") or a day and a time.`);
        endInstant = zonedTime(end.day, Math.floor(end.minutes / 60), end.minutes % 60, zone);
      }
    } else {
      const minutes = request.duration ? parseDuration(request.duration) : 60;
      if (minutes === undefined) throw new ToolError(`"${request.duration}" is not a duration; use minutes (45) or hours (1.5h).`);
      endInstant = new Date(startInstant.getTime() + minutes * 60_000);
    }
    if (endInstant.getTime() <= startInstant.getTime()) throw new ToolError('The event ends before it starts.');
    body.start = { dateTime: zonedIso(startInstant, zone), timeZone: zone };
    body.end = { dateTime: zonedIso(endInstant, zone), timeZone: zone };
  }

  if (request.location?.trim()) body.location = oneLine(request.location);
  if (request.description?.trim()) body.description = request.description.trim();
  const guests = request.guests ? [...new Set(addressesIn(request.guests).map((address) => address.toLowerCase()))] : [];
  if (request.guests?.trim() && guests.length === 0) throw new ToolError(`"${request.guests}" has no e-mail address; give guests as addresses, comma-separated.`);
  if (guests.length > 0) body.attendees = guests.map((email) => ({ email }));
  if (request.reminders !== undefined) {
    const minutes = parseReminders(request.reminders);
    body.reminders = { useDefault: false, overrides: minutes.slice(0, 5).map((value) => ({ method: 'popup', minutes: value })) };
  }
  return { calendar, body, guests, sendUpdates: guests.length > 0 ? 'all' : 'none' };
}

const dayNumber = (day: CalendarDay) => Date.UTC(day.year, day.month - 1, day.day);

/** "Fri 27 Nov 2026, 13:00–14:00 (Europe/Paris)", "Fri 27 Nov 2026, all day". */
export function describeWhen(event: CalendarEvent, zone: string): string {
  if (event.start?.date) {
    const today = { year: 2000, month: 1, day: 1 };
    const first = parseDay(event.start.date, today)!;
    const last = event.end?.date ? addDays(parseDay(event.end.date, today)!, -1) : first;
    return sameDay(first, last) ? `${formatDay(first)}, all day` : `${formatDay(first)} – ${formatDay(last)}, all day`;
  }
  const start = new Date(event.start?.dateTime ?? 0);
  const end = new Date(event.end?.dateTime ?? event.start?.dateTime ?? 0);
  const startDay = dayOf(start, zone);
  const endDay = dayOf(end, zone);
  const endText = sameDay(startDay, endDay) ? formatClock(end, zone) : `${formatDay(endDay)} ${formatClock(end, zone)}`;
  return `${formatDay(startDay)}, ${formatClock(start, zone)}–${endText} (${zone})`;
}

function reminderText(minutes: number): string {
  if (minutes % 1440 === 0 && minutes > 0) return `${minutes / 1440} day${minutes === 1440 ? '' : 's'}`;
  if (minutes % 60 === 0 && minutes > 0) return `${minutes / 60} hour${minutes === 60 ? '' : 's'}`;
  return `${minutes} min`;
}

/** The event as lines: what the card shows before it is saved, and what the model is told after. */
export function describeEvent(event: CalendarEvent, calendar: ChosenCalendar): string[] {
  const lines = [oneLine(event.summary ?? '') || '(no title)', `When: ${describeWhen(event, calendar.timeZone)}`, `Calendar: ${calendarLabel(calendar)}`];
  if (event.location) lines.push(`Where: ${oneLine(event.location)}`);
  const guests = (event.attendees ?? []).filter((attendee) => !attendee.self && !attendee.organizer).map((attendee) => attendee.email).filter(Boolean);
  if (guests.length > 0) lines.push(`Guests (Google e-mails each an invitation): ${guests.join(', ')}`);
  if (event.reminders && !event.reminders.useDefault) {
    const overrides = event.reminders.overrides ?? [];
    lines.push(`Reminders: ${overrides.length === 0 ? 'none' : overrides.map((reminder) => `${reminderText(reminder.minutes ?? 0)} before`).join(', ')}`);
  }
  if (event.recurrence?.length) lines.push(`Repeats: ${event.recurrence.join('; ')}`);
  if (event.description) {
    const description = event.description.trim().split(/\r?\n/);
    lines.push(`Notes: ${description[0]}`, ...description.slice(1, 20).map((line) => `  ${line}`));
  }
  return lines;
}

/** A saved event's card line: "Event saved: Lunch with Sam\nWhen: Fri 27 Nov 2026, 13:00–14:00 (…)" → "Lunch with Sam, Fri 27 Nov 2026, 13:00–14:00". */
export function summarizeSavedEvent(result: string): string | undefined {
  const match = /^Event (?:saved|changed)[^:]*: (.*)\nWhen: (.*?)(?: \(.*\))?$/m.exec(result);
  return match ? `${match[1]!.slice(0, 60)}, ${match[2]}` : undefined;
}
