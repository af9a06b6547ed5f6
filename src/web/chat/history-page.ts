import type { ConversationStore } from '../../storage/conversation-store.js';
import type { PersonalTime } from '../http/format-when.js';
import { historyPageSize, toHistoryItemView, type HistoryItemView } from './chat-view.js';

export interface HistoryPage {
  items: HistoryItemView[];
  /** The next page's address when there is one: it goes on under the last heading shown. */
  more: string | undefined;
}

/**
 * A page of the sidebar's chats (`page` 0 the newest) in the person's time, `currentId` marked.
 * The one place the list is built: the page, the list's own route and a new chat's socket swap.
 */
export function historyPage(
  store: Pick<ConversationStore, 'listConversations'>,
  time: PersonalTime,
  currentId?: number,
  page = 0,
  now = Date.now(),
): HistoryPage {
  const listed = store.listConversations(historyPageSize + 1, page * historyPageSize);
  const items = listed.slice(0, historyPageSize).map((item) => toHistoryItemView(item, currentId, time, now));
  const last = items.at(-1)?.group.key;
  const more = listed.length > historyPageSize && last ? `/history?page=${page + 1}&after=${encodeURIComponent(last)}` : undefined;
  return { items, more };
}
