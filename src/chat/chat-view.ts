import type { Eta } from 'eta';
import { escapeText, renderMarkdown } from '../markdown/render-markdown.js';
import type { Conversation, MessageStatus, SearchHit, StoredMessage } from '../storage/conversation-store.js';

export interface MessageView {
  id: number;
  role: 'user' | 'assistant';
  content: string;
  thinking: string;
  /** Sanitized HTML of an assistant reply; empty while it streams. */
  html: string;
  status: MessageStatus;
  streaming: boolean;
  hasContent: boolean;
  error: string | null;
}

export interface HistoryItemView {
  id: number;
  title: string;
  updatedAt: number;
  when: string;
  current: boolean;
  /** Safe HTML: escaped text with <mark> around matches. */
  snippet?: string;
}

export interface LiveText {
  content: string;
  thinking: string;
}

export function toMessageView(message: StoredMessage, live?: LiveText): MessageView {
  const content = live?.content ?? message.content;
  const thinking = live?.thinking ?? message.thinking;
  const streaming = message.status === 'streaming';
  return {
    id: message.id,
    role: message.role,
    content,
    thinking,
    html: message.role === 'assistant' && !streaming ? renderMarkdown(content) : '',
    status: message.status,
    streaming,
    hasContent: content.length > 0,
    error: message.error,
  };
}

export function formatWhen(timestamp: number, now: number = Date.now()): string {
  const date = new Date(timestamp);
  const today = new Date(now);
  if (date.toDateString() === today.toDateString()) {
    return date.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' });
  }
  return date.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: date.getFullYear() === today.getFullYear() ? undefined : 'numeric' });
}

export function toHistoryItemView(conversation: Conversation, currentId?: number): HistoryItemView {
  return {
    id: conversation.id,
    title: conversation.title,
    updatedAt: conversation.updatedAt,
    when: formatWhen(conversation.updatedAt),
    current: conversation.id === currentId,
  };
}

/** Search snippets come marked with \u0001…\u0002 from SQLite; escape first, then mark. */
export function toSearchItemView(hit: SearchHit, conversation: Conversation): HistoryItemView {
  const snippet = escapeText(hit.snippet).replace(/\u0001/g, '<mark>').replace(/\u0002/g, '</mark>');
  return { ...toHistoryItemView(conversation), snippet };
}

/** Renders the partials that both the pages and the WebSocket updates use. */
export function createChatView(eta: Eta) {
  return {
    message: (message: MessageView) => eta.render('./partials/message', { message }),
    historyItem: (conversation: HistoryItemView) => eta.render('./partials/history-item', { conversation }),
    historyList: (conversations: HistoryItemView[], query = '') =>
      eta.render('./partials/history-list', { conversations, query }),
    chatError: (message: string) => eta.render('./partials/chat-error', { message }),
  };
}

export type ChatView = ReturnType<typeof createChatView>;
