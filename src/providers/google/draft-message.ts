/*
 * The RFC 5322 message behind a Gmail draft: plain text, UTF-8, headers encoded where needed.
 * Every header value comes from the model, so line breaks are removed from them: a subject
 * must never be able to add a "Bcc:" line.
 */
import { encodeBase64Url } from './gmail-message.js';

export interface DraftContent {
  to: string;
  cc?: string;
  subject: string;
  body: string;
  /** Message-ID of the message replied to. */
  inReplyTo?: string;
  /** The thread's chain of Message-IDs, ending with inReplyTo. */
  references?: string;
}

const oneLine = (value: string) => value.replace(/[\r\n]+\s*/g, ' ').trim();

const isAscii = (value: string) => /^[\x00-\x7f]*$/.test(value);

/** RFC 2047 encoded-words, split so that no word exceeds the 75-character limit. */
export function encodeHeaderWords(value: string): string {
  if (isAscii(value)) return value;
  const words: string[] = [];
  let chunk = '';
  for (const character of value) {
    // 45 bytes of UTF-8 → 60 base64 characters, plus "=?UTF-8?B??=" is 72.
    if (Buffer.byteLength(chunk + character) > 45) {
      words.push(chunk);
      chunk = '';
    }
    chunk += character;
  }
  if (chunk) words.push(chunk);
  return words.map((word) => `=?UTF-8?B?${Buffer.from(word).toString('base64')}?=`).join(' ');
}

/** The entries of an address list ("Ana, Núñez" <ana@x.org>, bob@y.org), commas inside quotes kept. */
export function splitAddressList(value: string): string[] {
  return oneLine(value)
    .split(/,(?=(?:[^"]*"[^"]*")*[^"]*$)/)
    .map((entry) => entry.trim())
    .filter(Boolean);
}

/** "Ana Núñez <ana@x.org>, bob@y.org" with non-ASCII display names encoded. */
export function encodeAddressList(value: string): string {
  return splitAddressList(value)
    .map((entry) => {
      const match = /^(.*?)\s*<([^<>]+)>$/.exec(entry);
      if (!match || isAscii(match[1]!)) return entry;
      const name = match[1]!.replace(/^"(.*)"$/, '$1');
      return `${encodeHeaderWords(name)} <${match[2]}>`;
    })
    .join(', ');
}

/** Just the addresses, for checking that there is at least one. */
export function addressesIn(value: string): string[] {
  return [...value.matchAll(/[^\s<>,;"']+@[^\s<>,;"']+\.[^\s<>,;"']+/g)].map((match) => match[0]);
}

/** "Re: " once, however many the subject already has in whatever case. */
export function replySubject(subject: string): string {
  const trimmed = subject.trim();
  return /^re\s*:/i.test(trimmed) ? trimmed : `Re: ${trimmed}`;
}

export function buildMimeMessage(draft: DraftContent, date: Date = new Date()): string {
  const headers = [
    `To: ${encodeAddressList(draft.to)}`,
    ...(draft.cc ? [`Cc: ${encodeAddressList(draft.cc)}`] : []),
    `Subject: ${encodeHeaderWords(oneLine(draft.subject))}`,
    `Date: ${date.toUTCString().replace('GMT', '+0000')}`,
    ...(draft.inReplyTo ? [`In-Reply-To: ${oneLine(draft.inReplyTo)}`] : []),
    ...(draft.references ? [`References: ${oneLine(draft.references)}`] : []),
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset="UTF-8"',
    'Content-Transfer-Encoding: base64',
  ];
  const body = Buffer.from(draft.body.replace(/\r?\n/g, '\r\n'), 'utf8').toString('base64').replace(/.{76}/g, '$&\r\n');
  return `${headers.join('\r\n')}\r\n\r\n${body}\r\n`;
}

/** The `raw` field of a Gmail draft. */
export function buildRawDraft(draft: DraftContent, date?: Date): string {
  return encodeBase64Url(buildMimeMessage(draft, date));
}
