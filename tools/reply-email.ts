import { MailSendingTool } from '../src/providers/google/google-tool.js';
import { ToolError, type ApprovalNeed, type CallSituation, type ToolParameters, type ToolRunContext, type ToolWords } from '../src/engine/tools/tool.js';
import { messageIdPattern } from '../src/providers/google/gmail-lookup.js';
import { readMailInput } from '../src/providers/google/mail-input.js';
import { checkRecipients, messagePreview, sendMessage } from '../src/providers/google/mail-sending.js';
import { prepareReply, type PreparedReply } from '../src/providers/google/reply-message.js';
import { pick } from '../src/providers/google/tool-input.js';

const headerKeys = ['reply_to', 'id', 'message_id', 'reply_all', 'to', 'cc', 'account'];
const example = "reply_to: 18c2f0a1b2c3d4e5\nbody: Thank you, we'll be there.";

/** Sends a reply in the message's thread (to the sender, or to everyone). Always asks, showing the whole reply. */
export default class ReplyEmailTool extends MailSendingTool {
  readonly name = 'reply_email';
  override readonly source = 'Google: Gmail';
  readonly description =
    'Send a reply to an e-mail, in its thread (the person sees the whole reply and says yes first). Fields: reply_to (a message id from search_emails), reply_all (true to answer everyone on it), body (last); optional to and cc replace the usual recipients.';
  readonly examples = ["[TOOL:reply_email]reply_to: 18c2f0a1b2c3d4e5\nbody: Thank you, we'll be there.\nSam[/TOOL]"];
  override readonly parameters: ToolParameters = {
    type: 'object',
    properties: {
      reply_to: { type: 'string', pattern: messageIdPattern.source, description: 'The id of the message to answer (from search_emails or read_email).' },
      reply_all: { type: 'boolean', description: 'True to answer everyone on the message, not only its sender.' },
      body: { type: 'string', description: 'The text of the reply.' },
      to: { type: 'string', description: 'Recipients instead of the usual ones, comma-separated.' },
      cc: { type: 'string', description: 'Copy recipients instead of the usual ones, comma-separated.' },
      account: { type: 'string', format: 'email', description: 'The account the message is in, when several are authorized.' },
    },
    required: ['reply_to', 'body'],
    additionalProperties: false,
  };
  override readonly words: ToolWords = { doing: 'Sending a reply', done: 'Sent a reply', act: 'send a reply', asks: 'Once sent, it cannot be called back.' };
  override async approvalFor(params: string, _situation: CallSituation, stop: AbortSignal): Promise<ApprovalNeed> {
    return this.askShowing(stop, async (signal) => {
      const reply = await this.compose(params, signal);
      return messagePreview(reply.account, reply.draft, `"${reply.original.subject}" from ${reply.original.from}`);
    });
  }

  async run(params: string, context: ToolRunContext): Promise<string> {
    const reply = await this.compose(params, context.signal);
    const sent = await sendMessage(this.services.google, reply.account, reply.draft, reply.threadId, this.services.now(), context.signal);
    const { draft } = reply;
    return `Reply sent from ${reply.account} in the thread of the message (message id ${sent.id}). To: ${draft.to}${draft.cc ? ` | Cc: ${draft.cc}` : ''} | Subject: ${draft.subject}`;
  }

  private async compose(params: string, signal: AbortSignal): Promise<PreparedReply> {
    const { input, body } = readMailInput(params, headerKeys, example);
    const messageId = pick(input, 'reply_to', 'id', 'message_id');
    if (!messageId || !messageIdPattern.test(messageId)) throw new ToolError(`${messageId ? `"${messageId}" is not a message id` : 'Say which message to answer'}: give reply_to: <id from search_emails>.`);
    const replyAll = /^(true|yes|1|all)$/i.test(pick(input, 'reply_all') ?? '');
    const reply = await prepareReply(this.services.google, { messageId, body, replyAll, to: pick(input, 'to'), cc: pick(input, 'cc'), account: pick(input, 'account') }, signal);
    checkRecipients(reply.draft);
    return reply;
  }
}
