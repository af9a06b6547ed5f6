import { GoogleTool } from '../src/providers/google/google-tool.js';
import { type ToolParameters, type ToolRunContext, type ToolWords } from '../src/engine/tools/tool.js';
import { addDays, dayInterval, formatClock, formatMinutesOfDay, formatDay, formatRange, freeSlots, zonedTime, type Interval } from '../src/providers/google/calendar-days.js';
import { calendarRequestProperties, readCalendarRequest } from '../src/providers/google/calendar-request.js';

/** Free gaps in the calendar (Google's free/busy), within waking hours, from now on. */
export default class FindFreeTimeTool extends GoogleTool {
  readonly name = 'find_free_time';
  override readonly source = 'Google: Calendar';
  readonly description =
    'Find free time in Google Calendar (read-only): days as for list_events (default the next 7 days), optional duration (default 30 min) and hours (default 09:00-18:00). Busy time of every authorized account counts unless one is named.';
  readonly examples = ['[TOOL:find_free_time]tomorrow for 1h[/TOOL]', '[TOOL:find_free_time]next week for 2 hours between 10:00 and 16:00[/TOOL]'];
  override readonly parameters: ToolParameters = {
    type: 'object',
    properties: {
      ...calendarRequestProperties('the next 7 days'),
      duration: { type: 'string', description: 'The shortest free time worth listing: minutes ("45") or hours ("1.5h"); by default 30 minutes.' },
      hours: { type: 'string', description: 'The part of each day to look in, such as "09:00-17:00"; by default 09:00-18:00.' },
    },
    additionalProperties: false,
  };
  override readonly words: ToolWords = {
    doing: 'Looking for free time in your calendar',
    done: 'Looked for free time in your calendar',
    act: 'look for free time in your calendar',
  };
  override readonly timeoutMs = 30_000;

  /** Each day's line lists its free times ("10:00–11:30, 14:00–18:00") or says "none". */
  override summarize(result: string): string | undefined {
    const days = result.split('\n').slice(1).map((line) => /^[^:]+: (.+)$/.exec(line)?.[1]).filter((text) => text !== undefined);
    if (days.length === 0) return undefined;
    const count = days.filter((text) => text !== 'none').reduce((sum, text) => sum + text.split(', ').length, 0);
    return count === 0 ? 'no free time' : `${count} free slot${count === 1 ? '' : 's'}`;
  }

  async run(raw: string, context: ToolRunContext): Promise<string> {
    const google = this.services.google;
    const now = this.services.now();
    const request = readCalendarRequest(raw, google, { now, defaultDays: 7 });
    const zone = google.timeZone;
    const { start, end } = dayInterval(request.range, zone);

    const busy: Interval[] = [];
    for (const account of request.accounts) {
      const calendar = await google.calendar(account);
      const response = await google.call({ account, service: 'Google Calendar' }, () =>
        calendar.freebusy.query(
          { requestBody: { timeMin: start.toISOString(), timeMax: end.toISOString(), timeZone: zone, items: [{ id: 'primary' }] } },
          { signal: context.signal },
        ),
      );
      for (const entry of Object.values(response.data.calendars ?? {})) {
        for (const period of entry.busy ?? []) {
          if (period.start && period.end) busy.push({ start: new Date(period.start), end: new Date(period.end) });
        }
      }
    }

    const lines = [
      `Free time of at least ${request.durationMinutes} min between ${formatMinutesOfDay(request.dayStart)} and ${formatMinutesOfDay(request.dayEnd)}, ${formatRange(request.range)} (${zone}), from ${request.accounts.join(', ')}:`,
    ];
    for (let index = 0; index < request.range.days; index++) {
      const day = addDays(request.range.first, index);
      const window = {
        start: new Date(Math.max(zonedTime(day, 0, request.dayStart, zone).getTime(), now.getTime())),
        end: zonedTime(day, 0, request.dayEnd, zone),
      };
      if (window.end.getTime() <= window.start.getTime()) continue; // already past
      const slots = freeSlots([window], busy, request.durationMinutes);
      const text = slots.length === 0 ? 'none' : slots.map((slot) => `${formatClock(slot.start, zone)}–${formatClock(slot.end, zone)}`).join(', ');
      lines.push(`${formatDay(day)}: ${text}`);
    }
    if (lines.length === 1) lines.push('Those days are already over.');
    return lines.join('\n');
  }
}
