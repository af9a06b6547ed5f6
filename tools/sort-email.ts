import { GoogleTool } from '../src/providers/google/google-tool.js';
import { ToolError, type ApprovalNeed, type CallSituation, type ToolParameters, type ToolRunContext, type ToolWords } from '../src/engine/tools/tool.js';
import { findLabel } from '../src/providers/google/gmail-labels.js';
import { findMessage, messageIdPattern } from '../src/providers/google/gmail-lookup.js';
import { headerValue } from '../src/providers/google/gmail-message.js';
import { pick, readToolInput } from '../src/providers/google/tool-input.js';

const actions = ['trash', 'untrash', 'mark_read', 'mark_unread', 'archive', 'add_label', 'remove_label'] as const;
type Action = (typeof actions)[number];

/** What each action does, as the card says it. */
const actionWords: Record<Action, (label: string) => string> = {
  trash: () => 'Move to the trash (recoverable from Gmail\'s Trash for 30 days)',
  untrash: () => 'Take out of the trash',
  mark_read: () => 'Mark as read',
  mark_unread: () => 'Mark as unread',
  archive: () => 'Archive (out of the inbox, kept in All Mail)',
  add_label: (label) => `Add the label "${label}"`,
  remove_label: (label) => `Remove the label "${label}"`,
};

const doneWords: Record<Action, string> = {
  trash: 'to the trash',
  untrash: 'out of the trash',
  mark_read: 'marked read',
  mark_unread: 'marked unread',
  archive: 'archived',
  add_label: 'labelled',
  remove_label: 'unlabelled',
};

interface Target {
  account: string;
  id: string;
  line: string;
}

/** Trash, untrash, mark read or unread, archive, add or remove a label: asks first unless allowed on the tools page. */
export default class SortEmailTool extends GoogleTool {
  readonly name = 'sort_email';
  override readonly source = 'Google: Gmail';
  readonly description =
    'Change messages in Gmail (asks the person first): action trash (recoverable), untrash, mark_read, mark_unread, archive, add_label or remove_label (with label: its name, from list_labels), for ids (message ids from search_emails, comma-separated, up to 25).';
  readonly examples = ['[TOOL:sort_email]action: trash\nids: 18c2f0a1b2c3d4e6[/TOOL]', '[TOOL:sort_email]action: add_label\nlabel: School\nids: 18c2f0a1b2c3d4e5[/TOOL]'];
  override readonly parameters: ToolParameters = {
    type: 'object',
    properties: {
      action: { type: 'string', enum: actions, description: 'What to do with the messages.' },
      ids: { type: 'string', description: 'Message ids from search_emails, comma-separated (up to 25).' },
      label: { type: 'string', description: 'The label name, for add_label and remove_label.' },
      account: { type: 'string', format: 'email', description: 'The account the messages are in, when several are authorized.' },
    },
    required: ['action', 'ids'],
    additionalProperties: false,
  };
  override readonly words: ToolWords = { doing: 'Sorting your email', done: 'Sorted your email', act: 'sort your email' };
  override readonly timeoutMs = 30_000;
  override readonly actsOnWorld = true;

  /** "2 messages to the trash", "1 message archived". */
  override summarize(result: string): string | undefined {
    const action = actions.find((candidate) => result.startsWith(actionWords[candidate]('').split('"')[0]!));
    const count = /: (\d+ messages?) done\./.exec(result)?.[1];
    return action && count ? `${count} ${doneWords[action]}` : undefined;
  }

  override async approvalFor(params: string, _situation: CallSituation, stop: AbortSignal): Promise<ApprovalNeed> {
    return this.askShowing(stop, async (signal) => {
      const { action, label, targets } = await this.read(params, signal);
      return [`${actionWords[action](label ?? '')}:`, ...targets.map((target) => `  ${target.line}`)];
    });
  }

  async run(params: string, context: ToolRunContext): Promise<string> {
    const google = this.services.google;
    const { action, label, targets } = await this.read(params, context.signal);
    for (const target of targets) {
      const gmail = await google.gmail(target.account);
      const explain = { account: target.account, service: 'Gmail', needs: 'sort mail (trash, labels, read and unread)' };
      const request = { userId: 'me', id: target.id };
      if (action === 'trash') await google.call(explain, () => gmail.users.messages.trash(request, { signal: context.signal }));
      else if (action === 'untrash') await google.call(explain, () => gmail.users.messages.untrash(request, { signal: context.signal }));
      else {
        const labelId = label === undefined ? undefined : (await findLabel(google, target.account, label, context.signal)).id;
        const change = {
          mark_read: { removeLabelIds: ['UNREAD'] },
          mark_unread: { addLabelIds: ['UNREAD'] },
          archive: { removeLabelIds: ['INBOX'] },
          add_label: { addLabelIds: [labelId!] },
          remove_label: { removeLabelIds: [labelId!] },
        }[action];
        await google.call(explain, () => gmail.users.messages.modify({ ...request, requestBody: change }, { signal: context.signal }));
      }
    }
    return `${actionWords[action](label ?? '')}: ${targets.length} message${targets.length === 1 ? '' : 's'} done.\n${targets.map((target) => `${target.id} | ${target.line}`).join('\n')}`;
  }

  private async read(params: string, signal: AbortSignal): Promise<{ action: Action; label: string | undefined; targets: Target[] }> {
    const google = this.services.google;
    const input = readToolInput(params, ['action', 'ids', 'id', 'label', 'account']);
    const action = pick(input, 'action')?.toLowerCase().replace(/[\s-]+/g, '_') as Action | undefined;
    if (!action || !actions.includes(action)) throw new ToolError(`Say what to do: action is one of ${actions.join(', ')}.`);
    const label = pick(input, 'label');
    if ((action === 'add_label' || action === 'remove_label') && !label) throw new ToolError(`${action} needs label: <name> (list_labels names them).`);
    const ids = (pick(input, 'ids', 'id') ?? '').split(/[\s,]+/).filter(Boolean);
    if (ids.length === 0 || ids.length > 25) throw new ToolError('Give between 1 and 25 message ids from search_emails, comma-separated.');
    const bad = ids.find((id) => !messageIdPattern.test(id));
    if (bad) throw new ToolError(`"${bad}" is not a message id. Use ids from search_emails.`);
    const account = pick(input, 'account');
    const targets: Target[] = [];
    for (const id of new Set(ids)) {
      const found = await findMessage(google, id, account, signal, 'metadata', ['Subject', 'From']);
      const subject = (headerValue(found.message.payload, 'Subject') ?? '(no subject)').replace(/\s+/g, ' ').slice(0, 120);
      const from = (headerValue(found.message.payload, 'From') ?? '').replace(/\s+/g, ' ').slice(0, 80);
      targets.push({ account: found.account, id, line: `"${subject}" from ${from}` });
    }
    if (label !== undefined) await findLabel(google, targets[0]!.account, label, signal);
    return { action, label, targets };
  }
}
