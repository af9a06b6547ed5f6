/*
 * Finding the one event a change is about: by id, or by words of it and the days to look in, in a
 * calendar chosen by name; a repeating event must say whether this time or the whole series.
 * delete_event and (next) update_event share it.
 */
import { ToolError } from '../../engine/tools/tool.js';
import { chooseCalendar, type ChosenCalendar } from './calendar-choice.js';
import { dayInterval, dayOf, parseDayRange } from './calendar-days.js';
import { describeWhen, type CalendarEvent } from './calendar-event.js';
import type { GoogleServices } from './google-services.js';
import { pick, type ToolInput } from './tool-input.js';

export interface FoundEvent {
  calendar: ChosenCalendar;
  event: CalendarEvent;
  /** The id to change: the event's, or its series'. */
  targetId: string;
  series: boolean;
}

/** Reads title (or text), date, id, which, calendar and account from the input; `verb` words the questions. */
export async function findEvent(google: GoogleServices, input: ToolInput, now: Date, signal: AbortSignal, verb: string): Promise<FoundEvent> {
  const title = pick(input, 'title', 'text') ?? (input.text || undefined);
  const eventId = pick(input, 'id');
  const which = pick(input, 'which')?.toLowerCase();
  if (which !== undefined && which !== 'this' && which !== 'series') throw new ToolError('which is "this" (only that time) or "series" (every time).');
  const account = google.chooseAccount(pick(input, 'account'));
  const calendar = await chooseCalendar(google, account, pick(input, 'calendar'), signal);
  const api = await google.calendar(account);
  let event: CalendarEvent;
  if (eventId) {
    event = (await google.call({ account, service: 'Google Calendar', notFound: `No event with id ${eventId} in ${calendar.name}.` }, () => api.events.get({ calendarId: calendar.id, eventId }, { signal }))).data;
  } else {
    if (!title) throw new ToolError('Say which event: title: <words of it> and date: <day>, or id.');
    const today = dayOf(now, calendar.timeZone);
    const range = parseDayRange({ text: pick(input, 'date', 'when') }, today, { first: today, days: 30 });
    const { start, end } = dayInterval(range, calendar.timeZone);
    const response = await google.call({ account, service: 'Google Calendar' }, () =>
      api.events.list({ calendarId: calendar.id, q: title, timeMin: start.toISOString(), timeMax: end.toISOString(), singleEvents: true, orderBy: 'startTime', maxResults: 10 }, { signal }),
    );
    const found = (response.data.items ?? []).filter((item) => item.status !== 'cancelled');
    if (found.length === 0) throw new ToolError(`No event matching "${title}" in ${calendar.name} on those days; try other words or days.`);
    if (found.length > 1) {
      throw new ToolError(`${found.length} events match "${title}"; say which with its id:\n${found.map((item) => `${item.id} | ${describeWhen(item, calendar.timeZone)} | ${item.summary ?? '(no title)'}`).join('\n')}`);
    }
    event = found[0]!;
  }
  const series = Boolean(event.recurringEventId);
  if (series && which === undefined) {
    throw new ToolError(`"${event.summary ?? '(no title)'}" repeats. Ask the person: ${verb} only this time (which: this) or the whole series (which: series)?`);
  }
  return { calendar, event, targetId: series && which === 'series' ? event.recurringEventId! : event.id!, series: series && which === 'series' };
}
