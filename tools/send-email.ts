import { MailSendingTool } from '../src/providers/google/google-tool.js';
import { type ApprovalNeed, type CallSituation, type ToolParameters, type ToolRunContext, type ToolWords } from '../src/engine/tools/tool.js';
import type { DraftContent } from '../src/providers/google/draft-message.js';
import { readMailInput } from '../src/providers/google/mail-input.js';
import { checkRecipients, messagePreview, sendMessage } from '../src/providers/google/mail-sending.js';
import { pick } from '../src/providers/google/tool-input.js';

const headerKeys = ['to', 'cc', 'subject', 'account'];
const example = 'to: anna@example.com\nsubject: Saturday\nbody: See you at 10!';

/** Sends a new e-mail. Always asks, showing the whole message; "Always allow" never skips it. */
export default class SendEmailTool extends MailSendingTool {
  readonly name = 'send_email';
  override readonly source = 'Google: Gmail';
  readonly description =
    'Send a new e-mail from Gmail (the person sees the whole message and says yes first). Fields: to, optional cc, subject, body (last), account. To answer a message use reply_email; to only prepare one, create_draft.';
  readonly examples = ['[TOOL:send_email]to: anna@example.com\nsubject: Saturday\nbody: Hi Anna,\nSee you at 10!\nSam[/TOOL]'];
  override readonly parameters: ToolParameters = {
    type: 'object',
    properties: {
      to: { type: 'string', description: 'Recipients, comma-separated ("Anna <anna@example.com>, bo@example.com").' },
      cc: { type: 'string', description: 'Copy recipients, comma-separated.' },
      subject: { type: 'string', description: 'The subject.' },
      body: { type: 'string', description: 'The text of the email.' },
      account: { type: 'string', format: 'email', description: 'The account to send from, when several are authorized.' },
    },
    required: ['to', 'body'],
    additionalProperties: false,
  };
  override readonly words: ToolWords = { doing: 'Sending an email', done: 'Sent an email', act: 'send an email', asks: 'Once sent, it cannot be called back.' };
  override async approvalFor(params: string, _situation: CallSituation, stop: AbortSignal): Promise<ApprovalNeed> {
    return this.askShowing(stop, async () => {
      const { account, draft } = this.compose(params);
      return messagePreview(account, draft);
    });
  }

  async run(params: string, context: ToolRunContext): Promise<string> {
    const { account, draft } = this.compose(params);
    const sent = await sendMessage(this.services.google, account, draft, undefined, this.services.now(), context.signal);
    return `Sent from ${account} (message id ${sent.id}). To: ${draft.to} | Subject: ${draft.subject || '(no subject)'}`;
  }

  private compose(params: string): { account: string; draft: DraftContent } {
    const { input, body } = readMailInput(params, headerKeys, example);
    const account = this.services.google.chooseAccount(pick(input, 'account'));
    const draft = { to: pick(input, 'to') ?? '', cc: pick(input, 'cc'), subject: pick(input, 'subject') ?? '', body };
    checkRecipients(draft);
    return { account, draft };
  }
}
