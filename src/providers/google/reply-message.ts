/*
 * A reply kept in its thread, as Gmail threads it: the threadId, In-Reply-To and References
 * (RFC 5322 §3.6.4), "Re:" once, and the recipients a mail program would choose: the sender
 * (or its Reply-To) for a reply; everyone else on the message too for reply-all, never oneself.
 */
import type { GoogleServices } from './google-services.js';
import { addressesIn, replySubject, splitAddressList, type DraftContent } from './draft-message.js';
import { findMessage } from './gmail-lookup.js';
import { headerValue } from './gmail-message.js';

export interface ReplyRequest {
  /** The id of the message replied to. */
  messageId: string;
  body: string;
  /** Everyone on the message, not only its sender. */
  replyAll?: boolean;
  /** Recipients the model chose instead. */
  to?: string;
  cc?: string;
  /** Used only when the original has none. */
  subject?: string;
  account?: string;
}

export interface PreparedReply {
  account: string;
  draft: DraftContent;
  threadId: string | undefined;
  /** "Trip on Friday" from School Office <office@school.example>, for the card. */
  original: { subject: string; from: string };
}

const addressOf = (entry: string) => addressesIn(entry)[0]?.toLowerCase();

/** Entries whose address is not one of `without`, each address once. */
function recipients(entries: string[], without: Set<string>): string[] {
  const seen = new Set(without);
  return entries.filter((entry) => {
    const address = addressOf(entry);
    if (!address || seen.has(address)) return false;
    seen.add(address);
    return true;
  });
}

export async function prepareReply(google: GoogleServices, request: ReplyRequest, signal: AbortSignal): Promise<PreparedReply> {
  const original = await findMessage(google, request.messageId, request.account, signal, 'metadata', ['Subject', 'From', 'Reply-To', 'To', 'Cc', 'Message-ID', 'References']);
  const account = original.account;
  const payload = original.message.payload;
  const header = (name: string) => headerValue(payload, name) ?? '';
  const self = account.toLowerCase();
  // Replying to one's own sent message goes to its recipients, not back to oneself.
  const ownMessage = addressesIn(header('From')).some((address) => address.toLowerCase() === self);
  const sender = splitAddressList(header('Reply-To') || header('From'));
  const to = request.to ?? (ownMessage ? header('To') : recipients(sender, new Set([self])).join(', ') || header('From'));
  let cc = request.cc;
  if (cc === undefined && request.replyAll) {
    const already = new Set([self, ...splitAddressList(to).map(addressOf).filter((address) => address !== undefined)]);
    const others = ownMessage ? splitAddressList(header('Cc')) : [...splitAddressList(header('To')), ...splitAddressList(header('Cc'))];
    cc = recipients(others, already).join(', ') || undefined;
  }
  const messageId = header('Message-ID') || undefined;
  return {
    account,
    draft: {
      to,
      cc,
      subject: replySubject(header('Subject') || request.subject || ''),
      body: request.body,
      inReplyTo: messageId,
      references: messageId ? [header('References'), messageId].filter(Boolean).join(' ') : undefined,
    },
    threadId: original.message.threadId ?? undefined,
    original: { subject: header('Subject') || '(no subject)', from: header('From') },
  };
}
