import { Tool, ToolError, type ToolParameters, type ToolWords } from '../src/engine/tools/tool.js';
import { parseToolParams, field } from '../src/engine/tools/tool-params.js';

/** Today's date and the time now, in the server's time zone or one the model names. */
export default class CurrentTimeTool extends Tool {
  readonly name = 'current_time';
  readonly description = 'The current date, time and weekday. Optional: an IANA time zone such as Europe/Paris.';
  readonly examples = ['[TOOL:current_time][/TOOL]', '[TOOL:current_time]America/New_York[/TOOL]'];
  override readonly parameters: ToolParameters = {
    type: 'object',
    properties: { timezone: { type: 'string', description: "An IANA time zone such as Europe/Paris; by default the server's." } },
    additionalProperties: false,
  };
  override readonly words: ToolWords = { doing: 'Checking the time', done: 'Checked the current time', act: 'check the time' };
  override readonly readsOutsideText = false;
  override readonly timeoutMs = 1000;

  /** "Sunday 22 November 2026 at 10:00:00 GMT (time zone Europe/London)" → the date and time. */
  override summarize(result: string): string | undefined {
    return /^(.+) \(time zone [^)]+\)$/.exec(result)?.[1];
  }

  async run(raw: string): Promise<string> {
    const params = parseToolParams(raw);
    const zone = field(params, 'timezone', 'time_zone', 'zone', 'tz') ?? (params.text || Intl.DateTimeFormat().resolvedOptions().timeZone);
    let formatted: string;
    try {
      formatted = new Intl.DateTimeFormat('en-GB', {
        timeZone: zone,
        dateStyle: 'full',
        timeStyle: 'long',
      }).format(this.services.now());
    } catch {
      throw new ToolError(`Unknown time zone "${zone}". Use an IANA name such as Europe/London or America/Chicago.`);
    }
    return `${formatted} (time zone ${zone})`;
  }
}
