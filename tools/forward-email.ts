import { MailSendingTool } from '../src/providers/google/google-tool.js';
import { ToolError, type ApprovalNeed, type CallSituation, type ToolParameters, type ToolRunContext, type ToolWords } from '../src/engine/tools/tool.js';
import type { DraftContent } from '../src/providers/google/draft-message.js';
import { findMessage, messageIdPattern } from '../src/providers/google/gmail-lookup.js';
import { attachmentNames, headerValue, messageBodyText } from '../src/providers/google/gmail-message.js';
import { readMailInput } from '../src/providers/google/mail-input.js';
import { checkRecipients, messagePreview, sendMessage } from '../src/providers/google/mail-sending.js';
import { pick } from '../src/providers/google/tool-input.js';

const headerKeys = ['forward', 'id', 'message_id', 'to', 'cc', 'account'];

/** Forwards a message's text (not its attachments), with a note. Always asks, showing the whole message. */
export default class ForwardEmailTool extends MailSendingTool {
  readonly name = 'forward_email';
  override readonly source = 'Google: Gmail';
  readonly description =
    'Forward an e-mail\'s text (attachments are not carried) to someone, with a note (the person sees the whole message and says yes first). Fields: forward (a message id from search_emails), to, optional cc, body (the note, last).';
  readonly examples = ['[TOOL:forward_email]forward: 18c2f0a1b2c3d4e5\nto: anna@example.com\nbody: FYI, the trip is on Friday.[/TOOL]'];
  override readonly parameters: ToolParameters = {
    type: 'object',
    properties: {
      forward: { type: 'string', pattern: messageIdPattern.source, description: 'The id of the message to forward (from search_emails).' },
      to: { type: 'string', description: 'Recipients, comma-separated.' },
      cc: { type: 'string', description: 'Copy recipients, comma-separated.' },
      body: { type: 'string', description: 'A note above the forwarded message.' },
      account: { type: 'string', format: 'email', description: 'The account the message is in, when several are authorized.' },
    },
    required: ['forward', 'to', 'body'],
    additionalProperties: false,
  };
  override readonly words: ToolWords = { doing: 'Forwarding an email', done: 'Forwarded an email', act: 'forward an email', asks: 'Once sent, it cannot be called back.' };
  override async approvalFor(params: string, _situation: CallSituation, stop: AbortSignal): Promise<ApprovalNeed> {
    return this.askShowing(stop, async (signal) => {
      const { account, draft } = await this.compose(params, signal);
      return messagePreview(account, draft);
    });
  }

  async run(params: string, context: ToolRunContext): Promise<string> {
    const { account, draft } = await this.compose(params, context.signal);
    const sent = await sendMessage(this.services.google, account, draft, undefined, this.services.now(), context.signal);
    return `Forwarded from ${account} (message id ${sent.id}). To: ${draft.to} | Subject: ${draft.subject}`;
  }

  private async compose(params: string, signal: AbortSignal): Promise<{ account: string; draft: DraftContent }> {
    const { input, body } = readMailInput(params, headerKeys, 'forward: 18c2f0a1b2c3d4e5\nto: anna@example.com\nbody: FYI');
    const id = pick(input, 'forward', 'id', 'message_id');
    if (!id || !messageIdPattern.test(id)) throw new ToolError('Say which message to forward: forward: <id from search_emails>.');
    const original = await findMessage(this.services.google, id, pick(input, 'account'), signal);
    const payload = original.message.payload;
    const header = (name: string) => (headerValue(payload, name) ?? '').replace(/\s+/g, ' ').trim();
    const subject = header('Subject');
    const left = attachmentNames(payload);
    const quoted = [
      '---------- Forwarded message ---------',
      `From: ${header('From')}`,
      `Date: ${header('Date')}`,
      `Subject: ${subject}`,
      `To: ${header('To')}`,
      '',
      messageBodyText(payload).trim(),
      ...(left.length ? ['', `(Attachments not forwarded: ${left.join(', ')})`] : []),
    ];
    const draft = { to: pick(input, 'to') ?? '', cc: pick(input, 'cc'), subject: /^fwd?\s*:/i.test(subject) ? subject : `Fwd: ${subject}`, body: `${body}\n\n${quoted.join('\n')}` };
    checkRecipients(draft);
    return { account: original.account, draft };
  }
}
