import type { ConversationStore, StoredMessage } from '../storage/conversation-store.js';
import type { ToolCallStore } from '../storage/tool-call-store.js';
import { toMessageView, type MessageView } from './chat-view.js';
import type { ReplyHub } from './reply-hub.js';

/** A slice of a conversation that need not end at its newest message, with the loaders above and below it. */
export interface MessageWindow {
  messages: MessageView[];
  earlierUrl: string | undefined;
  /** Set while newer messages exist below the window: the page then is not at the newest end. */
  laterUrl: string | undefined;
}

export interface MessageWindowDependencies {
  store: ConversationStore;
  toolCalls: ToolCallStore;
  hub: ReplyHub;
  pageSize: number;
}

/**
 * Windows opened away from the newest end: around a search match, and the pages below it.
 * Only the window is read, so a match far back in a 5,000-message chat opens as fast as the newest page.
 */
export function createMessageWindows({ store, toolCalls, hub, pageSize }: MessageWindowDependencies) {
  // A match is mostly read forward: fewer messages above it than below.
  const shownAbove = Math.floor(pageSize / 3);

  function toViews(conversationId: number, stored: StoredMessage[]): MessageView[] {
    const live = hub.active(conversationId);
    return stored.map((message) =>
      toMessageView(message, live?.messageId === message.id ? live : undefined, message.role === 'assistant' ? toolCalls.listForMessage(message.id) : undefined),
    );
  }

  const laterUrlOf = (conversationId: number, lastId: number) => `/c/${conversationId}/messages?after=${lastId}`;

  return {
    /** The page around `messageId`, or undefined when that message is not in this conversation. */
    around(conversationId: number, messageId: number): MessageWindow | undefined {
      // From the match on (one more than shown tells whether newer ones exist); ids are integers.
      const fromMatch = store.listMessagesAfter(conversationId, messageId - 1, pageSize - shownAbove + 1);
      if (fromMatch[0]?.id !== messageId) return undefined;
      const hasLater = fromMatch.length > pageSize - shownAbove;
      if (hasLater) fromMatch.pop();
      const above = store.listMessagesPage(conversationId, shownAbove + 1, messageId);
      const hasEarlier = above.length > shownAbove;
      if (hasEarlier) above.shift();
      const stored = [...above, ...fromMatch];
      return {
        messages: toViews(conversationId, stored),
        earlierUrl: hasEarlier ? `/c/${conversationId}/messages?before=${stored[0]!.id}` : undefined,
        laterUrl: hasLater ? laterUrlOf(conversationId, stored.at(-1)!.id) : undefined,
      };
    },

    /** The page just after `after`, with a loader below it while more exist. */
    after(conversationId: number, after: number): MessageWindow {
      const stored = store.listMessagesAfter(conversationId, after, pageSize + 1);
      const hasLater = stored.length > pageSize;
      if (hasLater) stored.pop();
      return {
        messages: toViews(conversationId, stored),
        earlierUrl: undefined,
        laterUrl: hasLater && stored.length > 0 ? laterUrlOf(conversationId, stored.at(-1)!.id) : undefined,
      };
    },
  };
}

export type MessageWindows = ReturnType<typeof createMessageWindows>;
