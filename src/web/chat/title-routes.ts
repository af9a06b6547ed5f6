import type { FastifyInstance } from 'fastify';
import { ChatInputError } from '../../replies/chat-input-error.js';
import type { ChatService } from '../../replies/chat-service.js';
import { parseRecordId } from '../http/record-id.js';

export interface TitleRoutesDependencies {
  chatService: Pick<ChatService, 'renameConversation'>;
}

/**
 * Renaming a chat. Answers JSON (the header's script updates the page from it), and a form
 * post without JavaScript is sent back to the chat.
 */
export function registerTitleRoutes(app: FastifyInstance, { chatService }: TitleRoutesDependencies): void {
  app.post<{ Params: { id: string }; Body: { title?: unknown } | undefined }>(
    '/c/:id/title',
    { preHandler: app.csrfProtection },
    async (request, reply) => {
      const id = parseRecordId(request.params.id);
      const wantsJson = !/text\/html/.test(String(request.headers.accept ?? ''));
      let renamed: { id: number; title: string } | undefined;
      try {
        renamed = id === undefined ? undefined : chatService.renameConversation(id, request.body?.title);
      } catch (error) {
        if (error instanceof ChatInputError) return reply.code(400).send({ error: error.message });
        throw error;
      }
      if (!renamed) return reply.code(404).send({ error: 'That conversation does not exist (it may have been deleted).' });
      if (!wantsJson) return reply.redirect(`/c/${renamed.id}`, 303);
      return reply.send(renamed);
    },
  );
}
