import type { ConversationStore } from '../../src/storage/conversation-store.js';

/** Adds `count` turns, "line 1" (the person) to "line N", alternating with replies; their ids in order. */
export function addNumberedLines(store: Pick<ConversationStore, 'addMessage'>, conversationId: number, count: number): number[] {
  const ids: number[] = [];
  for (let index = 1; index <= count; index++) ids.push(store.addMessage(conversationId, index % 2 ? 'user' : 'assistant', `line ${index}`).id);
  return ids;
}
