import type { FastifyInstance, FastifyReply } from 'fastify';
import { ChatInputError } from '../../replies/chat-input-error.js';
import type { ChatService } from '../../replies/chat-service.js';
import type { Conversation } from '../../storage/conversation-store.js';
import { fields, idParams, text } from '../http/request-schemas.js';
import { personalTime } from '../http/format-when.js';
import { toHistoryItemView, type ChatView } from './chat-view.js';

export interface TitleRoutesDependencies {
  chatService: Pick<ChatService, 'renameConversation'>;
  store: { getConversation(id: number): Conversation | undefined };
  view: Pick<ChatView, 'chatTitle' | 'historyItem'>;
}

/**
 * Renaming a chat. The page's form posts through htmx and gets the header's title back as HTML
 * (with the tab's title and the sidebar's item as partials), or the form again with what was
 * wrong; a JSON client gets JSON, and a form post without JavaScript is sent back to the chat.
 * The schema says the title is text; how long and whether empty is the chat service's to say.
 */
export function registerTitleRoutes(app: FastifyInstance, { chatService, store, view }: TitleRoutesDependencies): void {
  app.post<{ Params: { id: number }; Body: { title: string } }>(
    '/c/:id/title',
    { schema: { params: idParams('conversation'), body: fields({ title: text('title') }, ['title']) } },
    async (request, reply) => {
      const accept = String(request.headers.accept ?? '');
      const fromPage = request.headers['hx-request'] === 'true' && /text\/html/.test(accept);
      const wantsJson = !/text\/html/.test(accept);
      const { id } = request.params;
      const refuse = (status: number, error: string): FastifyReply => {
        if (!fromPage) return reply.code(status).send({ error });
        const title = store.getConversation(id)?.title ?? 'New chat';
        return reply.code(status).type('text/html; charset=utf-8').send(view.chatTitle({ title, conversationId: id, typed: request.body.title, error }));
      };
      let renamed: { id: number; title: string } | undefined;
      try {
        renamed = chatService.renameConversation(id, request.body.title);
      } catch (error) {
        if (error instanceof ChatInputError) return refuse(400, error.message);
        throw error;
      }
      if (!renamed) return refuse(404, 'That conversation does not exist (it may have been deleted).');
      if (fromPage) {
        const conversation = store.getConversation(renamed.id);
        const item = conversation ? view.historyItem(toHistoryItemView(conversation, renamed.id, personalTime(request))) : '';
        const itemPartial = item ? `<hx-partial hx-target="#history-item-${renamed.id}" hx-swap="outerHTML">${item}</hx-partial>` : '';
        return reply.type('text/html; charset=utf-8').send(view.chatTitle({ title: renamed.title, conversationId: renamed.id, retitle: true }) + itemPartial);
      }
      if (!wantsJson) return reply.redirect(`/c/${renamed.id}`, 303);
      return reply.send(renamed);
    },
  );
}
