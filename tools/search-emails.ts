import { GoogleTool } from '../src/providers/google/google-tool.js';
import { ToolError, type ToolParameters, type ToolRunContext, type ToolWords } from '../src/engine/tools/tool.js';
import { formatDateTime } from '../src/providers/google/calendar-days.js';
import { headerValue } from '../src/providers/google/gmail-message.js';
import { accountAndValue, pick, readToolInput } from '../src/providers/google/tool-input.js';

const cut = (text: string, length: number) => (text.length > length ? `${text.slice(0, length - 1)}…` : text);

/** Gmail search: one short line per message, so the model can pick one to read. */
export default class SearchEmailsTool extends GoogleTool {
  readonly name = 'search_emails';
  override readonly source = 'Google: Gmail';
  readonly description =
    'Search Gmail with Gmail query syntax (from:, to:, subject:, newer_than:7d, is:unread, has:attachment...). Returns one line per message: id | date | from | subject. With several accounts, put one first ("me@x.com: query") or all are searched. Optional max (default 10, up to 25) as separate lines: query: ... / max: 20.';
  readonly examples = ['[TOOL:search_emails]from:school newer_than:7d[/TOOL]', '[TOOL:search_emails]me@example.com: subject:invoice is:unread[/TOOL]'];
  override readonly parameters: ToolParameters = {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'Gmail query syntax (from:, to:, subject:, newer_than:7d, is:unread, has:attachment...); by default in:inbox.' },
      account: { type: 'string', format: 'email', description: 'Search only this authorized account; by default all of them.' },
      max: { type: 'integer', minimum: 1, maximum: 25, default: 10, description: 'Most messages listed per account.' },
    },
    additionalProperties: false,
  };
  override readonly words: ToolWords = { doing: 'Searching your email', done: 'Searched your email', act: 'search your email' };
  override readonly timeoutMs = 30_000;
  // Up to 25 lines for each of several accounts: more room than the default, so no account is cut off.
  override readonly maxResultCharacters = 10_000;

  /** Each account's part starts "3 messages for …" or "No messages match …": "3 results", "no results". */
  override summarize(result: string): string | undefined {
    const counts = [...result.matchAll(/^(\d+) messages? for /gm)].map((match) => Number(match[1]));
    if (counts.length === 0) return /^No messages match/m.test(result) ? 'no results' : undefined;
    const total = counts.reduce((sum, count) => sum + count, 0);
    return `${total} result${total === 1 ? '' : 's'}`;
  }

  async run(raw: string, context: ToolRunContext): Promise<string> {
    const google = this.services.google;
    const input = readToolInput(raw, ['query', 'q', 'search', 'account', 'max', 'max_results', 'limit']);
    const { account, value: query } = accountAndValue(input, google.listAccounts(), 'query', 'q', 'search');
    const maxText = pick(input, 'max', 'max_results', 'limit');
    const max = maxText === undefined ? 10 : Number(maxText);
    if (!Number.isInteger(max) || max < 1) throw new ToolError(`max must be a whole number from 1 to 25, not "${maxText}".`);
    const effectiveQuery = query.trim() || 'in:inbox';

    const accounts = google.resolveAccounts(account);
    const sections: string[] = [];
    for (const name of accounts) {
      sections.push(await this.searchOne(name, effectiveQuery, Math.min(max, 25), context.signal, accounts.length > 1));
    }
    return sections.join('\n\n');
  }

  private async searchOne(account: string, query: string, max: number, signal: AbortSignal, labelled: boolean): Promise<string> {
    const google = this.services.google;
    const gmail = await google.gmail(account);
    const explain = { account, service: 'Gmail' };
    const listed = await google.call(explain, () => gmail.users.messages.list({ userId: 'me', q: query, maxResults: max }, { signal }));
    const ids = (listed.data.messages ?? []).map((message) => message.id).filter((id): id is string => Boolean(id));
    const where = labelled || google.listAccounts().length > 1 ? ` in ${account}` : '';
    if (ids.length === 0) return `No messages match "${query}"${where}.`;

    const messages = await Promise.all(
      ids.map((id) =>
        google.call({ ...explain, notFound: `Message ${id} disappeared while searching.` }, () =>
          gmail.users.messages.get({ userId: 'me', id, format: 'metadata', metadataHeaders: ['From', 'Subject', 'Date'] }, { signal }),
        ),
      ),
    );
    const lines = messages.map(({ data }) => {
      const date = data.internalDate ? formatDateTime(new Date(Number(data.internalDate)), google.timeZone) : (headerValue(data.payload, 'Date') ?? '?');
      const from = cut(headerValue(data.payload, 'From') ?? '(unknown sender)', 60);
      const subject = cut(headerValue(data.payload, 'Subject') || '(no subject)', 100);
      const unread = data.labelIds?.includes('UNREAD') ? ' (unread)' : '';
      return `${data.id} | ${date} | ${from} | ${subject}${unread}`;
    });
    const more = listed.data.nextPageToken ? ' More match: narrow the query to see others.' : '';
    return [`${ids.length} message${ids.length === 1 ? '' : 's'} for "${query}"${where}, newest first:${more}`, ...lines].join('\n');
  }
}
