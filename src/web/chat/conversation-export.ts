import type { Conversation, StoredMessage } from '../../storage/conversation-store.js';
import type { StoredToolCall } from '../../storage/tool-call-store.js';
import type { StoredAttachment } from '../../storage/attachment-store.js';

/*
 * A conversation as a file a person keeps: Markdown to read, JSON for other programs. Both carry
 * every message with its status and the tool calls made for it. The text is written as text: the
 * JSON is data, and in the Markdown, tool parameters and results sit in code fences.
 */

export interface ConversationExport {
  format: 'hearth-conversation';
  version: 1;
  conversation: { id: number; title: string; model: string; createdAt: string; updatedAt: string };
  messages: Array<{
    id: number;
    role: StoredMessage['role'];
    content: string;
    thinking: string;
    status: StoredMessage['status'];
    error: string | null;
    model: string | null;
    createdAt: string;
    toolCalls: Array<{ name: string; params: unknown; status: StoredToolCall['status']; result: string; durationMs: number | null; createdAt: string }>;
    /** Photos sent with the message: named, not embedded (fetch them from `url` while logged in). */
    photos: Array<{ id: number; name: string; url: string; mime: string; width: number; height: number; bytes: number }>;
  }>;
}

const isoTime = (milliseconds: number) => new Date(milliseconds).toISOString();

/** Parameters are stored as JSON text; shown parsed when they parse. */
function parsedParams(params: string): unknown {
  try {
    return JSON.parse(params);
  } catch {
    return params;
  }
}

export function conversationExport(
  conversation: Conversation,
  messages: StoredMessage[],
  toolCalls: StoredToolCall[],
  photos: StoredAttachment[] = [],
): ConversationExport {
  const callsByMessage = new Map<number, StoredToolCall[]>();
  for (const call of toolCalls) callsByMessage.set(call.messageId, [...(callsByMessage.get(call.messageId) ?? []), call]);
  const photosByMessage = new Map<number, StoredAttachment[]>();
  for (const photo of photos) {
    if (photo.messageId !== null) photosByMessage.set(photo.messageId, [...(photosByMessage.get(photo.messageId) ?? []), photo]);
  }
  return {
    format: 'hearth-conversation',
    version: 1,
    conversation: {
      id: conversation.id,
      title: conversation.title,
      model: conversation.model,
      createdAt: isoTime(conversation.createdAt),
      updatedAt: isoTime(conversation.updatedAt),
    },
    messages: messages.map((message) => ({
      id: message.id,
      role: message.role,
      content: message.content,
      thinking: message.thinking,
      status: message.status,
      error: message.error,
      model: message.model,
      createdAt: isoTime(message.createdAt),
      toolCalls: (callsByMessage.get(message.id) ?? []).map((call) => ({
        name: call.name,
        params: parsedParams(call.params),
        status: call.status,
        result: call.result,
        durationMs: call.durationMs,
        createdAt: isoTime(call.createdAt),
      })),
      photos: (photosByMessage.get(message.id) ?? []).map((photo) => ({
        id: photo.id,
        name: `photo-${photo.id}.${photo.mime.slice('image/'.length)}`,
        url: `/attachments/${photo.id}`,
        mime: photo.mime,
        width: photo.width,
        height: photo.height,
        bytes: photo.size,
      })),
    })),
  };
}

/** A code fence longer than any run of backticks in text, so the text cannot close it. */
function fenced(text: string, language = ''): string {
  let longest = 0;
  let run = 0;
  for (const character of text) {
    run = character === '`' ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${language}\n${text}\n${fence}`;
}

/** One line of plain text for a heading: no line breaks, Markdown's own characters escaped. */
const headingText = (text: string) => text.replace(/\s+/g, ' ').replace(/([\\`*_[\]<>#|])/g, '\\$1');

export function conversationMarkdown(exported: ConversationExport): string {
  const { conversation } = exported;
  const lines = [
    `# ${headingText(conversation.title)}`,
    '',
    `Exported from Hearth. Conversation ${conversation.id}, started ${conversation.createdAt}, model ${headingText(conversation.model)}.`,
  ];
  for (const message of exported.messages) {
    const details = [message.role === 'assistant' && message.model ? headingText(message.model) : undefined, message.status === 'complete' ? undefined : message.status]
      .filter(Boolean)
      .join(', ');
    lines.push('', `## ${message.role === 'user' ? 'You' : 'Assistant'}${details ? ` (${details})` : ''}`, '', `_${message.createdAt}_`, '');
    for (const call of message.toolCalls) {
      lines.push(`**Tool call: ${headingText(call.name)}** (${call.status}${call.durationMs === null ? '' : `, ${call.durationMs} ms`})`, '');
      lines.push(fenced(JSON.stringify(call.params, null, 2), 'json'), '');
      if (call.result) lines.push('Result:', '', fenced(call.result), '');
    }
    for (const photo of message.photos) {
      lines.push(`_Photo: ${photo.name}, ${photo.width}×${photo.height} px, ${Math.max(1, Math.round(photo.bytes / 1024))} KB (${photo.url})_`, '');
    }
    lines.push(message.content);
    if (message.error) lines.push('', `> ${headingText(message.error)}`);
  }
  return lines.join('\n') + '\n';
}
