import { GoogleTool } from '../src/providers/google/google-tool.js';
import { ToolError, type ApprovalNeed, type CallSituation, type ToolParameters, type ToolRunContext, type ToolWords } from '../src/engine/tools/tool.js';
import { calendarLabel, chooseCalendar, type ChosenCalendar } from '../src/providers/google/calendar-choice.js';
import { describeEvent, summarizeSavedEvent } from '../src/providers/google/calendar-event.js';
import { pick, readToolInput } from '../src/providers/google/tool-input.js';

/**
 * One line ("dentist Tuesday 4pm") made into an event by Google Calendar's own quick add. Google
 * reads the line only when it saves it, so the card shows the line and the calendar, and the
 * result shows the event it became.
 */
export default class QuickAddEventTool extends GoogleTool {
  readonly name = 'quick_add_event';
  override readonly source = 'Google: Calendar';
  readonly description =
    'Add an event from one line in plain English, as Google Calendar\'s quick add reads it ("Dentist Tuesday 4pm", "Call Mum tomorrow 18:00"); asks the person first, then says the event it became. Prefer create_event when you know the exact times. Optional calendar (name), account.';
  readonly examples = ['[TOOL:quick_add_event]Dentist Tuesday 4pm[/TOOL]', '[TOOL:quick_add_event]text: Football practice saturday 10am\ncalendar: Family[/TOOL]'];
  override readonly parameters: ToolParameters = {
    type: 'object',
    properties: {
      text: { type: 'string', description: 'The event in one line: what, when, and where if known ("Dentist Tuesday 4pm at Smile Clinic").' },
      calendar: { type: 'string', description: 'The name of the calendar to add it to; by default the main one.' },
      account: { type: 'string', format: 'email', description: 'The account whose calendar it goes in, when several are authorized.' },
    },
    required: ['text'],
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
      const { text, calendar } = await this.read(params, signal);
      return [`+ "${text}"`, `+ Calendar: ${calendarLabel(calendar)}`, 'Google Calendar reads the line when it saves it; the event it became is shown after.'];
    });
  }

  async run(params: string, context: ToolRunContext): Promise<string> {
    const google = this.services.google;
    const { text, calendar } = await this.read(params, context.signal);
    const api = await google.calendar(calendar.account);
    const saved = await google.call({ account: calendar.account, service: 'Google Calendar', needs: 'add events to the calendar' }, () =>
      api.events.quickAdd({ calendarId: calendar.id, text, sendUpdates: 'none' }, { signal: context.signal }),
    );
    return `Event saved (id ${saved.data.id}): ${describeEvent(saved.data, calendar).join('\n')}\nGoogle read this from "${text}"; if it is not what the person meant, it can be changed or deleted.`;
  }

  private async read(params: string, signal: AbortSignal): Promise<{ text: string; calendar: ChosenCalendar }> {
    const google = this.services.google;
    const input = readToolInput(params, ['text', 'calendar', 'account']);
    const text = (input.text || pick(input, 'text') || '').replace(/\s+/g, ' ').trim();
    if (!text) throw new ToolError('Write the event in one line, such as "Dentist Tuesday 4pm".');
    if (text.length > 500) throw new ToolError('Keep the line under 500 characters; use create_event for details.');
    const account = google.chooseAccount(pick(input, 'account'));
    return { text, calendar: await chooseCalendar(google, account, pick(input, 'calendar'), signal) };
  }
}
