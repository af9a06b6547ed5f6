import { GoogleTool } from '../src/providers/google/google-tool.js';
import { ToolError, type ToolParameters, type ToolRunContext, type ToolWords } from '../src/engine/tools/tool.js';
import { addressesIn, buildRawDraft, type DraftContent } from '../src/providers/google/draft-message.js';
import { messageIdPattern } from '../src/providers/google/gmail-lookup.js';
import { prepareReply } from '../src/providers/google/reply-message.js';
import { bodyKeys, splitBody } from '../src/providers/google/mail-input.js';
import { pick, readToolInput } from '../src/providers/google/tool-input.js';

const headerKeys = ['to', 'cc', 'subject', 'reply_to', 'in_reply_to', 'reply_to_id', 'message_id', 'id', 'account'];

/** Saves a Gmail draft (new, or a reply kept in its thread). Never sends: the person sends it from Gmail. */
export default class CreateDraftTool extends GoogleTool {
  readonly name = 'create_draft';
  override readonly source = 'Google: Gmail';
  readonly description =
    'Save an email as a Gmail draft; it is NOT sent (the person reviews and sends it in Gmail). Fields: to, subject, body (last); or reply_to: <message id> and body to reply in that thread. Optional cc, account.';
  readonly examples = [
    '[TOOL:create_draft]to: anna@example.com\nsubject: Saturday\nbody: Hi Anna,\nSee you at 10!\nSam[/TOOL]',
    "[TOOL:create_draft]reply_to: 18c2f0a1b2c3d4e5\nbody: Thank you, we'll come.[/TOOL]",
  ];
  override readonly parameters: ToolParameters = {
    type: 'object',
    properties: {
      to: { type: 'string', description: 'Recipients, comma-separated ("Anna <anna@example.com>, bo@example.com"); for a reply, by default the sender.' },
      cc: { type: 'string', description: 'Copy recipients, comma-separated.' },
      subject: { type: 'string', description: 'The subject; a reply keeps the original one, with "Re:".' },
      body: { type: 'string', description: 'The text of the email.' },
      reply_to: { type: 'string', pattern: messageIdPattern.source, description: 'The id of a message (from search_emails) to reply to, in its thread.' },
      account: { type: 'string', format: 'email', description: 'The account to save the draft in, when several are authorized.' },
    },
    required: ['body'],
    anyOf: [{ required: ['to'] }, { required: ['reply_to'] }],
    additionalProperties: false,
  };
  override readonly words: ToolWords = { doing: 'Creating a draft', done: 'Created a draft', act: 'create a draft' };
  override readonly timeoutMs = 30_000;
  override readonly actsOnWorld = true;

  /** "… To: anna@example.com | Subject: …": who it is for. */
  override summarize(result: string): string | undefined {
    const to = / To: (.*?) \| Subject: /.exec(result)?.[1];
    return to === undefined ? undefined : `to ${to}, not sent`;
  }

  async run(raw: string, context: ToolRunContext): Promise<string> {
    const google = this.services.google;
    const { head, body: lineBody } = splitBody(raw, headerKeys);
    const input = readToolInput(head, [...headerKeys, ...bodyKeys]);
    const body = lineBody ?? pick(input, ...bodyKeys);
    if (!body) throw new ToolError('Give the draft a body, for example:\nto: anna@example.com\nsubject: Saturday\nbody: See you at 10!');
    const replyTo = pick(input, 'reply_to', 'in_reply_to', 'reply_to_id', 'message_id', 'id');
    const account = pick(input, 'account');

    let draft: DraftContent;
    let threadId: string | undefined;
    let target: string;
    if (replyTo !== undefined) {
      if (!messageIdPattern.test(replyTo)) throw new ToolError(`"${replyTo}" is not a message id. Use an id from search_emails.`);
      const reply = await prepareReply(google, { messageId: replyTo, body, to: pick(input, 'to'), cc: pick(input, 'cc'), subject: pick(input, 'subject'), account }, context.signal);
      ({ account: target, draft, threadId } = reply);
    } else {
      target = google.chooseAccount(account);
      draft = { to: pick(input, 'to') ?? '', cc: pick(input, 'cc'), subject: pick(input, 'subject') ?? '', body };
    }
    if (addressesIn(draft.to).length === 0) throw new ToolError(`"${draft.to}" has no email address; give to: name@example.com.`);

    const gmail = await google.gmail(target);
    const created = await google.call({ account: target, service: 'Gmail', needs: 'save drafts' }, () =>
      gmail.users.drafts.create({ userId: 'me', requestBody: { message: { raw: buildRawDraft(draft, this.services.now()), ...(threadId ? { threadId } : {}) } } }, { signal: context.signal }),
    );
    const thread = threadId ? ` as a reply in the thread of message ${replyTo}` : '';
    return `Draft saved in ${target}${thread} (draft id ${created.data.id}); it was NOT sent. To: ${draft.to} | Subject: ${draft.subject || '(no subject)'}. The person can review and send it from Gmail's Drafts.`;
  }
}
