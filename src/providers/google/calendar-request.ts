/*
 * What list_events and find_free_time are asked: which accounts, which days, and for free
 * time how long and between which hours. Fields or plain text ("tomorrow for 1h between 9 and 17").
 */
import { ToolError, type ParameterSchema } from '../../engine/tools/tool.js';
import { dayOf, parseClock, parseDayRange, parseDuration, type DayRange } from './calendar-days.js';
import type { GoogleServices } from './google-services.js';
import { accountAndValue, pick, readToolInput } from './tool-input.js';

export interface CalendarRequest {
  accounts: string[];
  range: DayRange;
  /** Minutes; only for free time. */
  durationMinutes: number;
  /** Minutes after midnight, only for free time. */
  dayStart: number;
  dayEnd: number;
}

const knownKeys = ['account', 'date', 'day', 'from', 'start', 'to', 'end', 'days', 'range', 'when', 'duration', 'length', 'minutes', 'hours', 'between', 'day_start', 'day_end'];

function hoursFrom(text: string): { start: number; end: number } | undefined {
  const match = /^\s*(?:between\s+)?(.+?)\s*(?:-|–|\bto\b|\band\b|\buntil\b)\s*(.+?)\s*$/i.exec(text);
  const start = match ? parseClock(match[1]!) : undefined;
  const end = match ? parseClock(match[2]!) : undefined;
  return start !== undefined && end !== undefined ? { start, end } : undefined;
}

/** The parameters list_events and find_free_time share (JSON Schema properties); `defaultDays` words the default. */
export function calendarRequestProperties(defaultDays: string): Record<string, ParameterSchema> {
  return {
    when: { type: 'string', description: `The days in words: "today", "tomorrow", "friday", "2026-11-23", "2026-11-23 to 2026-11-29", "this week", "next 3 days"; by default ${defaultDays}.` },
    date: { type: 'string', description: 'One day, or the first day with days or to: YYYY-MM-DD, "today", "tomorrow" or a weekday.' },
    to: { type: 'string', description: 'The last day of the range (with date), in the same forms.' },
    days: { type: 'integer', minimum: 1, maximum: 31, description: 'How many days from date (or from today).' },
    account: { type: 'string', format: 'email', description: 'Only this authorized account; by default all of them.' },
  };
}

export interface CalendarRequestOptions {
  now: Date;
  /** Days used when the request names none. */
  defaultDays: number;
}

export function readCalendarRequest(raw: string, google: GoogleServices, options: CalendarRequestOptions): CalendarRequest {
  const input = readToolInput(raw, knownKeys);
  const today = dayOf(options.now, google.timeZone);
  const { account, value } = accountAndValue(input, google.listAccounts(), 'range', 'when');
  let durationText = pick(input, 'duration', 'length', 'minutes');
  let hours = pick(input, 'hours', 'between');
  let rangeText: string | undefined = value || undefined;

  if (input.text) {
    let text = value;
    // Pull the free-time parts out of the sentence; what remains names the days.
    text = text.replace(/\bbetween\s+(\d{1,2}(?:[:.h]\d{2})?\s*(?:am|pm)?)\s*(?:and|to|-|–)\s*(\d{1,2}(?:[:.h]\d{2})?\s*(?:am|pm)?)/i, (phrase) => {
      hours = phrase;
      return ' ';
    });
    text = text.replace(/\b(\d{1,2}:\d{2}\s*(?:am|pm)?)\s*(?:-|–|to)\s*(\d{1,2}:\d{2}\s*(?:am|pm)?)/i, (phrase) => {
      hours ??= phrase;
      return ' ';
    });
    text = text.replace(/(?:\bfor\s+)?\b(\d+\s*h\s*\d+\s*m?|\d+(?:\.\d+)?\s*(?:h|hours?|hrs?|m|mins?|minutes?))(?![\w-])/i, (_phrase, amount: string) => {
      durationText = amount;
      return ' ';
    });
    rangeText = text.replace(/\s+/g, ' ').trim();
  }

  const range = parseDayRange(
    {
      text: rangeText,
      date: pick(input, 'date', 'day'),
      from: pick(input, 'from', 'start'),
      to: pick(input, 'to', 'end'),
      days: pick(input, 'days'),
    },
    today,
    { first: today, days: options.defaultDays },
  );

  let durationMinutes = 30;
  if (durationText !== undefined) {
    const parsed = parseDuration(durationText);
    if (parsed === undefined || parsed > 24 * 60) throw new ToolError(`"${durationText}" is not a duration; use minutes (45) or hours (1.5h).`);
    durationMinutes = parsed;
  }

  let dayStart = 9 * 60;
  let dayEnd = 18 * 60;
  const startText = pick(input, 'day_start');
  const endText = pick(input, 'day_end');
  if (hours !== undefined) {
    const parsed = hoursFrom(hours);
    if (!parsed) throw new ToolError(`"${hours}" is not a span of hours; use hours: 09:00-17:00.`);
    ({ start: dayStart, end: dayEnd } = parsed);
  } else if (startText !== undefined || endText !== undefined) {
    dayStart = startText === undefined ? dayStart : (parseClock(startText) ?? -1);
    dayEnd = endText === undefined ? dayEnd : (parseClock(endText) ?? -1);
  }
  if (dayStart < 0 || dayEnd < 0 || dayEnd <= dayStart) throw new ToolError('The hours must be a start before an end, such as hours: 09:00-17:00.');

  return { accounts: google.resolveAccounts(account), range, durationMinutes, dayStart, dayEnd };
}
