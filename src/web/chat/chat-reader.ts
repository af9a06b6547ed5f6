import type { AttachmentStore } from '../../storage/attachment-store.js';
import type { ConversationStore, StoredMessage } from '../../storage/conversation-store.js';
import type { ToolCallStore } from '../../storage/tool-call-store.js';
import { toMessageView, toToolCallView, type ChatView, type MessageView } from './chat-view.js';
import type { ReplyHub } from '../../replies/reply-hub.js';
import type { ToolRegistry } from '../../engine/tools/tool-registry.js';
import { timeIn, type PersonalTime } from '../http/format-when.js';

export interface ChatReaderDependencies {
  store: Pick<ConversationStore, 'getMessage' | 'listMessagesAfter' | 'listMessagesFrom' | 'listMessagesPage' | 'versionsOfMessages'>;
  toolCalls: Pick<ToolCallStore, 'get' | 'listForMessages'>;
  hub: ReplyHub;
  view: ChatView;
  attachments: Pick<AttachmentStore, 'listForMessages'>;
  /** The tools, by name: each card is worded by its tool. */
  tools: Pick<ToolRegistry, 'named'>;
}

/** Messages a chat opens with, and how many each scroll to the top adds above them. */
export const messagePageSize = 40;

export interface MessagePage {
  messages: MessageView[];
  /** The address of the page before this one, when older messages exist. */
  earlierUrl: string | undefined;
}

/** A slice that need not end at the newest message (opened at a search match), with the loader below it. */
export interface MessageWindow extends MessagePage {
  /** Set while newer messages exist below the window: the page then is not at the newest end. */
  laterUrl: string | undefined;
}

/** Most messages a re-rendered thread keeps for the page that switched a version (10 pages): past that, the window around the switch. */
const maxKeptMessages = messagePageSize * 10;

/** One message a reconnecting page missed: `replace` when the page shows it already (it may have changed). */
export interface CatchUpItem {
  messageId: number;
  replace: boolean;
  html: string;
}

/**
 * The chat as the person sees it: the one place that turns stored messages, live reply text and
 * tool calls into views and HTML, for the page routes and the socket alike. Message times are
 * written in `time`'s zone (the server's unless given): `inZone` gives the reader of a person's.
 */
export function createChatReader(dependencies: ChatReaderDependencies, time: PersonalTime = timeIn()) {
  const { store, toolCalls, hub, view, attachments, tools } = dependencies;
  const toolByName = (name: string) => tools.named(name);

  /**
   * Stored messages with the live text of the reply writing into one of them, if any, their tool
   * cards, the person's photos and their versions (messages of one conversation). Photos, tool
   * cards and versions are read for all of them at once: a page costs the same few queries.
   */
  function toViews(messages: StoredMessage[]): MessageView[] {
    const idsOf = (role: StoredMessage['role']) => messages.filter((message) => message.role === role).map((message) => message.id);
    const photos = attachments.listForMessages(idsOf('user'));
    const calls = toolCalls.listForMessages(idsOf('assistant'));
    const versionsById = store.versionsOfMessages(messages);
    const live = messages[0] && hub.active(messages[0].conversationId);
    return messages.map((message) => {
      const view = toMessageView(message, live?.messageId === message.id ? live : undefined, calls.get(message.id), photos.get(message.id), toolByName, time);
      const versions = versionsById.get(message.id);
      if (versions && versions.ids.length > 1) view.versions = { position: versions.index + 1, count: versions.ids.length };
      return view;
    });
  }

  const toView = (message: StoredMessage): MessageView => toViews([message])[0]!;
  const earlierUrlOf = (conversationId: number, firstId: number) => `/c/${conversationId}/messages?before=${firstId}`;
  const laterUrlOf = (conversationId: number, lastId: number) => `/c/${conversationId}/messages?after=${lastId}`;
  // A search match is mostly read forward: fewer messages above it than below.
  const shownAboveMatch = Math.floor(messagePageSize / 3);

  /**
   * The newest messages (or those just before `before`), with their tool cards. Only this page is
   * read: a long chat opens as fast as a short one.
   */
  function messagePage(conversationId: number, before?: number): MessagePage {
    // One more than shown tells whether older messages exist.
    return pageOf(conversationId, store.listMessagesPage(conversationId, messagePageSize + 1, before));
  }

  /** A page from up to one row more than a page (the extra, oldest row says earlier messages exist). */
  function pageOf(conversationId: number, rows: StoredMessage[]): MessagePage {
    const hasEarlier = rows.length > messagePageSize;
    const stored = hasEarlier ? rows.slice(1) : rows;
    return { messages: toViews(stored), earlierUrl: hasEarlier ? earlierUrlOf(conversationId, stored[0]!.id) : undefined };
  }

  /**
   * The page around `messageId` (a search match), or undefined when that message is not shown in
   * this conversation. Only the window is read, so a match far back opens as fast as the newest page.
   */
  function around(conversationId: number, messageId: number): MessageWindow | undefined {
    // From the match on (one more than shown tells whether newer ones exist); ids are integers.
    const fromMatch = store.listMessagesAfter(conversationId, messageId - 1, messagePageSize - shownAboveMatch + 1);
    if (fromMatch[0]?.id !== messageId) return undefined;
    const hasLater = fromMatch.length > messagePageSize - shownAboveMatch;
    if (hasLater) fromMatch.pop();
    const above = store.listMessagesPage(conversationId, shownAboveMatch + 1, messageId);
    const hasEarlier = above.length > shownAboveMatch;
    if (hasEarlier) above.shift();
    const stored = [...above, ...fromMatch];
    return {
      messages: toViews(stored),
      earlierUrl: hasEarlier ? earlierUrlOf(conversationId, stored[0]!.id) : undefined,
      laterUrl: hasLater ? laterUrlOf(conversationId, stored.at(-1)!.id) : undefined,
    };
  }

  /** The page just after `after`, with a loader below it while more exist. */
  function after(conversationId: number, afterId: number): MessageWindow {
    const stored = store.listMessagesAfter(conversationId, afterId, messagePageSize + 1);
    const hasLater = stored.length > messagePageSize;
    if (hasLater) stored.pop();
    return {
      messages: toViews(stored),
      earlierUrl: undefined,
      laterUrl: hasLater && stored.length > 0 ? laterUrlOf(conversationId, stored.at(-1)!.id) : undefined,
    };
  }

  /** One message as HTML, as it is now (live text while it streams); undefined when it is gone. */
  function messageHtml(messageId: number): string | undefined {
    const message = store.getMessage(messageId);
    return message && view.message(toView(message));
  }

  function toolCardHtml(toolCallId: number): string | undefined {
    const call = toolCalls.get(toolCallId);
    return call && view.toolCard(toToolCallView(call, toolByName(call.name)));
  }

  /**
   * What the page that switched a version showed, from `shownFrom` (its first message) down to the
   * switch at `fromId`, then the rest of the thread, or a page of it below the switch when it is
   * long: the earlier pages the person loaded stay. Undefined when that is more than 10 pages or
   * `shownFrom` is not a shown message above the switch.
   */
  function keptWindow(conversationId: number, fromId: number, shownFrom: number): MessageWindow | undefined {
    const below = messagePageSize - shownAboveMatch;
    const rows = store.listMessagesFrom(conversationId, shownFrom, maxKeptMessages + below + 1);
    const at = rows.findIndex((message) => message.id === fromId);
    if (rows[0]?.id !== shownFrom || at === -1 || at >= maxKeptMessages) return undefined;
    // A thread that ends soon is shown to its end, so the page stays at the newest end.
    const end = rows.length <= maxKeptMessages ? rows.length : at + below;
    const stored = rows.slice(0, end);
    const hasEarlier = store.listMessagesPage(conversationId, 1, shownFrom).length > 0;
    return {
      messages: toViews(stored),
      earlierUrl: hasEarlier ? earlierUrlOf(conversationId, shownFrom) : undefined,
      laterUrl: rows.length > end ? laterUrlOf(conversationId, stored.at(-1)!.id) : undefined,
    };
  }

  /**
   * The thread as HTML, for #chat-thread after its shape changed: the newest page, or, when the
   * change was above it (`fromId`, a version of an older message), the window around that message
   * (as a search match opens), so the person stays where they changed it however far up it was;
   * the loaders above and below bring the rest as they scroll. The page that made the change says
   * its first message (`shownFrom`): it keeps what it showed above the change (keptWindow).
   */
  function threadHtml(conversationId: number, fromId?: number, shownFrom?: number): string {
    if (fromId !== undefined && shownFrom !== undefined && shownFrom <= fromId) {
      const kept = keptWindow(conversationId, fromId, shownFrom);
      if (kept) return view.messagePage(kept);
    }
    // Rows first, views once: the newest page is only built when it is what gets shown.
    const newest = store.listMessagesPage(conversationId, messagePageSize + 1);
    const oldestShown = newest.length > messagePageSize ? newest[1]!.id : undefined;
    if (fromId !== undefined && oldestShown !== undefined && fromId < oldestShown) {
      const window = around(conversationId, fromId);
      if (window) return view.messagePage(window);
    }
    return view.messagePage(pageOf(conversationId, newest));
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
    const items = toViews(store.listMessagesFrom(conversationId, from)).map((message) => ({
      messageId: message.id,
      replace: message.id === from,
      html: view.message(message),
    }));
    return { items };
  }

  /** The same reader, with the times in the person's zone. */
  const inZone = (personal: PersonalTime) => createChatReader(dependencies, personal);

  return { messagePage, around, after, messageHtml, toolCardHtml, threadHtml, catchUp, inZone };
}

export type ChatReader = ReturnType<typeof createChatReader>;
