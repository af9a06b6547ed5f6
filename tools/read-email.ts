import { GoogleTool } from '../src/providers/google/google-tool.js';
import { ToolError, type ServicesFor, type ToolParameters, type ToolRunContext, type ToolWords } from '../src/engine/tools/tool.js';
import { formatDateTime } from '../src/providers/google/calendar-days.js';
import { attachmentNames, headerValue, messageBodyText } from '../src/providers/google/gmail-message.js';
import { findMessage, messageIdPattern } from '../src/providers/google/gmail-lookup.js';
import { accountAndValue, readToolInput } from '../src/providers/google/tool-input.js';

/** One email: its headers and its text, HTML turned into text, cut to EMAIL_BODY_MAX_CHARS. */
export default class ReadEmailTool extends GoogleTool {
  readonly name = 'read_email';
  override readonly source = 'Google: Gmail';
  readonly description = 'Read one email by the id search_emails gave: headers and plain-text body. Optional account first when several are authorized.';
  readonly examples = ['[TOOL:read_email]18c2f0a1b2c3d4e5[/TOOL]', '[TOOL:read_email]me@example.com 18c2f0a1b2c3d4e5[/TOOL]'];
  override readonly parameters: ToolParameters = {
    type: 'object',
    properties: {
      id: { type: 'string', pattern: messageIdPattern.source, description: 'The message id, as search_emails gave it.' },
      account: { type: 'string', format: 'email', description: 'The account the message is in; by default each authorized account is tried.' },
    },
    required: ['id'],
    additionalProperties: false,
  };
  override readonly words: ToolWords = { doing: 'Reading an email', done: 'Read an email', act: 'read an email' };
  override readonly timeoutMs = 30_000;
  override readonly maxResultCharacters: number;
  readonly #bodyMaxCharacters: number;

  constructor(services: ServicesFor<'google'>) {
    super(services);
    this.#bodyMaxCharacters = services.config.emailBodyMaxCharacters;
    // Room for the headers on top of the body, whose own cut says how much was left out.
    this.maxResultCharacters = this.#bodyMaxCharacters + 2000;
  }

  /** Its subject, in quotes (the sender's words: the card escapes them). */
  override summarize(result: string): string | undefined {
    const subject = /^Subject: (.+)$/m.exec(result)?.[1];
    return subject === undefined ? undefined : `“${subject}”`;
  }

  async run(raw: string, context: ToolRunContext): Promise<string> {
    const google = this.services.google;
    const input = readToolInput(raw, ['id', 'message_id', 'message', 'account']);
    const { account, value } = accountAndValue(input, google.listAccounts(), 'id', 'message_id', 'message');
    const id = value.trim().replace(/^id\s*[:=]?\s*/i, '');
    if (!messageIdPattern.test(id)) throw new ToolError(`"${id}" is not a message id. Use an id from search_emails, such as 18c2f0a1b2c3d4e5.`);

    const { account: found, message } = await findMessage(google, id, account, context.signal);
    const payload = message.payload;
    const header = (name: string) => headerValue(payload, name);
    const lines = [
      `Account: ${found}`,
      `Id: ${message.id}`,
      `Date: ${message.internalDate ? formatDateTime(new Date(Number(message.internalDate)), google.timeZone) : (header('Date') ?? '?')}`,
      `From: ${header('From') ?? '(unknown)'}`,
      ...(header('Reply-To') ? [`Reply-To: ${header('Reply-To')}`] : []),
      `To: ${header('To') ?? '(none)'}`,
      ...(header('Cc') ? [`Cc: ${header('Cc')}`] : []),
      `Subject: ${header('Subject') || '(no subject)'}`,
    ];
    const attachments = attachmentNames(payload);
    if (attachments.length > 0) lines.push(`Attachments (not shown): ${attachments.join(', ')}`);

    let body = messageBodyText(payload) || '(no text in this email)';
    if (body.length > this.#bodyMaxCharacters) {
      // Cut at a word boundary when one is near, so no half word reads as a different one.
      const slice = body.slice(0, this.#bodyMaxCharacters);
      const boundary = slice.search(/\s\S*$/);
      const kept = (boundary > this.#bodyMaxCharacters * 0.8 ? slice.slice(0, boundary) : slice).trimEnd();
      body = `${kept}\n[Body cut here: ${(body.length - kept.length).toLocaleString('en')} more characters not shown.]`;
    }
    return `${lines.join('\n')}\n\n${body}`;
  }
}
