import { MailSendingTool } from '../src/providers/google/google-tool.js';
import { ToolError, type ApprovalNeed, type CallSituation, type ToolParameters, type ToolRunContext, type ToolWords } from '../src/engine/tools/tool.js';
import type { DraftContent } from '../src/providers/google/draft-message.js';
import { headerValue, messageBodyText } from '../src/providers/google/gmail-message.js';
import { messagePreview } from '../src/providers/google/mail-sending.js';
import { pick, readToolInput } from '../src/providers/google/tool-input.js';

const draftIdPattern = /^[A-Za-z0-9_-]{1,128}$/;

/** Sends a saved Gmail draft by its id. Always asks, showing the whole draft as Gmail holds it. */
export default class SendDraftTool extends MailSendingTool {
  readonly name = 'send_draft';
  override readonly source = 'Google: Gmail';
  readonly description = 'Send a saved Gmail draft by its draft id (create_draft says it); the person sees the whole draft and says yes first. Optional account.';
  readonly examples = ['[TOOL:send_draft]r-1234567890[/TOOL]'];
  override readonly parameters: ToolParameters = {
    type: 'object',
    properties: {
      id: { type: 'string', pattern: draftIdPattern.source, description: 'The draft id ("r-…"), from create_draft.' },
      account: { type: 'string', format: 'email', description: 'The account the draft is in, when several are authorized.' },
    },
    required: ['id'],
    additionalProperties: false,
  };
  override readonly words: ToolWords = { doing: 'Sending a draft', done: 'Sent a draft', act: 'send a draft', asks: 'Once sent, it cannot be called back.' };
  override async approvalFor(params: string, _situation: CallSituation, stop: AbortSignal): Promise<ApprovalNeed> {
    return this.askShowing(stop, async (signal) => {
      const { account, draft } = await this.read(params, signal);
      return messagePreview(account, draft);
    });
  }

  async run(params: string, context: ToolRunContext): Promise<string> {
    const google = this.services.google;
    const { account, id, draft } = await this.read(params, context.signal);
    const gmail = await google.gmail(account);
    const sent = await google.call({ account, service: 'Gmail', needs: 'send mail', notFound: `No draft with id ${id} in ${account}.` }, () =>
      gmail.users.drafts.send({ userId: 'me', requestBody: { id } }, { signal: context.signal }),
    );
    return `Draft ${id} sent from ${account} (message id ${sent.data.id}). To: ${draft.to} | Subject: ${draft.subject || '(no subject)'}`;
  }

  private async read(params: string, signal: AbortSignal): Promise<{ account: string; id: string; draft: DraftContent }> {
    const google = this.services.google;
    const input = readToolInput(params, ['id', 'draft_id', 'account']);
    const id = (pick(input, 'id', 'draft_id') ?? input.text).trim();
    if (!draftIdPattern.test(id)) throw new ToolError(`"${id}" is not a draft id; give the id create_draft said ("r-…").`);
    const account = google.chooseAccount(pick(input, 'account'));
    const gmail = await google.gmail(account);
    const found = await google.call({ account, service: 'Gmail', notFound: `No draft with id ${id} in ${account}.` }, () => gmail.users.drafts.get({ userId: 'me', id, format: 'full' }, { signal }));
    const payload = found.data.message?.payload;
    const draft = { to: headerValue(payload, 'To') ?? '', cc: headerValue(payload, 'Cc'), subject: headerValue(payload, 'Subject') ?? '', body: messageBodyText(payload) };
    if (!draft.to.trim() && !draft.cc?.trim()) throw new ToolError(`Draft ${id} has no recipient; add one in Gmail first.`);
    return { account, id, draft };
  }
}
