import { Tool, ToolError } from '../src/engine/tools/tool.js';
import { parseToolParams, field } from '../src/engine/tools/tool-params.js';

/** Today's date and the time now, in the server's time zone or one the model names. */
export default class CurrentTimeTool extends Tool {
  readonly name = 'current_time';
  readonly description = 'The current date, time and weekday. Optional: an IANA time zone such as Europe/Paris.';
  readonly examples = ['[TOOL:current_time][/TOOL]', '[TOOL:current_time]America/New_York[/TOOL]'];
  override readonly readsOutsideText = false;
  override readonly timeoutMs = 1000;

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
