import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ChatModel } from '../../engine/llm/chat-model.js';
import type { ConversationStore } from '../../storage/conversation-store.js';
import { maxMessageCharacters, type ChatService } from '../../replies/chat-service.js';
import type { ChatReader } from './chat-reader.js';
import { fields, idParams, recordId, text } from '../http/request-schemas.js';
import { groupHistory, toSearchItemView, type ChatView } from './chat-view.js';
import { historyPage } from './history-page.js';
import { personalTime } from '../http/format-when.js';
import { markSearchWords } from './search-marks.js';
import { escapeText } from '../../engine/markdown/render-markdown.js';
import type { ReplyHub } from '../../replies/reply-hub.js';
import { buildModelPicker } from './model-picker.js';

export interface ChatRoutesDependencies {
  /** Read only: every change goes through the chat service. */
  store: Pick<ConversationStore, 'getConversation' | 'listConversations' | 'search'>;
  hub: ReplyHub;
  chatModel: ChatModel;
  chatService: ChatService;
  view: ChatView;
  reader: ChatReader;
  /** Whether a Google account is connected: mail and calendar starters are offered only then. */
  hasGoogleAccount: () => boolean;
}


export function registerChatRoutes(app: FastifyInstance, dependencies: ChatRoutesDependencies): void {
  const { store, hub, chatModel, chatService, view, reader } = dependencies;

  /** Where Undo sends the person back to: the page they deleted from, when it is a chat page. */
  function pageOf(request: FastifyRequest): string {
    const path = /^[a-z]+:\/\/[^/]+(\/[^?#]*)/i.exec(String(request.headers['hx-current-url'] ?? ''))?.[1] ?? '/';
    return /^\/(?:c\/\d+)?$/.test(path) ? path : '/';
  }

  async function renderChatPage(request: FastifyRequest, reply: FastifyReply, conversationId?: number, at?: number, query = '', deletedId?: number) {
    const conversation = conversationId === undefined ? undefined : store.getConversation(conversationId);
    if (conversationId !== undefined && !conversation) {
      return reply.code(404).view('not-found', { title: 'Not found', message: 'That conversation does not exist (it may have been deleted).' });
    }
    const model = conversation?.model ?? (await chatService.defaultModel());
    const picker = await buildModelPicker(chatModel, model);
    // Opened from a search result: the page around that message (falls back to the newest page).
    const zoned = reader.inZone(personalTime(request));
    const around = conversation && at !== undefined ? zoned.around(conversation.id, at) : undefined;
    const page = around ?? (conversation ? { ...zoned.messagePage(conversation.id), laterUrl: undefined } : { messages: [], earlierUrl: undefined, laterUrl: undefined });
    // The message it was opened at shows the searched words marked.
    const found = around && query ? around.messages.find((message) => message.id === at) : undefined;
    if (found) found.markedBody = markSearchWords(found.role === 'assistant' ? found.html : escapeText(found.content), query.slice(0, 200));
    return reply.view('chat', {
      title: conversation?.title ?? 'New chat',
      conversationId: conversation?.id,
      history: (({ items, more }) => ({ groups: groupHistory(items), more }))(historyPage(store, personalTime(request), conversation?.id)),
      // Just deleted from its own page (the DELETE below sent the page here): Undo reopens it.
      undoDelete: deletedId !== undefined && chatService.restorableConversation(deletedId) ? { conversationId: deletedId, next: `/c/${deletedId}` } : undefined,
      messages: page.messages,
      earlierUrl: page.earlierUrl,
      laterUrl: page.laterUrl,
      highlightId: around ? at : undefined,
      modelGroups: picker.groups,
      noModels: picker.empty,
      noModelsLabel: picker.emptyLabel,
      model,
      notice: picker.notice,
      photoRefusal: picker.photoRefusal,
      photoModelNames: picker.photoModelNames,
      switchTo: picker.switchTo,
      streaming: Boolean(conversation && hub.active(conversation.id)),
      maxMessageChars: maxMessageCharacters,
      googleConnected: dependencies.hasGoogleAccount(),
      csrfToken: reply.generateCsrf(),
    });
  }

  app.get<{ Querystring: { deleted?: number } }>('/', { schema: { querystring: fields({ deleted: recordId('deleted conversation') }) } }, (request, reply) =>
    renderChatPage(request, reply, undefined, undefined, '', request.query.deleted),
  );

  app.get<{ Params: { id: number }; Querystring: { at?: number; q?: string } }>(
    '/c/:id',
    { schema: { params: idParams('conversation'), querystring: fields({ at: recordId('message'), q: text('searched words') }) } },
    (request, reply) => renderChatPage(request, reply, request.params.id, request.query.at, request.query.q),
  );

  // The page of messages before `before`, for the sentinel at the top of the thread; or, with
  // `after`, the page below a window opened at a search match, for the loader under the thread.
  app.get<{ Params: { id: number }; Querystring: { before?: number; after?: number } }>(
    '/c/:id/messages',
    { schema: { params: idParams('conversation'), querystring: fields({ before: recordId('message'), after: recordId('message') }) } },
    async (request, reply) => {
      const { id } = request.params;
      const { before, after } = request.query;
      if (after === undefined && before === undefined) return reply.code(400).type('text/plain').send('The address needs a message id: before= or after=.');
      if (!store.getConversation(id)) return reply.code(404).type('text/plain').send('That conversation does not exist.');
      const zoned = reader.inZone(personalTime(request));
      return reply.view('partials/message-page', after === undefined ? zoned.messagePage(id, before) : zoned.after(id, after));
    },
  );

  // The list, a page of it further down (`page`, going on under the heading `after`), or the chats a search finds.
  const historyQuery = fields({ q: text('search'), page: recordId('page'), after: text('group') });
  app.get<{ Querystring: { q?: string; page?: number; after?: string } }>('/history', { schema: { querystring: historyQuery } }, async (request, reply) => {
    const query = (request.query.q ?? '').trim().slice(0, 200);
    if (!query) {
      const { page = 0, after } = request.query;
      const currentId = Number(/^\/c\/(\d+)$/.exec(pageOf(request))?.[1]) || undefined;
      const { items, more } = historyPage(store, personalTime(request), currentId, page);
      return reply.type('text/html').send(view.historyList(items, '', page > 0 ? { more, after: after ?? '' } : { more }));
    }
    const time = personalTime(request);
    const now = Date.now();
    const items = [];
    const seen = new Set<number>();
    for (const hit of store.search(query, 50)) {
      if (seen.has(hit.conversationId)) continue;
      const conversation = store.getConversation(hit.conversationId);
      if (!conversation) continue;
      seen.add(hit.conversationId);
      items.push(toSearchItemView(hit, conversation, query, time, now));
    }
    return reply.type('text/html').send(view.historyList(items, query));
  });

  /*
   * Deleting a chat (the chat's own menu) hides it at once and offers Undo for a few seconds; the
   * chat service removes it for good after that. Deleting the chat that is open sends the page to
   * a new chat, which shows the Undo; from another page, its item leaves the list and the Undo
   * appears there. Nothing else is swapped (HX-Reswap: none), whatever the button asked for.
   */
  app.delete<{ Params: { id: number } }>('/c/:id', { schema: { params: idParams('conversation') } }, async (request, reply) => {
    const { id } = request.params;
    chatService.deleteConversation(id);
    const page = pageOf(request);
    if (page === `/c/${id}`) return reply.header('HX-Redirect', `/?deleted=${id}`).type('text/html').send('');
    if (!chatService.restorableConversation(id)) return reply.header('HX-Reswap', 'none').type('text/html').send('');
    const notice = view.undoDelete({ conversationId: id, next: page, csrfToken: reply.generateCsrf() });
    return reply
      .header('HX-Reswap', 'none')
      .type('text/html')
      .send(`<hx-partial hx-target="#history-item-${id}" hx-swap="delete"></hx-partial><hx-partial hx-target="#undo-area" hx-swap="innerHTML">${notice}</hx-partial>`);
  });

  // Undo: a plain form (works without JavaScript); back to the page it was deleted from, the chat in its place.
  app.post<{ Params: { id: number }; Body: { next?: string } }>(
    '/c/:id/restore',
    { schema: { params: idParams('conversation'), body: fields({ next: text('page to return to') }) } },
    async (request, reply) => {
      const { id } = request.params;
      if (!chatService.restoreConversation(id)) {
        return reply.code(404).view('not-found', { title: 'Not found', message: 'That chat can no longer be brought back: it was deleted for good.' });
      }
      const next = request.body.next ?? '';
      return reply.redirect(/^\/(?:c\/\d+)?$/.test(next) ? next : `/c/${id}`, 303);
    },
  );
}
