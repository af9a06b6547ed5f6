import type { FastifyInstance } from 'fastify';
import { maxMessageCharacters } from '../../replies/chat-service.js';
import type { ConversationStore } from '../../storage/conversation-store.js';
import { idParams } from '../http/request-schemas.js';
import type { ChatView } from './chat-view.js';

export interface MessageEditorRoutesDependencies {
  store: Pick<ConversationStore, 'getMessage'>;
  view: Pick<ChatView, 'messageEditor'>;
}

/**
 * GET /messages/:id/editor: the inline editor that Edit puts under one of the person's messages,
 * holding its text (pages do not carry every message's text twice). Register inside the logged-in scope.
 */
export function registerMessageEditorRoutes(app: FastifyInstance, { store, view }: MessageEditorRoutesDependencies): void {
  app.get<{ Params: { id: number } }>('/messages/:id/editor', { schema: { params: idParams('message') } }, async (request, reply) => {
    const message = store.getMessage(request.params.id);
    if (!message || message.role !== 'user') {
      return reply.code(404).type('text/plain; charset=utf-8').send('That message does not exist (it may have been deleted).');
    }
    const html = view.messageEditor({ id: message.id, content: message.content, maxLength: maxMessageCharacters });
    return reply.type('text/html; charset=utf-8').send(html);
  });
}
