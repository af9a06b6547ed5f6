import { GoogleTool } from '../src/providers/google/google-tool.js';
import { ToolError, type ApprovalNeed, type CallSituation, type ToolParameters, type ToolRunContext, type ToolWords } from '../src/engine/tools/tool.js';
import { chooseCalendar } from '../src/providers/google/calendar-choice.js';
import { describeEvent, summarizeSavedEvent, planEvent, type EventPlan } from '../src/providers/google/calendar-event.js';
import { pick, readToolInput } from '../src/providers/google/tool-input.js';

const keys = ['title', 'summary', 'name', 'start', 'when', 'date', 'end', 'duration', 'all_day', 'location', 'where', 'description', 'notes', 'guests', 'attendees', 'reminders', 'calendar', 'account'];

/** Adds an event to a Google Calendar, after the person has seen it exactly as it will be saved. */
export default class CreateEventTool extends GoogleTool {
  readonly name = 'create_event';
  override readonly source = 'Google: Calendar';
  readonly description =
    'Add an event to Google Calendar (asks the person first). Fields: title, start ("2026-11-27 13:00", "friday 13:00", or a day alone for all day), end or duration (default 1 hour), optional location, description, guests (e-mails, who get an invitation), reminders ("10 min, 1 day"), calendar (its name; default the main one), account.';
  readonly examples = [
    '[TOOL:create_event]title: Lunch with Sam\nstart: friday 13:00\nduration: 1h\nlocation: Café Blanc[/TOOL]',
    '[TOOL:create_event]title: Grandma visits\nstart: 2026-12-24\nend: 2026-12-26\ncalendar: Family[/TOOL]',
  ];
  override readonly parameters: ToolParameters = {
    type: 'object',
    properties: {
      title: { type: 'string', description: 'What the event is called.' },
      start: { type: 'string', description: 'When it starts, in the calendar\'s own time zone: "2026-11-27 13:00", "friday 13:00", "tomorrow 9am"; a day alone makes an all-day event.' },
      end: { type: 'string', description: 'When it ends: a time ("14:00") or a day and time; for an all-day event, its last day.' },
      duration: { type: 'string', description: 'How long, instead of end: "45", "1.5h", "2 days" (all day); by default 1 hour.' },
      all_day: { type: 'boolean', description: 'True for an all-day event even when start has a time.' },
      location: { type: 'string', description: 'Where it happens.' },
      description: { type: 'string', description: 'Notes saved with the event.' },
      guests: { type: 'string', description: 'E-mail addresses to invite, comma-separated; Google e-mails each an invitation.' },
      reminders: { type: 'string', description: 'Pop-up reminders before the start, such as "10 min, 1 day", or "none"; by default the calendar\'s own.' },
      calendar: { type: 'string', description: 'The name of the calendar to add it to (list_calendars names them); by default the main one.' },
      account: { type: 'string', format: 'email', description: 'The account whose calendar it goes in, when several are authorized.' },
    },
    required: ['title', 'start'],
    additionalProperties: false,
  };
  override readonly words: ToolWords = { doing: 'Adding an event to your calendar', done: 'Added an event to your calendar', act: 'add an event to your calendar' };
  override readonly timeoutMs = 30_000;
  override readonly actsOnWorld = true;

  override summarize(result: string): string | undefined {
    return summarizeSavedEvent(result);
  }

  override async approvalFor(params: string, _situation: CallSituation, stop: AbortSignal): Promise<ApprovalNeed> {
    return this.askShowing(stop, async (signal) => {
      const plan = await this.plan(params, signal);
      return describeEvent(plan.body, plan.calendar).map((line) => `+ ${line}`);
    });
  }

  async run(params: string, context: ToolRunContext): Promise<string> {
    const google = this.services.google;
    const plan = await this.plan(params, context.signal);
    const { account, id } = plan.calendar;
    const api = await google.calendar(account);
    const saved = await google.call({ account, service: 'Google Calendar', needs: 'add events to the calendar' }, () =>
      api.events.insert({ calendarId: id, sendUpdates: plan.sendUpdates, requestBody: plan.body }, { signal: context.signal }),
    );
    return `Event saved (id ${saved.data.id}): ${describeEvent(saved.data, plan.calendar).join('\n')}`;
  }

  private async plan(params: string, signal: AbortSignal): Promise<EventPlan> {
    const google = this.services.google;
    const input = readToolInput(params, keys);
    const title = pick(input, 'title', 'summary', 'name');
    const start = pick(input, 'start', 'when', 'date');
    if (!title || !start) throw new ToolError('Give the event a title and a start, for example:\ntitle: Lunch with Sam\nstart: friday 13:00');
    const account = google.chooseAccount(pick(input, 'account'));
    const calendar = await chooseCalendar(google, account, pick(input, 'calendar'), signal);
    const allDay = pick(input, 'all_day');
    return planEvent(
      {
        title,
        start,
        end: pick(input, 'end'),
        duration: pick(input, 'duration'),
        allDay: allDay === undefined ? undefined : /^(true|yes|1)$/i.test(allDay),
        location: pick(input, 'location', 'where'),
        description: pick(input, 'description', 'notes'),
        guests: pick(input, 'guests', 'attendees'),
        reminders: pick(input, 'reminders'),
      },
      calendar,
      this.services.now(),
    );
  }
}
