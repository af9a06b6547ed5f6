import { GoogleTool } from '../src/providers/google/google-tool.js';
import { type ApprovalNeed, type CallSituation, type ToolParameters, type ToolRunContext, type ToolWords } from '../src/engine/tools/tool.js';
import { describeChange, describeChangedEvent, planChange, type ChangePlan } from '../src/providers/google/calendar-change.js';
import { findEvent, type FoundEvent } from '../src/providers/google/calendar-find.js';
import { summarizeSavedEvent, type CalendarEvent } from '../src/providers/google/calendar-event.js';
import { pick, readToolInput } from '../src/providers/google/tool-input.js';

const keys = ['title', 'text', 'date', 'id', 'which', 'calendar', 'account', 'new_title', 'start', 'end', 'duration', 'all_day', 'location', 'description', 'guests'];

/** Whether the change is to a repeating event's one time or its series. */
const repeating = (found: FoundEvent) => (found.series ? 'series' : found.event.recurringEventId ? 'this' : undefined);

interface Change {
  found: FoundEvent;
  /** The event patched: the one found, or its series' own event. */
  before: CalendarEvent;
  plan: ChangePlan;
}

/** Changes one event (found by its words and day, or by id): its title, time, place, notes or guests; a repeating one says whether this time or the whole series. */
export default class UpdateEventTool extends GoogleTool {
  readonly name = 'update_event';
  override readonly source = 'Google: Calendar';
  readonly description =
    'Change a Google Calendar event (asks the person first). Find it by title (words of it) and date (the day it is on; default the next 30 days), or id. Then give only what changes: new_title, start (a new day and time, a time alone, or a day alone to keep the time; the length stays), end or duration, all_day, location, description, guests (e-mails to add). For a repeating event, which: "this" or "series"; ask the person which. Optional calendar (name), account.';
  readonly examples = [
    '[TOOL:update_event]title: Dentist\ndate: tuesday\nstart: wednesday 10:00[/TOOL]',
    '[TOOL:update_event]id: yoga_20261201\nwhich: series\nstart: 19:00\nlocation: Studio 2[/TOOL]',
  ];
  override readonly parameters: ToolParameters = {
    type: 'object',
    properties: {
      title: { type: 'string', description: 'Words of the event\'s title (or place or notes), to find it.' },
      date: { type: 'string', description: 'The day or days it is on now: "tuesday", "2026-12-01", "next week"; by default the next 30 days.' },
      id: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,1024}$', description: 'The event id (list_events shows it), instead of title and date.' },
      which: { type: 'string', enum: ['this', 'series'], description: 'For a repeating event: only this time, or the whole series.' },
      new_title: { type: 'string', description: 'Its new title.' },
      start: { type: 'string', description: 'When it starts now, in the calendar\'s own time zone: "2026-11-27 13:00", "friday 13:00", "15:00" (same day), or a day alone (same time); the length stays unless end or duration is given.' },
      end: { type: 'string', description: 'When it ends now: a time ("14:00") or a day and time; for an all-day event, its last day.' },
      duration: { type: 'string', description: 'How long, instead of end: "45", "1.5h", "2 days" (all day).' },
      all_day: { type: 'boolean', description: 'True to make it an all-day event, false to give it times.' },
      location: { type: 'string', description: 'Its new place.' },
      description: { type: 'string', description: 'Its new notes (they replace the old ones).' },
      guests: { type: 'string', description: 'E-mail addresses to add to its guests, comma-separated; Google e-mails every guest about the change.' },
      calendar: { type: 'string', description: 'The name of the calendar it is in; by default the main one. It stays there.' },
      account: { type: 'string', format: 'email', description: 'The account whose calendar it is in, when several are authorized.' },
    },
    anyOf: [{ required: ['title'] }, { required: ['id'] }],
    additionalProperties: false,
  };
  override readonly words: ToolWords = { doing: 'Changing an event in your calendar', done: 'Changed an event in your calendar', act: 'change an event in your calendar' };
  override readonly timeoutMs = 30_000;
  override readonly actsOnWorld = true;

  override summarize(result: string): string | undefined {
    return summarizeSavedEvent(result);
  }

  override async approvalFor(params: string, _situation: CallSituation, stop: AbortSignal): Promise<ApprovalNeed> {
    return this.askShowing(stop, async (signal) => {
      const change = await this.plan(params, signal);
      return describeChange(change.before, change.plan, change.found.calendar, repeating(change.found));
    });
  }

  async run(params: string, context: ToolRunContext): Promise<string> {
    const google = this.services.google;
    const { found, plan } = await this.plan(params, context.signal);
    const { account, id } = found.calendar;
    const api = await google.calendar(account);
    const saved = await google.call({ account, service: 'Google Calendar', needs: 'change calendar events', notFound: 'That event is gone; list the events again.' }, () =>
      api.events.patch(
        { calendarId: id, eventId: found.targetId, sendUpdates: plan.notified.length > 0 ? 'all' : 'none', requestBody: plan.patch },
        { signal: context.signal },
      ),
    );
    const every = { series: ', every time it repeats', this: ', only this time', none: '' }[repeating(found) ?? 'none'];
    const told = plan.notified.length > 0 ? `Google e-mailed the change to ${plan.notified.join(', ')}.` : 'No one was e-mailed.';
    return `Event changed (id ${saved.data.id ?? found.targetId}${every}): ${describeChangedEvent(saved.data, found.calendar).join('\n')}\nChanged: ${plan.changed.join(', ')}. ${told}`;
  }

  private async plan(params: string, signal: AbortSignal): Promise<Change> {
    const google = this.services.google;
    const input = readToolInput(params, keys);
    const now = this.services.now();
    const found = await findEvent(google, input, now, signal, 'change');
    let before = found.event;
    if (found.series) {
      // The series' own event: its first time, its rule, what every time shares.
      const api = await google.calendar(found.calendar.account);
      before = (await google.call({ account: found.calendar.account, service: 'Google Calendar', notFound: 'The series of that event is gone.' }, () =>
        api.events.get({ calendarId: found.calendar.id, eventId: found.targetId }, { signal }),
      )).data;
    }
    const allDay = pick(input, 'all_day');
    const plan = planChange(
      before,
      {
        title: pick(input, 'new_title'),
        start: pick(input, 'start'),
        end: pick(input, 'end'),
        duration: pick(input, 'duration'),
        allDay: allDay === undefined ? undefined : /^(true|yes|1)$/i.test(allDay),
        location: pick(input, 'location'),
        description: pick(input, 'description'),
        guests: pick(input, 'guests'),
      },
      found.calendar,
      now,
      found.series ? found.event : undefined,
    );
    return { found, before, plan };
  }
}
