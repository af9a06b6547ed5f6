/*
 * Sending mail: what the approval card shows (the whole message and the account it goes from,
 * from the same content that is sent) and the one messages.send call.
 */
import { ToolError } from '../../engine/tools/tool.js';
import type { GoogleServices } from './google-services.js';
import { addressesIn, buildRawDraft, splitAddressList, type DraftContent } from './draft-message.js';

const oneLine = (value: string) => value.replace(/[\r\n]+\s*/g, ' ').trim();

/** Refuses a message with nobody to send it to, or an address list that names no address. */
export function checkRecipients(draft: DraftContent): void {
  if (addressesIn(draft.to).length === 0) throw new ToolError(`"${draft.to}" has no email address; give to: name@example.com.`);
  for (const entry of [...splitAddressList(draft.to), ...splitAddressList(draft.cc ?? '')]) {
    if (addressesIn(entry).length === 0) throw new ToolError(`"${entry}" is not an email address; write recipients as addresses, comma-separated.`);
  }
}

/** The message as "+ " lines: From, To, Cc, Subject, then every line of the body. */
export function messagePreview(account: string, draft: DraftContent, inReplyTo?: string): string[] {
  const lines = [`+ From: ${account}`, `+ To: ${oneLine(draft.to)}`];
  if (draft.cc) lines.push(`+ Cc: ${oneLine(draft.cc)}`);
  lines.push(`+ Subject: ${oneLine(draft.subject) || '(no subject)'}`);
  if (inReplyTo) lines.push(`+ (in reply to ${oneLine(inReplyTo)}, in its thread)`);
  lines.push('+ ', ...draft.body.split(/\r?\n/).map((line) => `+ ${line}`));
  return lines;
}

/** Sends it; returns Gmail's ids. A token without a sending scope says which command grants it. */
export async function sendMessage(google: GoogleServices, account: string, draft: DraftContent, threadId: string | undefined, date: Date, signal: AbortSignal): Promise<{ id: string; threadId: string }> {
  const gmail = await google.gmail(account);
  const sent = await google.call({ account, service: 'Gmail', needs: 'send mail' }, () =>
    gmail.users.messages.send({ userId: 'me', requestBody: { raw: buildRawDraft(draft, date), ...(threadId ? { threadId } : {}) } }, { signal }),
  );
  return { id: sent.data.id ?? '?', threadId: sent.data.threadId ?? '?' };
}
