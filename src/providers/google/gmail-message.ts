/*
 * Reading Gmail's message resources (format "full"): headers, the text of the body, and the
 * names of attachments. Gmail gives each MIME part's body as base64url, in the part's charset.
 */
import type { gmail_v1 } from '@googleapis/gmail';
import { htmlToText } from './html-to-text.js';

export type MessagePart = gmail_v1.Schema$MessagePart;

/** Gmail's base64url (with or without padding; tolerant of standard base64 too). */
export function decodeBase64Url(data: string): Buffer {
  return Buffer.from(data.replace(/-/g, '+').replace(/_/g, '/').replace(/\s+/g, ''), 'base64');
}

export function encodeBase64Url(data: string | Buffer): string {
  return Buffer.from(data).toString('base64url');
}

export function headerValue(part: MessagePart | undefined, name: string): string | undefined {
  const wanted = name.toLowerCase();
  return part?.headers?.find((header) => header.name?.toLowerCase() === wanted)?.value ?? undefined;
}

function charsetOf(part: MessagePart): string {
  const contentType = headerValue(part, 'Content-Type') ?? '';
  return /charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType)?.[1] ?? 'utf-8';
}

/** A part's body as text, in its declared charset (UTF-8 when unknown). */
export function partText(part: MessagePart): string {
  const data = part.body?.data;
  if (!data) return '';
  const bytes = decodeBase64Url(data);
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charsetOf(part));
  } catch {
    decoder = new TextDecoder('utf-8');
  }
  return decoder.decode(bytes).replace(/\r\n?/g, '\n');
}

function isAttachment(part: MessagePart): boolean {
  const disposition = headerValue(part, 'Content-Disposition') ?? '';
  return Boolean(part.filename) || /^\s*attachment/i.test(disposition) || Boolean(part.body?.attachmentId && !part.body?.data);
}

interface Found {
  plain: string[];
  html: string[];
}

function collect(part: MessagePart): Found {
  const mimeType = (part.mimeType ?? '').toLowerCase();
  if (isAttachment(part) && !mimeType.startsWith('multipart/')) return { plain: [], html: [] };
  if (mimeType === 'text/plain') return { plain: [partText(part)], html: [] };
  if (mimeType === 'text/html') return { plain: [], html: [partText(part)] };
  if (!mimeType.startsWith('multipart/')) return { plain: [], html: [] };

  const children = (part.parts ?? []).map(collect);
  if (mimeType === 'multipart/alternative') {
    // The same content in several forms: the plain one when it has text, else the HTML one.
    const plain = children.find((child) => child.plain.join('').trim() !== '');
    if (plain) return { plain: plain.plain, html: [] };
    const html = children.find((child) => child.html.join('').trim() !== '');
    return html ? { plain: [], html: html.html } : { plain: [], html: [] };
  }
  // mixed, related, signed...: every text part, in order.
  return { plain: children.flatMap((child) => child.plain), html: children.flatMap((child) => child.html) };
}

/** The body as plain text: text/plain preferred, HTML turned into text otherwise. */
export function messageBodyText(payload: MessagePart | undefined): string {
  if (!payload) return '';
  const found = collect(payload);
  const plain = found.plain.map((text) => text.trim()).filter(Boolean).join('\n\n');
  if (plain) return plain;
  return found.html.map(htmlToText).filter(Boolean).join('\n\n');
}

export function attachmentNames(payload: MessagePart | undefined): string[] {
  if (!payload) return [];
  const names: string[] = [];
  const walk = (part: MessagePart) => {
    if (part.filename) names.push(part.filename);
    for (const child of part.parts ?? []) walk(child);
  };
  walk(payload);
  return names;
}
