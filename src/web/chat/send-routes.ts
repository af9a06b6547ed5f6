import type { FastifyInstance } from 'fastify';
import { attachmentIdsSchema, parseAttachmentIds } from './attachment-ids.js';
import { ChatInputError } from '../../replies/chat-input-error.js';
import type { ChatService } from '../../replies/chat-service.js';
import { fields, optionalRecordId, text } from '../http/request-schemas.js';

export interface SendRoutesDependencies {
  chatService: ChatService;
}

interface SendForm {
  message: string;
  /** '' in a new chat (the form's hidden field is empty). */
  conversationId?: number | '';
  model?: string;
  attachments?: string | string[];
  /** "off": a thinking model answers without thinking (the composer's switch). */
  think?: string;
}

/** The chat form's fields, as the page posts them (the socket's `send` command has the same). */
export const sendFields = {
  message: text('message', { default: '' }),
  conversationId: optionalRecordId('conversation'),
  model: text('model'),
  attachments: attachmentIdsSchema,
  think: text('thinking switch'),
};

/**
 * The chat form without JavaScript (or before its socket is open): a plain POST saves the
 * message, starts the reply and sends the page to the conversation, where the reply shows as
 * on any reload. The same service as the socket's `send`, so both paths behave alike.
 */
export function registerSendRoutes(app: FastifyInstance, dependencies: SendRoutesDependencies): void {
  const { chatService } = dependencies;

  app.post<{ Body: SendForm }>('/send', { schema: { body: fields(sendFields) } }, async (request, reply) => {
    const body = request.body;
    const conversationId = body.conversationId || undefined;
    try {
      const { conversation } = await chatService.sendMessage({
        conversationId,
        text: body.message,
        model: body.model || undefined,
        attachmentIds: parseAttachmentIds(body.attachments),
        ...(body.think === 'off' ? { think: false } : {}),
      });
      return reply.redirect(`/c/${conversation.id}`, 303);
    } catch (error) {
      const known = error instanceof ChatInputError;
      if (!known) request.log.error({ err: error }, 'sending a message from the form failed');
      const reason = known ? error.message : 'The message could not be saved. Nothing was sent; try again.';
      // The text is shown back so it is never lost, with a way back to the chat.
      const back = conversationId === undefined ? '/' : `/c/${conversationId}`;
      return reply.code(known ? 400 : 500).view('send-failed', {
        title: 'Message not sent',
        message: reason,
        unsentText: body.message,
        backUrl: back,
      });
    }
  });
}
