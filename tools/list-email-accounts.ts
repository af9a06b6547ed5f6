import { GoogleTool } from '../src/providers/google/google-tool.js';
import { type ToolParameters, type ToolWords } from '../src/engine/tools/tool.js';
import { reauthorizeCommand } from '../src/providers/google/google-errors.js';

/** The Google accounts the other Gmail and Calendar tools can use. */
export default class ListEmailAccountsTool extends GoogleTool {
  readonly name = 'list_email_accounts';
  override readonly source = 'Google: Gmail';
  readonly description = 'List the Google accounts (Gmail and Calendar) Hearth is authorized to use.';
  readonly examples = ['[TOOL:list_email_accounts][/TOOL]'];
  override readonly parameters: ToolParameters = { type: 'object', properties: {}, additionalProperties: false };
  override readonly words: ToolWords = { doing: 'Listing your email accounts', done: 'Listed your email accounts', act: 'list your email accounts' };
  override readonly timeoutMs = 2000;

  override summarize(result: string): string | undefined {
    if (result.startsWith('No Google account')) return 'none authorized yet';
    const count = result.split('\n').filter((line) => line.startsWith('- ')).length;
    return `${count} account${count === 1 ? '' : 's'}`;
  }

  async run(): Promise<string> {
    const accounts = this.services.google.listAccounts();
    if (accounts.length === 0) {
      return `No Google account is authorized yet. The person can add one by running \`${reauthorizeCommand()}\` on the Hearth computer.`;
    }
    const several = accounts.length > 1 ? '\nName one (account: ...) to use only that account; otherwise searches cover all of them.' : '';
    return `Authorized Google accounts:\n${accounts.map((account) => `- ${account}`).join('\n')}${several}`;
  }
}
