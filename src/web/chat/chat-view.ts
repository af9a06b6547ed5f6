import { timeIn, type DayGroup, type PersonalTime } from '../http/format-when.js';
import type { Eta } from 'eta';
import { markdownRendererVersion } from '../../engine/markdown/markdown-renderer.js';
import { addCodeBars, escapeText, renderMarkdown } from '../../engine/markdown/render-markdown.js';
import type { Conversation, MessageStatus, SearchHit, StoredMessage } from '../../storage/conversation-store.js';
import type { StoredToolCall, ToolCallStatus } from '../../storage/tool-call-store.js';
import type { Tool } from '../../engine/tools/tool.js';
import { describeToolCall } from './tool-card-headline.js';
import { linksForCard, type CardLink } from './tool-card-links.js';
import type { StoredAttachment } from '../../storage/attachment-store.js';
import { plainNotice, readStoredError, type ErrorNotice } from '../../replies/error-notice.js';
import type { ModelPicker } from './model-picker.js';

export interface MessageView {
  id: number;
  role: 'user' | 'assistant';
  content: string;
  thinking: string;
  /** Sanitized HTML of an assistant reply; while it streams, of its blocks formatted so far. */
  html: string;
  /** While it streams: the text after the formatted blocks (the open block), shown as text. */
  streamText: string;
  status: MessageStatus;
  streaming: boolean;
  hasContent: boolean;
  /** Why the reply failed or ended early, as saved with it. */
  error: ErrorNotice | null;
  toolCalls: ToolCallView[];
  /** When it was written (ms since 1970). */
  createdAt: number;
  /** The same in the person's zone (web/http/format-when.ts): as the thread shows it, and to the second. */
  time: { iso: string; text: string; exact: string };
  /** Photos the person sent with the message. */
  photos: PhotoView[];
  /** Safe HTML shown instead of the text: the message opened at a search result, its words marked. */
  markedBody?: string;
  /** Set when the message has other versions (an edit, a regenerated reply): "‹ 2/3 ›". */
  versions?: { position: number; count: number };
}

export interface PhotoView {
  id: number;
  url: string;
  /** The small version for the thread (the photo itself when the browser sent none). */
  thumbnailUrl: string;
  width: number;
  height: number;
}

export const toPhotoView = (photo: StoredAttachment): PhotoView => ({
  id: photo.id,
  url: `/attachments/${photo.id}`,
  thumbnailUrl: photo.hasThumbnail ? `/attachments/${photo.id}/thumbnail` : `/attachments/${photo.id}`,
  width: photo.width,
  height: photo.height,
});

export interface ToolCallView {
  id: number;
  name: string;
  params: string;
  status: ToolCallStatus;
  /** What happened, in plain words ("Searched your email — 3 results"). */
  summary: string;
  result: string;
  /** The latest progress line while it runs. */
  progress: string;
  long: boolean;
  resultSize: string;
  duration: string;
  /** What the call would change, as "+ "/"- " lines (a memory update's diff), while it waits and after. */
  changeLines: { kind: 'added' | 'removed' | 'kept'; text: string }[];
  /** The tool's own reason for asking, said above the buttons ('' when the headline says enough). */
  approvalQuestion: string;
  /** False for a tool that must always ask: the card offers no "Always allow". */
  canAlwaysAllow: boolean;
  /** The pages a finished call read or found, as links (http(s) only; opened in a new tab, no referrer). */
  links: CardLink[];
}

/** Finds the tool that made a recorded call, by its name (undefined when it is no longer installed). */
export type ToolByName = (name: string) => Tool | undefined;

/** A call as its card shows it, in the words of its tool. */
export function toToolCallView(call: StoredToolCall, tool: Tool | undefined): ToolCallView {
  return {
    id: call.id,
    name: call.name,
    params: call.params,
    status: call.status,
    summary: describeToolCall(call, tool),
    result: call.status === 'running' ? '' : call.result,
    progress: call.status === 'running' ? call.result : '',
    long: call.result.length > 280 || call.result.split('\n').length > 6,
    resultSize: `${call.result.length.toLocaleString('en')} characters`,
    duration: call.durationMs === null ? '' : call.durationMs < 1000 ? `${call.durationMs} ms` : `${(call.durationMs / 1000).toFixed(1)} s`,
    changeLines: (call.preview ?? '')
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => ({ kind: line.startsWith('+ ') ? 'added' : line.startsWith('- ') ? 'removed' : 'kept', text: line })),
    approvalQuestion: tool?.words?.asks ?? '',
    canAlwaysAllow: tool?.canAlwaysAllow ?? true,
    links: linksForCard(call, tool),
  };
}

export interface HistoryItemView {
  id: number;
  title: string;
  updatedAt: number;
  /** Its last change in the person's zone, as the list shows it, and in full (the title). */
  when: string;
  exactWhen: string;
  /** The day heading it goes under, in the person's zone. */
  group: DayGroup;
  current: boolean;
  /** Safe HTML: escaped text with <mark> around matches. */
  snippet?: string;
  /** A search result links to the matching message, and says the words to mark in it. */
  messageId?: number;
  query?: string;
}

export interface LiveText {
  content: string;
  thinking: string;
  /** The blocks formatted so far: their HTML, and where in `content` they end. */
  formatted?: { readonly html: string; readonly end: number };
}

/**
 * The HTML made when the reply ended; a message from before that (or from an older renderer) is
 * rendered here, on the main thread, only when short: otherwise it is shown as plain text.
 */
function storedHtml(message: StoredMessage, content: string): string {
  if (message.html !== null && message.htmlVersion === markdownRendererVersion && content === message.content) return message.html;
  // Version 1 differs only by the code bars: added to the stored HTML, so a long reply stays formatted.
  if (message.html !== null && message.htmlVersion === 1 && content === message.content) return addCodeBars(message.html);
  return renderMarkdown(content, directRenderLimit);
}

/** Longest text rendered on the main thread (a few ms whatever its shape). */
const directRenderLimit = 4096;

export function toMessageView(
  message: StoredMessage,
  live?: LiveText,
  toolCalls: StoredToolCall[] = [],
  photos: StoredAttachment[] = [],
  toolByName: ToolByName = () => undefined,
  time: PersonalTime = timeIn(),
): MessageView {
  const content = live?.content ?? message.content;
  const thinking = live?.thinking ?? message.thinking;
  const streaming = message.status === 'streaming';
  return {
    id: message.id,
    role: message.role,
    content,
    thinking,
    html: message.role === 'assistant' && !streaming ? storedHtml(message, content) : streaming ? (live?.formatted?.html ?? '') : '',
    streamText: streaming ? content.slice(live?.formatted?.end ?? 0) : '',
    status: message.status,
    streaming,
    hasContent: content.length > 0,
    error: message.error ? readStoredError(message.error) : null,
    toolCalls: toolCalls.map((call) => toToolCallView(call, toolByName(call.name))),
    createdAt: message.createdAt,
    time: { iso: new Date(message.createdAt).toISOString(), ...time.messageTime(message.createdAt) },
    photos: photos.map(toPhotoView),
  };
}

/** `time`: the person's (web/http/format-when.ts); without it, the server's zone. */
export function toHistoryItemView(conversation: Conversation, currentId?: number, time: PersonalTime = timeIn(), now = Date.now()): HistoryItemView {
  return {
    id: conversation.id,
    title: conversation.title,
    updatedAt: conversation.updatedAt,
    when: time.listTime(conversation.updatedAt, now),
    exactWhen: time.exact(conversation.updatedAt),
    group: time.dayGroup(conversation.updatedAt, now),
    current: conversation.id === currentId,
  };
}

/** Chats the sidebar lists. */
export const historyPageSize = 100;

export interface HistoryGroupView extends DayGroup {
  conversations: HistoryItemView[];
}

/**
 * The chats under their day headings, newest group first. Each group keeps the order it was given
 * (the list's newest first, a search's best match first).
 */
export function groupHistory(items: HistoryItemView[]): HistoryGroupView[] {
  const groups = new Map<string, HistoryGroupView & { newest: number }>();
  for (const item of items) {
    const group = groups.get(item.group.key);
    if (group) {
      group.conversations.push(item);
      group.newest = Math.max(group.newest, item.updatedAt);
    } else groups.set(item.group.key, { ...item.group, conversations: [item], newest: item.updatedAt });
  }
  return [...groups.values()].sort((a, b) => b.newest - a.newest).map(({ key, label, conversations }) => ({ key, label, conversations }));
}

/** Characters kept before the first match, so a sidebar line that ends in "…" still shows it. */
const snippetLeadCharacters = 24;

/** SQLite picks a window of words around the match; with long words the match can still sit past the visible line. */
export function keepMatchInView(snippet: string): string {
  const first = snippet.indexOf('\u0001');
  if (first <= snippetLeadCharacters + 1) return snippet;
  const cut = snippet.indexOf(' ', first - snippetLeadCharacters);
  const from = cut === -1 || cut >= first ? first : cut + 1;
  return `…${snippet.slice(from)}`;
}

/** Search snippets come marked with \u0001…\u0002 from SQLite; escape first, then mark. */
export function toSearchItemView(hit: SearchHit, conversation: Conversation, query?: string, time?: PersonalTime, now?: number): HistoryItemView {
  const snippet = escapeText(keepMatchInView(hit.snippet)).replace(/\u0001/g, '<mark>').replace(/\u0002/g, '</mark>');
  return { ...toHistoryItemView(conversation, undefined, time, now), snippet, messageId: hit.messageId, ...(query ? { query } : {}) };
}

/** Tags between which words are apart (blocks, cells, line breaks); inline ones (strong, a, code) join what they hold to its neighbours. */
const blockTag = /<\/?(?:p|div|li|ul|ol|h[1-6]|pre|table|thead|tbody|tr|td|th|blockquote|br|hr|section|details|summary|figure|figcaption|dt|dd)\b[^>]*>/gi;

/**
 * What a screen reader is told of a finished reply: its sanitized HTML without tags (entities stay
 * escaped, so the result is still safe HTML text), whitespace made single spaces, cut to `most`.
 */
export function spokenText(html: string, most: number): string {
  return html
    .replace(blockTag, ' ')
    .replace(/<[^>]*>/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, most)
    .replace(/&[a-z#0-9]*$/i, '')
    .trimEnd();
}

/** Renders the partials that both the pages and the WebSocket updates use. */
export function createChatView(eta: Eta) {
  return {
    message: (message: MessageView) => eta.render('./partials/message', { message }),
    messagePage: (page: { messages: MessageView[]; earlierUrl: string | undefined; laterUrl?: string | undefined }) =>
      eta.render('./partials/message-page', page),
    toolCard: (call: ToolCallView) => eta.render('./partials/tool-card', { call }),
    /** The message form's hidden field naming the conversation it sends to. */
    conversationField: (conversationId: number | undefined) => eta.render('./partials/conversation-field', { conversationId }),
    /** A streaming message's open block, as text: formatted blocks go in before it as they finish. */
    streamTail: (messageId: number, text: string) => eta.render('./partials/stream-tail', { messageId, text }),
    historyItem: (conversation: HistoryItemView) => eta.render('./partials/history-item', { conversation }),
    /** The header's title; `retitle` adds the tab's <title>, `error` shows the rename field open with it. */
    chatTitle: (title: { title: string; conversationId?: number; retitle?: boolean; typed?: string; error?: string }) =>
      eta.render('./partials/chat-title', title),
    /**
     * The list under its day headings. `more`: the next page's address; `after`: this is a later
     * page, going on under that heading (said again only to screen readers).
     */
    historyList: (conversations: HistoryItemView[], query = '', paging: { more?: string | undefined; after?: string } = {}) =>
      eta.render('./partials/history-list', { groups: groupHistory(conversations), query, ...paging }),
    /** "Chat deleted · Undo", for the few seconds a deleted chat can be brought back. */
    undoDelete: (notice: { conversationId: number; next: string; csrfToken: string }) => eta.render('./partials/undo-delete', notice),
    /** The header's ⋯ menu (rename, exports, delete): empty until the chat exists. */
    chatMenu: (conversationId: number | undefined) => eta.render('./partials/chat-menu', { conversationId }),
    /** The options of select#model-select, `model` selected. */
    modelOptions: (picker: Pick<ModelPicker, 'groups' | 'empty' | 'emptyLabel'>, model: string | undefined) =>
      eta.render('./partials/model-options', { modelGroups: picker.groups, model, noModels: picker.empty, noModelsLabel: picker.emptyLabel }),
    /** The photo viewer's slides: every photo of one message, the one at `shown` visible. */
    photoViewer: (photos: StoredAttachment[], shown: number) => eta.render('./partials/photo-viewer', { photos: photos.map(toPhotoView), shown }),
    /** The inline editor for one of the person's messages. */
    messageEditor: (message: { id: number; content: string; maxLength: number }) => eta.render('./partials/message-editor', message),
    /** A notice in the thread; plain text is all headline. */
    chatError: (notice: ErrorNotice | string) => eta.render('./partials/chat-error', { notice: typeof notice === 'string' ? plainNotice(notice) : notice }),
  };
}

export type ChatView = ReturnType<typeof createChatView>;
