import { GoogleTool } from '../src/providers/google/google-tool.js';
import { type ApprovalNeed, type CallSituation, type ToolParameters, type ToolRunContext, type ToolWords } from '../src/engine/tools/tool.js';
import { type ChosenCalendar } from '../src/providers/google/calendar-choice.js';
import { findEvent } from '../src/providers/google/calendar-find.js';
import { describeEvent, describeWhen, type CalendarEvent } from '../src/providers/google/calendar-event.js';
import { readToolInput } from '../src/providers/google/tool-input.js';

const keys = ['title', 'text', 'date', 'when', 'id', 'which', 'calendar', 'account'];

interface Deletion {
  calendar: ChosenCalendar;
  event: CalendarEvent;
  /** The id deleted: the event's, or its series'. */
  eventId: string;
  series: boolean;
}

/** Deletes one event (found by its words and day, or by id); a repeating one says whether this time or the whole series. */
export default class DeleteEventTool extends GoogleTool {
  readonly name = 'delete_event';
  override readonly source = 'Google: Calendar';
  readonly description =
    'Delete a Google Calendar event (asks the person first): title (words of it) and date (a day or range, default the next 30 days), or id. For a repeating event, which: "this" (only that time) or "series" (every time); ask the person which. Optional calendar (name), account.';
  readonly examples = ['[TOOL:delete_event]title: Dentist\ndate: tuesday[/TOOL]', '[TOOL:delete_event]title: Yoga\ndate: 2026-12-01\nwhich: this[/TOOL]'];
  override readonly parameters: ToolParameters = {
    type: 'object',
    properties: {
      title: { type: 'string', description: 'Words of the event\'s title (or place or notes), to find it.' },
      date: { type: 'string', description: 'The day or days to look in: "tuesday", "2026-12-01", "next week"; by default the next 30 days.' },
      id: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,1024}$', description: 'The event id, instead of title and date.' },
      which: { type: 'string', enum: ['this', 'series'], description: 'For a repeating event: only this time, or the whole series.' },
      calendar: { type: 'string', description: 'The name of the calendar it is in; by default the main one.' },
      account: { type: 'string', format: 'email', description: 'The account whose calendar it is in, when several are authorized.' },
    },
    anyOf: [{ required: ['title'] }, { required: ['id'] }],
    additionalProperties: false,
  };
  override readonly words: ToolWords = { doing: 'Deleting an event from your calendar', done: 'Deleted an event from your calendar', act: 'delete an event from your calendar' };
  override readonly timeoutMs = 30_000;
  override readonly actsOnWorld = true;

  override summarize(result: string): string | undefined {
    const match = /^Deleted (every time of )?"(.*)" \((.*?), \d{2}:\d{2}|^Deleted (every time of )?"(.*)" \((.*?), all day/.exec(result);
    if (!match) return undefined;
    const [every, title, day] = match[2] !== undefined ? [match[1], match[2], match[3]] : [match[4], match[5], match[6]];
    return `${title!.slice(0, 60)}, ${every ? 'every time' : day}`;
  }

  override async approvalFor(params: string, _situation: CallSituation, stop: AbortSignal): Promise<ApprovalNeed> {
    return this.askShowing(stop, async (signal) => {
      const deletion = await this.find(params, signal);
      const lines = describeEvent(deletion.event, deletion.calendar).map((line) => `- ${line}`);
      if (deletion.series) lines.push('- Every time it repeats: the whole series.');
      if (this.guests(deletion.event).length > 0) lines.push(`Google e-mails the guests that it is cancelled.`);
      return lines;
    });
  }

  async run(params: string, context: ToolRunContext): Promise<string> {
    const google = this.services.google;
    const deletion = await this.find(params, context.signal);
    const { account, id } = deletion.calendar;
    const api = await google.calendar(account);
    await google.call({ account, service: 'Google Calendar', needs: 'change calendar events', notFound: 'That event is already gone.' }, () =>
      api.events.delete({ calendarId: id, eventId: deletion.eventId, sendUpdates: this.guests(deletion.event).length > 0 ? 'all' : 'none' }, { signal: context.signal }),
    );
    return `Deleted ${deletion.series ? 'every time of ' : ''}"${deletion.event.summary ?? '(no title)'}" (${describeWhen(deletion.event, deletion.calendar.timeZone)}) from ${deletion.calendar.name}.`;
  }

  private guests(event: CalendarEvent): string[] {
    return (event.attendees ?? []).filter((attendee) => !attendee.self && !attendee.organizer && attendee.email).map((attendee) => attendee.email!);
  }

  private async find(params: string, signal: AbortSignal): Promise<Deletion> {
    const found = await findEvent(this.services.google, readToolInput(params, keys), this.services.now(), signal, 'delete');
    return { calendar: found.calendar, event: found.event, eventId: found.targetId, series: found.series };
  }
}
