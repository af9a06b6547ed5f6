import type { FastifyInstance } from 'fastify';
import type { ConversationStore } from '../../storage/conversation-store.js';
import { parseRecordId } from '../http/record-id.js';

export const maxTitleCharacters = 120;

export interface TitleRoutesDependencies {
  store: ConversationStore;
}

/** The person's title, trimmed with inner runs of white space made one space; or the reason it cannot be one. */
export function parseTitle(value: unknown): { title: string } | { problem: string } {
  if (typeof value !== 'string') return { problem: 'Send the new title as text.' };
  const title = value.replace(/\s+/g, ' ').trim();
  if (title.length === 0) return { problem: 'The title cannot be empty.' };
  const length = [...title].length;
  if (length > maxTitleCharacters) return { problem: `The title is ${length} characters long; the limit is ${maxTitleCharacters}.` };
  return { title };
}

/**
 * Renaming a chat. Answers JSON (the header's script updates the page from it), and a form
 * post without JavaScript is sent back to the chat.
 */
export function registerTitleRoutes(app: FastifyInstance, { store }: TitleRoutesDependencies): void {
  app.post<{ Params: { id: string }; Body: { title?: unknown } | undefined }>(
    '/c/:id/title',
    { preHandler: app.csrfProtection },
    async (request, reply) => {
      const id = parseRecordId(request.params.id);
      const wantsJson = !/text\/html/.test(String(request.headers.accept ?? ''));
      const conversation = id === undefined ? undefined : store.getConversation(id);
      if (!conversation) return reply.code(404).send({ error: 'That conversation does not exist (it may have been deleted).' });
      const parsed = parseTitle(request.body?.title);
      if ('problem' in parsed) return reply.code(400).send({ error: parsed.problem });
      store.renameConversation(conversation.id, parsed.title);
      if (!wantsJson) return reply.redirect(`/c/${conversation.id}`, 303);
      return reply.send({ id: conversation.id, title: parsed.title });
    },
  );
}
