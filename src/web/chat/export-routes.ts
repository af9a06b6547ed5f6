import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ConversationStore } from '../../storage/conversation-store.js';
import type { ToolCallStore } from '../../storage/tool-call-store.js';
import type { AttachmentStore } from '../../storage/attachment-store.js';
import { conversationExport, conversationMarkdown } from './conversation-export.js';
import { idParams } from '../http/request-schemas.js';

export interface ExportRoutesDependencies {
  store: Pick<ConversationStore, 'getConversation' | 'getMessage' | 'listMessages'>;
  toolCalls: Pick<ToolCallStore, 'listForConversation'>;
  attachments: Pick<AttachmentStore, 'listForConversation'>;
}

/** A file name from the title: ASCII letters and digits only, so no header can be bent by it. */
function fileName(id: number, title: string, extension: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .toLowerCase();
  return `hearth-conversation-${id}${slug ? `-${slug}` : ''}.${extension}`;
}

/**
 * GET /c/:id/export.md and /c/:id/export.json: the conversation as a download; GET /messages/:id/markdown:
 * one message's Markdown (register inside the logged-in scope).
 */
export function registerExportRoutes(app: FastifyInstance, dependencies: ExportRoutesDependencies): void {
  const { store, toolCalls, attachments } = dependencies;

  function exportOf(id: number, reply: FastifyReply) {
    const conversation = store.getConversation(id);
    if (!conversation) {
      void reply.code(404).view('not-found', { title: 'Not found', message: 'That conversation does not exist (it may have been deleted).' });
      return undefined;
    }
    const { id: conversationId } = conversation;
    return conversationExport(conversation, store.listMessages(conversationId), toolCalls.listForConversation(conversationId), attachments.listForConversation(conversationId));
  }

  const download = (reply: FastifyReply, name: string, type: string, body: string) =>
    reply
      .header('Content-Disposition', `attachment; filename="${name}"`)
      .header('Cache-Control', 'no-store')
      .type(type)
      .send(body);

  const conversationParams = { schema: { params: idParams('conversation') } };

  app.get<{ Params: { id: number } }>('/c/:id/export.md', conversationParams, async (request, reply) => {
    const exported = exportOf(request.params.id, reply);
    if (!exported) return reply;
    return download(reply, fileName(exported.conversation.id, exported.conversation.title, 'md'), 'text/markdown; charset=utf-8', conversationMarkdown(exported));
  });

  // One message's Markdown, for Copy: fetched when asked instead of sent twice in every page.
  app.get<{ Params: { id: number } }>('/messages/:id/markdown', { schema: { params: idParams('message') } }, async (request, reply) => {
    const message = store.getMessage(request.params.id);
    // A message of a deleted chat is gone with it, even in the seconds it can still be restored.
    if (!message || !store.getConversation(message.conversationId)) return reply.code(404).type('text/plain; charset=utf-8').send('That message does not exist (it may have been deleted).');
    return reply.header('Cache-Control', 'no-store').type('text/markdown; charset=utf-8').send(message.content);
  });

  app.get<{ Params: { id: number } }>('/c/:id/export.json', conversationParams, async (request, reply) => {
    const exported = exportOf(request.params.id, reply);
    if (!exported) return reply;
    return download(reply, fileName(exported.conversation.id, exported.conversation.title, 'json'), 'application/json; charset=utf-8', JSON.stringify(exported, null, 2) + '\n');
  });
}
