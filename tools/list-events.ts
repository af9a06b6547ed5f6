import { GoogleTool } from '../src/providers/google/google-tool.js';
import { type ToolParameters, type ToolRunContext, type ToolWords } from '../src/engine/tools/tool.js';
import { addDays, dayInterval, dayOf, formatClock, formatDay, formatRange, parseDay, sameDay, type CalendarDay } from '../src/providers/google/calendar-days.js';
import { chooseCalendar } from '../src/providers/google/calendar-choice.js';
import { pick, readToolInput } from '../src/providers/google/tool-input.js';
import { calendarRequestProperties, readCalendarRequest } from '../src/providers/google/calendar-request.js';
import type { calendar_v3 } from '@googleapis/calendar';

type CalendarEvent = calendar_v3.Schema$Event;

interface Listed {
  day: CalendarDay;
  /** All-day events first in a day, then by start time. */
  order: number;
  line: string;
}

const dayNumber = (day: CalendarDay) => Date.UTC(day.year, day.month - 1, day.day);

/** The id to change or delete it by. */
const idOf = (event: CalendarEvent) => (event.id ? ` (id ${event.id})` : '');

const cut = (text: string, length: number) => (text.length > length ? `${text.slice(0, length - 1)}…` : text);

/** Read-only: the events of the primary calendar for a day or a range, grouped by day. */
export default class ListEventsTool extends GoogleTool {
  readonly name = 'list_events';
  override readonly source = 'Google: Calendar';
  readonly description =
    'List Google Calendar events (read-only) with their ids for a day or range: "today", "tomorrow", "friday", "2026-11-23", "2026-11-23 to 2026-11-29", "this week", "next 3 days". Default today. Optional account first; JSON adds "calendar" (a calendar\'s name) and "q" (words to search for).';
  readonly examples = ['[TOOL:list_events]tomorrow[/TOOL]', '[TOOL:list_events]2026-11-23 to 2026-11-29[/TOOL]'];
  override readonly parameters: ToolParameters = {
    type: 'object',
    properties: {
      ...calendarRequestProperties('today'),
      calendar: { type: 'string', description: 'Only this calendar, by its name or id (see list_calendars); by default the main one.' },
      q: { type: 'string', description: 'Only events with these words in their title, description or place.' },
    },
    additionalProperties: false,
  };
  override readonly words: ToolWords = { doing: 'Checking your calendar', done: 'Checked your calendar', act: 'check your calendar' };
  override readonly timeoutMs = 30_000;

  /** Each event is an indented line under its day. */
  override summarize(result: string): string | undefined {
    if (/^No events\.$/m.test(result)) return 'no events';
    const count = result.split('\n').filter((line) => line.startsWith('  ')).length;
    return count === 0 ? undefined : `${count} event${count === 1 ? '' : 's'}`;
  }

  async run(raw: string, context: ToolRunContext): Promise<string> {
    const google = this.services.google;
    const choice = readToolInput(raw, ['calendar', 'q']);
    const search = pick(choice, 'q');
    const named = pick(choice, 'calendar');
    const request = readCalendarRequest(raw, google, { now: this.services.now(), defaultDays: 1 });
    const { start, end } = dayInterval(request.range, google.timeZone);
    const zone = google.timeZone;
    const labelled = request.accounts.length > 1;
    const listed: Listed[] = [];
    let truncated = false;

    for (const account of request.accounts) {
      const calendarId = named ? (await chooseCalendar(google, account, named, context.signal, 'read')).id : 'primary';
      const calendar = await google.calendar(account);
      const response = await google.call({ account, service: 'Google Calendar' }, () =>
        calendar.events.list(
          { calendarId, q: search, timeMin: start.toISOString(), timeMax: end.toISOString(), singleEvents: true, orderBy: 'startTime', maxResults: 100, timeZone: zone },
          { signal: context.signal },
        ),
      );
      if (response.data.nextPageToken) truncated = true;
      for (const event of response.data.items ?? []) {
        if (event.status === 'cancelled') continue;
        listed.push(this.describe(event, request.range.first, zone, labelled ? account : undefined));
      }
    }

    const heading = `Events ${formatRange(request.range)} (times in ${zone})${labelled ? '' : ` in ${request.accounts[0]}`}:`;
    if (listed.length === 0) return `${heading}\nNo events.`;
    listed.sort((a, b) => dayNumber(a.day) - dayNumber(b.day) || a.order - b.order);
    const lines = [heading];
    let current: CalendarDay | undefined;
    for (const item of listed) {
      if (!current || !sameDay(current, item.day)) {
        current = item.day;
        lines.push(formatDay(item.day));
      }
      lines.push(`  ${item.line}`);
    }
    if (truncated) lines.push('More events exist: ask for fewer days.');
    return lines.join('\n');
  }

  private describe(event: CalendarEvent, firstDay: CalendarDay, zone: string, account: string | undefined): Listed {
    const title = cut(event.summary?.trim() || '(no title)', 120);
    const where = event.location ? ` (${cut(event.location.trim(), 80)})` : '';
    const declined = event.attendees?.some((attendee) => attendee.self && attendee.responseStatus === 'declined') ? ' [declined]' : '';
    const owner = account ? ` [${account}]` : '';
    const clamp = (day: CalendarDay) => (dayNumber(day) < dayNumber(firstDay) ? firstDay : day);

    if (event.start?.date) {
      // All-day: end.date is exclusive.
      const startDay = parseDay(event.start.date, firstDay)!;
      const endDay = event.end?.date ? addDays(parseDay(event.end.date, firstDay)!, -1) : startDay;
      const until = sameDay(startDay, endDay) ? '' : `, until ${formatDay(endDay)}`;
      const day = clamp(startDay);
      return { day, order: 0, line: `all day${until}: ${title}${where}${owner}${declined}${idOf(event)}` };
    }
    const start = new Date(event.start?.dateTime ?? 0);
    const end = new Date(event.end?.dateTime ?? event.start?.dateTime ?? 0);
    const startDay = dayOf(start, zone);
    const endDay = dayOf(new Date(end.getTime() - 1), zone);
    const endText = sameDay(startDay, endDay) ? formatClock(end, zone) : `${formatDay(endDay)} ${formatClock(end, zone)}`;
    const startText = sameDay(clamp(startDay), startDay) ? formatClock(start, zone) : `(from ${formatDay(startDay)}) ${formatClock(start, zone)}`;
    return { day: clamp(startDay), order: start.getTime(), line: `${startText}–${endText} ${title}${where}${owner}${declined}${idOf(event)}` };
  }
}
