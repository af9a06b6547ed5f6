import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ChatModel } from '../../engine/llm/chat-model.js';
import type { ConversationStore } from '../../storage/conversation-store.js';
import { maxMessageCharacters, type ChatService } from '../../replies/chat-service.js';
import type { ChatReader } from './chat-reader.js';
import { fields, idParams, recordId, text } from '../http/request-schemas.js';
import { toHistoryItemView, toSearchItemView, type ChatView } from './chat-view.js';
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

const historyPageSize = 100;

export function registerChatRoutes(app: FastifyInstance, dependencies: ChatRoutesDependencies): void {
  const { store, hub, chatModel, chatService, view, reader } = dependencies;

  async function renderChatPage(request: FastifyRequest, reply: FastifyReply, conversationId?: number, at?: number, query = '') {
    const conversation = conversationId === undefined ? undefined : store.getConversation(conversationId);
    if (conversationId !== undefined && !conversation) {
      return reply.code(404).view('not-found', { title: 'Not found', message: 'That conversation does not exist (it may have been deleted).' });
    }
    const model = conversation?.model ?? (await chatService.defaultModel());
    const picker = await buildModelPicker(chatModel, model);
    // Opened from a search result: the page around that message (falls back to the newest page).
    const around = conversation && at !== undefined ? reader.around(conversation.id, at) : undefined;
    const page = around ?? (conversation ? { ...reader.messagePage(conversation.id), laterUrl: undefined } : { messages: [], earlierUrl: undefined, laterUrl: undefined });
    // The message it was opened at shows the searched words marked.
    const found = around && query ? around.messages.find((message) => message.id === at) : undefined;
    if (found) found.markedBody = markSearchWords(found.role === 'assistant' ? found.html : escapeText(found.content), query.slice(0, 200));
    return reply.view('chat', {
      title: conversation?.title ?? 'New chat',
      conversationId: conversation?.id,
      conversations: store.listConversations(historyPageSize).map((item) => toHistoryItemView(item, conversation?.id)),
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

  app.get('/', (request, reply) => renderChatPage(request, reply));

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
      return reply.view('partials/message-page', after === undefined ? reader.messagePage(id, before) : reader.after(id, after));
    },
  );

  app.get<{ Querystring: { q?: string } }>('/history', { schema: { querystring: fields({ q: text('search') }) } }, async (request, reply) => {
    const query = (request.query.q ?? '').trim().slice(0, 200);
    if (!query) {
      return reply.type('text/html').send(view.historyList(store.listConversations(historyPageSize).map((item) => toHistoryItemView(item))));
    }
    const items = [];
    const seen = new Set<number>();
    for (const hit of store.search(query, 50)) {
      if (seen.has(hit.conversationId)) continue;
      const conversation = store.getConversation(hit.conversationId);
      if (!conversation) continue;
      seen.add(hit.conversationId);
      items.push(toSearchItemView(hit, conversation, query));
    }
    return reply.type('text/html').send(view.historyList(items, query));
  });

  app.delete<{ Params: { id: number } }>('/c/:id', { schema: { params: idParams('conversation') } }, async (request, reply) => {
    const { id } = request.params;
    chatService.deleteConversation(id);
    // Deleting the chat that is open sends the page to a new chat.
    const current = String(request.headers['hx-current-url'] ?? '');
    if (new RegExp(`/c/${id}(?:[?#]|$)`).test(current)) reply.header('HX-Redirect', '/');
    return reply.type('text/html').send('');
  });
}
