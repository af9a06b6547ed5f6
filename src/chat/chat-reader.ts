import type { ConversationStore, StoredMessage } from '../storage/conversation-store.js';
import type { ToolCallStore } from '../storage/tool-call-store.js';
import { toMessageView, toToolCallView, type ChatView, type MessageView } from './chat-view.js';
import type { ReplyHub } from './reply-hub.js';

export interface ChatReaderDependencies {
  store: ConversationStore;
  toolCalls: ToolCallStore;
  hub: ReplyHub;
  view: ChatView;
}

/** Messages a chat opens with, and how many each scroll to the top adds above them. */
export const messagePageSize = 40;

export interface MessagePage {
  messages: MessageView[];
  /** The address of the page before this one, when older messages exist. */
  earlierUrl: string | undefined;
}

/** Most messages one re-rendered thread holds (10 pages): past that it opens at the newest again. */
const maxThreadMessages = messagePageSize * 10;

/** One message a reconnecting page missed: `replace` when the page shows it already (it may have changed). */
export interface CatchUpItem {
  messageId: number;
  replace: boolean;
  html: string;
}

/**
 * The chat as the person sees it: the one place that turns stored messages, live reply text and
 * tool calls into views and HTML, for the page routes and the socket alike.
 */
export function createChatReader(dependencies: ChatReaderDependencies) {
  const { store, toolCalls, hub, view } = dependencies;

  /** A stored message with the live text of the reply writing into it, if any, and its tool cards. */
  function toView(message: StoredMessage): MessageView {
    const live = hub.active(message.conversationId);
    const view = toMessageView(
      message,
      live?.messageId === message.id ? live : undefined,
      message.role === 'assistant' ? toolCalls.listForMessage(message.id) : undefined,
    );
    const versions = store.versionsOf(message);
    if (versions.ids.length > 1) view.versions = { position: versions.index + 1, count: versions.ids.length };
    return view;
  }

  /**
   * The newest messages (or those just before `before`), with their tool cards. Only this page is
   * read: a long chat opens as fast as a short one.
   */
  function messagePage(conversationId: number, before?: number): MessagePage {
    // One more than shown tells whether older messages exist.
    const stored = store.listMessagesPage(conversationId, messagePageSize + 1, before);
    const hasEarlier = stored.length > messagePageSize;
    if (hasEarlier) stored.shift();
    const messages = stored.map(toView);
    const earlierUrl = hasEarlier ? `/c/${conversationId}/messages?before=${stored[0]!.id}` : undefined;
    return { messages, earlierUrl };
  }

  /** One message as HTML, as it is now (live text while it streams); undefined when it is gone. */
  function messageHtml(messageId: number): string | undefined {
    const message = store.getMessage(messageId);
    return message && view.message(toView(message));
  }

  function toolCardHtml(toolCallId: number): string | undefined {
    const call = toolCalls.get(toolCallId);
    return call && view.toolCard(toToolCallView(call));
  }

  /**
   * The thread as HTML, for #chat-thread after its shape changed: the newest page, or, when the
   * change was further up (`fromId`, a version of an older message), everything from there down,
   * so the person still sees what they changed. Bounded: a change very far up shows the newest page.
   */
  function threadHtml(conversationId: number, fromId?: number): string {
    const newest = messagePage(conversationId);
    const oldestShown = newest.messages[0]?.id;
    if (fromId === undefined || newest.earlierUrl === undefined || oldestShown === undefined || fromId >= oldestShown) {
      return view.messagePage(newest);
    }
    const from = store.listMessagesFrom(conversationId, fromId, maxThreadMessages + 1);
    if (from.length > maxThreadMessages || from[0]?.id !== fromId) return view.messagePage(newest);
    const hasEarlier = store.listMessagesPage(conversationId, 1, fromId).length > 0;
    return view.messagePage({
      messages: from.map(toView),
      earlierUrl: hasEarlier ? `/c/${conversationId}/messages?before=${fromId}` : undefined,
    });
  }

  /**
   * What a reloaded page or a phone waking up missed. The page says the last message it shows
   * (`shownUpTo`): that one is rendered again, newer ones are added. Without it, from the last
   * reply among the newest page. Only those messages are read, not the whole conversation.
   * When the page shows a version that is no longer shown, the whole thread is sent instead.
   */
  function catchUp(conversationId: number, shownUpTo?: number): { threadHtml: string } | { items: CatchUpItem[] } {
    if (shownUpTo !== undefined) {
      const shown = store.getMessage(shownUpTo);
      if (!shown || shown.conversationId !== conversationId || shown.hidden) return { threadHtml: threadHtml(conversationId) };
    }
    const from = shownUpTo ?? store.listMessagesPage(conversationId, messagePageSize).findLast((message) => message.role === 'assistant')?.id;
    if (from === undefined) return { items: [] };
    const items = store.listMessagesFrom(conversationId, from).map((message) => ({
      messageId: message.id,
      replace: message.id === from,
      html: view.message(toView(message)),
    }));
    return { items };
  }

  return { messagePage, messageHtml, toolCardHtml, threadHtml, catchUp };
}

export type ChatReader = ReturnType<typeof createChatReader>;
