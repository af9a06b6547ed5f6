import { GoogleTool } from '../src/providers/google/google-tool.js';
import { type ToolParameters, type ToolRunContext, type ToolWords } from '../src/engine/tools/tool.js';
import { listCalendars } from '../src/providers/google/calendar-choice.js';
import { accountAndValue, readToolInput } from '../src/providers/google/tool-input.js';

/** Read-only: every calendar of each account, with its time zone and whether events can be added. */
export default class ListCalendarsTool extends GoogleTool {
  readonly name = 'list_calendars';
  override readonly source = 'Google: Calendar';
  readonly description = 'List every Google calendar of each authorized account (read-only): its name, time zone, and whether events can be added to it. Optional account.';
  readonly examples = ['[TOOL:list_calendars][/TOOL]'];
  override readonly parameters: ToolParameters = {
    type: 'object',
    properties: { account: { type: 'string', format: 'email', description: 'Only this authorized account; by default all of them.' } },
    additionalProperties: false,
  };
  override readonly words: ToolWords = { doing: 'Listing your calendars', done: 'Listed your calendars', act: 'list your calendars' };

  override summarize(result: string): string | undefined {
    const count = result.split('\n').filter((line) => line.startsWith('- ')).length;
    return `${count} calendar${count === 1 ? '' : 's'}`;
  }

  async run(params: string, context: ToolRunContext): Promise<string> {
    const google = this.services.google;
    const { account } = accountAndValue(readToolInput(params, ['account']), google.listAccounts(), 'account');
    const lines: string[] = [];
    for (const candidate of google.resolveAccounts(account)) {
      lines.push(`Calendars of ${candidate}:`);
      for (const calendar of await listCalendars(google, candidate, context.signal)) {
        lines.push(`- ${calendar.name}${calendar.primary ? ' (main)' : ''}, ${calendar.timeZone}${calendar.writable ? '' : ', read-only'}`);
      }
    }
    return lines.join('\n');
  }
}
