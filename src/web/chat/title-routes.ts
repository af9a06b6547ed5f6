import type { FastifyInstance } from 'fastify';
import { ChatInputError } from '../../replies/chat-input-error.js';
import type { ChatService } from '../../replies/chat-service.js';
import { fields, idParams, text } from '../http/request-schemas.js';

export interface TitleRoutesDependencies {
  chatService: Pick<ChatService, 'renameConversation'>;
}

/**
 * Renaming a chat. Answers JSON (the header's script updates the page from it), and a form
 * post without JavaScript is sent back to the chat. The schema says the title is text; how long
 * and whether empty is the chat service's to say, in its own words.
 */
export function registerTitleRoutes(app: FastifyInstance, { chatService }: TitleRoutesDependencies): void {
  app.post<{ Params: { id: number }; Body: { title: string } }>(
    '/c/:id/title',
    { schema: { params: idParams('conversation'), body: fields({ title: text('title') }, ['title']) } },
    async (request, reply) => {
      const wantsJson = !/text\/html/.test(String(request.headers.accept ?? ''));
      let renamed: { id: number; title: string } | undefined;
      try {
        renamed = chatService.renameConversation(request.params.id, request.body.title);
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
