/*
 * Days and times for the calendar tools, in one IANA time zone, without a date library:
 * Intl tells the zone's offset at an instant, and day boundaries are found from it (twice, so
 * a daylight-saving change on that day is handled).
 */
import { ToolError } from '../../engine/tools/tool.js';

/** A date on the wall calendar (month 1–12). */
export interface CalendarDay {
  year: number;
  month: number;
  day: number;
}

export interface DayRange {
  first: CalendarDay;
  /** How many days, at least 1. */
  days: number;
}

export interface Interval {
  start: Date;
  end: Date;
}

const partsFormatters = new Map<string, Intl.DateTimeFormat>();

function zonedParts(instant: Date, timeZone: string) {
  let formatter = partsFormatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
    });
    partsFormatters.set(timeZone, formatter);
  }
  const parts = Object.fromEntries(formatter.formatToParts(instant).map((part) => [part.type, part.value]));
  return { year: Number(parts.year), month: Number(parts.month), day: Number(parts.day), hour: Number(parts.hour), minute: Number(parts.minute), second: Number(parts.second) };
}

export function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** Minutes the zone is ahead of UTC at this instant. */
export function offsetMinutes(instant: Date, timeZone: string): number {
  const parts = zonedParts(instant, timeZone);
  const asUtc = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
  return Math.round((asUtc - Math.floor(instant.getTime() / 1000) * 1000) / 60_000);
}

/** The instant a wall-clock time happens in the zone. */
export function zonedTime(day: CalendarDay, hour: number, minute: number, timeZone: string): Date {
  const wall = Date.UTC(day.year, day.month - 1, day.day, hour, minute);
  const first = wall - offsetMinutes(new Date(wall), timeZone) * 60_000;
  const second = wall - offsetMinutes(new Date(first), timeZone) * 60_000;
  return new Date(second);
}

export function dayOf(instant: Date, timeZone: string): CalendarDay {
  const { year, month, day } = zonedParts(instant, timeZone);
  return { year, month, day };
}

export function addDays(day: CalendarDay, count: number): CalendarDay {
  const date = new Date(Date.UTC(day.year, day.month - 1, day.day + count));
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
}

/** 0 = Sunday … 6 = Saturday. */
export function weekdayOf(day: CalendarDay): number {
  return new Date(Date.UTC(day.year, day.month - 1, day.day)).getUTCDay();
}

function daysBetween(first: CalendarDay, last: CalendarDay): number {
  return Math.round((Date.UTC(last.year, last.month - 1, last.day) - Date.UTC(first.year, first.month - 1, first.day)) / 86_400_000);
}

export const sameDay = (a: CalendarDay, b: CalendarDay) => a.year === b.year && a.month === b.month && a.day === b.day;

export function dayInterval(range: DayRange, timeZone: string): Interval {
  return { start: zonedTime(range.first, 0, 0, timeZone), end: zonedTime(addDays(range.first, range.days), 0, 0, timeZone) };
}

const shortWeekdays = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const shortMonths = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "Mon 23 Nov 2026": short, unambiguous, the same on every computer. */
export function formatDay(day: CalendarDay): string {
  return `${shortWeekdays[weekdayOf(day)]} ${day.day} ${shortMonths[day.month - 1]} ${day.year}`;
}

/** 570 → "09:30". */
export const formatMinutesOfDay = (minutes: number): string =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

export function formatClock(instant: Date, timeZone: string): string {
  const { hour, minute } = zonedParts(instant, timeZone);
  return formatMinutesOfDay(hour * 60 + minute);
}

export function formatRange(range: DayRange): string {
  return range.days === 1 ? formatDay(range.first) : `${formatDay(range.first)} – ${formatDay(addDays(range.first, range.days - 1))}`;
}

const weekdays = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const months = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

function validDay(year: number, month: number, day: number): CalendarDay | undefined {
  const candidate = addDays({ year, month, day: 1 }, day - 1);
  return month >= 1 && month <= 12 && candidate.month === month && day >= 1 ? { year, month, day } : undefined;
}

function monthNumber(name: string): number | undefined {
  const index = months.indexOf(name.slice(0, 3).toLowerCase());
  return index >= 0 ? index + 1 : undefined;
}

/** One day, as people and models write it. Undefined when the text is not a day. */
export function parseDay(text: string, today: CalendarDay): CalendarDay | undefined {
  const value = text.trim().toLowerCase().replace(/[.,]$/, '').replace(/^on\s+/, '');
  if (value === 'today') return today;
  if (value === 'tomorrow') return addDays(today, 1);
  if (value === 'yesterday') return addDays(today, -1);
  if (value === 'day after tomorrow' || value === 'the day after tomorrow') return addDays(today, 2);

  const weekday = /^(next\s+|this\s+)?([a-z]+)$/.exec(value);
  if (weekday) {
    const index = weekdays.findIndex((name) => name === weekday[2] || (weekday[2]!.length >= 3 && name.startsWith(weekday[2]!)));
    if (index >= 0) {
      let ahead = (index - weekdayOf(today) + 7) % 7;
      if (ahead === 0 && weekday[1]?.startsWith('next')) ahead = 7;
      return addDays(today, ahead);
    }
  }

  let match = /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?:[t\s].*)?$/.exec(value);
  if (match) return validDay(Number(match[1]), Number(match[2]), Number(match[3]));
  match = /^(?:[a-z]+,?\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?([a-z]{3,})\.?,?(?:\s+(\d{4}))?$/.exec(value);
  if (match && monthNumber(match[2]!)) return validDay(match[3] ? Number(match[3]) : today.year, monthNumber(match[2]!)!, Number(match[1]));
  match = /^(?:[a-z]+,?\s+)?([a-z]{3,})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?(?:\s+(\d{4}))?$/.exec(value);
  if (match && monthNumber(match[1]!)) return validDay(match[3] ? Number(match[3]) : today.year, monthNumber(match[1]!)!, Number(match[2]));
  return undefined;
}

export interface RangeRequest {
  /** Free text: "today", "tomorrow", "next week", "2026-11-23 to 2026-11-29", "next 3 days"... */
  text?: string;
  date?: string;
  from?: string;
  to?: string;
  days?: string;
}

function requireDay(text: string, today: CalendarDay): CalendarDay {
  const day = parseDay(text, today);
  if (!day) throw new ToolError(`"${text.trim()}" is not a date I understand. Use YYYY-MM-DD, "today", "tomorrow", a weekday, or a range such as "2026-11-23 to 2026-11-29".`);
  return day;
}

function countOf(text: string): number {
  const count = Number(text.trim());
  if (!Number.isInteger(count) || count < 1) throw new ToolError(`"${text}" is not a number of days.`);
  return count;
}

/** A range of whole days; `maximumDays` keeps results (and Google quota) small. */
export function parseDayRange(request: RangeRequest, today: CalendarDay, fallback: DayRange, maximumDays = 31): DayRange {
  let range: DayRange | undefined;
  const from = request.from ?? request.date;
  if (from !== undefined) {
    const first = requireDay(from, today);
    if (request.to !== undefined) range = { first, days: daysBetween(first, requireDay(request.to, today)) + 1 };
    else range = { first, days: request.days !== undefined ? countOf(request.days) : 1 };
  } else if (request.days !== undefined) {
    range = { first: today, days: countOf(request.days) };
  } else {
    const text = (request.text ?? '').trim().toLowerCase().replace(/\s+/g, ' ').replace(/^(for|on|from|during|in)\s+/, '');
    range = text === '' ? fallback : parseRangeText(text, today);
  }
  if (range.days < 1) throw new ToolError('The end of the range is before its start.');
  if (range.days > maximumDays) throw new ToolError(`That is ${range.days} days; ask for at most ${maximumDays} at a time.`);
  return range;
}

function parseRangeText(text: string, today: CalendarDay): DayRange {
  const mondayThisWeek = addDays(today, -((weekdayOf(today) + 6) % 7));
  if (text === 'this week' || text === 'week') return { first: mondayThisWeek, days: 7 };
  if (text === 'next week') return { first: addDays(mondayThisWeek, 7), days: 7 };
  if (text === 'weekend' || text === 'this weekend' || text === 'the weekend') {
    const weekday = weekdayOf(today);
    if (weekday === 0) return { first: today, days: 1 };
    return { first: addDays(today, 6 - weekday), days: 2 };
  }
  if (text === 'next weekend') return { first: addDays(mondayThisWeek, 12), days: 2 };
  let match = /^(?:the\s+)?(?:next|coming)\s+(\d+)\s+days?$/.exec(text) ?? /^(\d+)\s+days?$/.exec(text);
  if (match) return { first: today, days: countOf(match[1]!) };
  if (text === 'this month' || text === 'month') {
    const last = addDays({ year: today.year, month: today.month, day: 1 }, 40);
    return { first: today, days: daysBetween(today, addDays({ year: last.year, month: last.month, day: 1 }, -1)) + 1 };
  }
  match = /^(.+?)\s*(?:\bto\b|\buntil\b|\btill\b|\bthrough\b|–|—|\.\.| - )\s*(.+)$/.exec(text);
  if (match) {
    const first = requireDay(match[1]!, today);
    return { first, days: daysBetween(first, requireDay(match[2]!, today)) + 1 };
  }
  return { first: requireDay(text, today), days: 1 };
}

/** Gaps of at least `minimumMinutes` inside each window, around the busy intervals. */
export function freeSlots(windows: Interval[], busy: Interval[], minimumMinutes: number): Interval[] {
  const sorted = [...busy].sort((a, b) => a.start.getTime() - b.start.getTime());
  const slots: Interval[] = [];
  for (const window of windows) {
    let cursor = window.start.getTime();
    const end = window.end.getTime();
    for (const interval of sorted) {
      if (interval.end.getTime() <= cursor || interval.start.getTime() >= end) continue;
      if (interval.start.getTime() - cursor >= minimumMinutes * 60_000) slots.push({ start: new Date(cursor), end: interval.start });
      cursor = Math.max(cursor, interval.end.getTime());
    }
    if (end - cursor >= minimumMinutes * 60_000) slots.push({ start: new Date(cursor), end: new Date(end) });
  }
  return slots;
}

/** "09:00", "9", "9am", "5:30 pm" → minutes after midnight. */
export function parseClock(text: string): number | undefined {
  const match = /^(\d{1,2})(?:[:.h](\d{2}))?\s*(am|pm)?$/i.exec(text.trim());
  if (!match) return undefined;
  let hour = Number(match[1]);
  const minute = Number(match[2] ?? 0);
  const meridiem = match[3]?.toLowerCase();
  if (meridiem === 'pm' && hour < 12) hour += 12;
  if (meridiem === 'am' && hour === 12) hour = 0;
  if (hour > 24 || minute > 59 || (hour === 24 && minute > 0)) return undefined;
  return hour * 60 + minute;
}

/** "30", "30m", "1h", "1.5 hours", "90 minutes", "1h30" → minutes. */
export function parseDuration(text: string): number | undefined {
  const value = text.trim().toLowerCase().replace(/^for\s+/, '');
  let match = /^(\d+)\s*h(?:ours?|rs?)?\s*(\d+)\s*(?:m|mins?|minutes?)?$/.exec(value);
  if (match) return Number(match[1]) * 60 + Number(match[2]);
  match = /^(\d+(?:\.\d+)?)\s*(h|hours?|hrs?|m|mins?|minutes?)?$/.exec(value);
  if (!match) return undefined;
  const amount = Number(match[1]);
  const minutes = match[2]?.startsWith('h') ? amount * 60 : amount;
  return minutes > 0 ? Math.round(minutes) : undefined;
}

/** "Fri 20 Nov 2026 08:15" in the zone. */
export function formatDateTime(instant: Date, timeZone: string): string {
  return `${formatDay(dayOf(instant, timeZone))} ${formatClock(instant, timeZone)}`;
}

/** RFC 3339 with the zone's offset at that instant: "2027-04-02T13:00:00+02:00", as Calendar takes it. */
export function zonedIso(instant: Date, timeZone: string): string {
  const { year, month, day, hour, minute } = zonedParts(instant, timeZone);
  const offset = offsetMinutes(instant, timeZone);
  const two = (value: number) => String(value).padStart(2, '0');
  const sign = offset < 0 ? '-' : '+';
  return `${year}-${two(month)}-${two(day)}T${two(hour)}:${two(minute)}:00${sign}${two(Math.floor(Math.abs(offset) / 60))}:${two(Math.abs(offset) % 60)}`;
}

/** "2026-11-27", as an all-day event's date. */
export const isoDay = (day: CalendarDay): string => `${day.year}-${String(day.month).padStart(2, '0')}-${String(day.day).padStart(2, '0')}`;
