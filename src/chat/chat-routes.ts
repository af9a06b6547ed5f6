import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ChatModel } from '../llm/chat-model.js';
import { LlmError } from '../llm/llm-error.js';
import type { ConversationStore } from '../storage/conversation-store.js';
import type { ToolCallStore } from '../storage/tool-call-store.js';
import { maxMessageCharacters, type ChatService } from './chat-service.js';
import { toHistoryItemView, toMessageView, toSearchItemView, type ChatView } from './chat-view.js';
import type { ReplyHub } from './reply-hub.js';

export interface ChatRoutesDependencies {
  store: ConversationStore;
  toolCalls: ToolCallStore;
  hub: ReplyHub;
  chatModel: ChatModel;
  chatService: ChatService;
  view: ChatView;
}

const historyPageSize = 100;

export function registerChatRoutes(app: FastifyInstance, dependencies: ChatRoutesDependencies): void {
  const { store, toolCalls, hub, chatModel, chatService, view } = dependencies;

  async function installedModels(): Promise<{ models: string[]; notice?: string }> {
    try {
      const models = await chatModel.listModels();
      if (models.length === 0) {
        return { models, notice: `Ollama at ${chatModel.host} has no models installed. Install one with: ollama pull llama3.2` };
      }
      return { models };
    } catch (error) {
      return { models: [], notice: error instanceof LlmError ? error.message : `Ollama at ${chatModel.host} could not be asked for its models.` };
    }
  }

  async function renderChatPage(request: FastifyRequest, reply: FastifyReply, conversationId?: number) {
    const conversation = conversationId === undefined ? undefined : store.getConversation(conversationId);
    if (conversationId !== undefined && !conversation) {
      return reply.code(404).view('not-found', { title: 'Not found', message: 'That conversation does not exist (it may have been deleted).' });
    }
    const { models, notice } = await installedModels();
    const model = conversation?.model ?? (await chatService.defaultModel());
    if (model && !models.includes(model)) models.unshift(model);
    const live = conversation && hub.active(conversation.id);
    const callsByMessage = conversation ? toolCalls.groupedByMessage(conversation.id) : undefined;
    const messages = conversation
      ? store
          .listMessages(conversation.id)
          .map((message) => toMessageView(message, live?.messageId === message.id ? live : undefined, callsByMessage?.get(message.id)))
      : [];
    return reply.view('chat', {
      title: conversation?.title ?? 'New chat',
      conversationId: conversation?.id,
      conversations: store.listConversations(historyPageSize).map((item) => toHistoryItemView(item, conversation?.id)),
      messages,
      models,
      model,
      notice,
      streaming: Boolean(live),
      maxMessageChars: maxMessageCharacters,
      csrfToken: reply.generateCsrf(),
    });
  }

  app.get('/', (request, reply) => renderChatPage(request, reply));

  app.get<{ Params: { id: string } }>('/c/:id', (request, reply) => {
    const id = Number(request.params.id);
    if (!Number.isSafeInteger(id) || id <= 0) {
      return reply.code(404).view('not-found', { title: 'Not found', message: 'That conversation does not exist.' });
    }
    return renderChatPage(request, reply, id);
  });

  app.get<{ Querystring: { q?: string } }>('/history', async (request, reply) => {
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
      items.push(toSearchItemView(hit, conversation));
    }
    return reply.type('text/html').send(view.historyList(items, query));
  });

  app.delete<{ Params: { id: string } }>('/c/:id', { preHandler: app.csrfProtection }, async (request, reply) => {
    const id = Number(request.params.id);
    chatService.stop(id);
    store.deleteConversation(id);
    // Deleting the chat that is open sends the page to a new chat.
    const current = String(request.headers['hx-current-url'] ?? '');
    if (new RegExp(`/c/${id}(?:[?#]|$)`).test(current)) reply.header('HX-Redirect', '/');
    return reply.type('text/html').send('');
  });
}
