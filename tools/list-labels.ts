import { GoogleTool } from '../src/providers/google/google-tool.js';
import { type ToolParameters, type ToolRunContext, type ToolWords } from '../src/engine/tools/tool.js';
import { listLabels } from '../src/providers/google/gmail-labels.js';
import { accountAndValue, readToolInput } from '../src/providers/google/tool-input.js';

/** Read-only: the person's own Gmail labels, per account. */
export default class ListLabelsTool extends GoogleTool {
  readonly name = 'list_labels';
  override readonly source = 'Google: Gmail';
  readonly description = 'List the Gmail labels of each authorized account (read-only), to use with sort_email or search_emails (label:name). Optional account.';
  readonly examples = ['[TOOL:list_labels][/TOOL]'];
  override readonly parameters: ToolParameters = {
    type: 'object',
    properties: { account: { type: 'string', format: 'email', description: 'Only this authorized account; by default all of them.' } },
    additionalProperties: false,
  };
  override readonly words: ToolWords = { doing: 'Listing your email labels', done: 'Listed your email labels', act: 'list your email labels' };

  override summarize(result: string): string | undefined {
    const count = result.split('\n').filter((line) => line.startsWith('- ')).length;
    return `${count} label${count === 1 ? '' : 's'}`;
  }

  async run(params: string, context: ToolRunContext): Promise<string> {
    const google = this.services.google;
    const { account } = accountAndValue(readToolInput(params, ['account']), google.listAccounts(), 'account');
    const lines: string[] = [];
    for (const candidate of google.resolveAccounts(account)) {
      const own = (await listLabels(google, candidate, context.signal)).filter((label) => !label.system);
      lines.push(`Labels of ${candidate}:`, ...(own.length ? own.map((label) => `- ${label.name}`) : ['(none of its own; INBOX, UNREAD, STARRED and IMPORTANT always exist)']));
    }
    return lines.join('\n');
  }
}
