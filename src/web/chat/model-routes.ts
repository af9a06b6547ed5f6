import type { FastifyInstance } from 'fastify';
import type { ChatModel } from '../../engine/llm/chat-model.js';
import { shortModelName } from '../../providers/photos/vision-models.js';
import { ChatInputError } from '../../replies/chat-input-error.js';
import type { ChatService } from '../../replies/chat-service.js';
import { escapeText } from '../../engine/markdown/render-markdown.js';
import { fields, optionalRecordId, text } from '../http/request-schemas.js';
import type { ChatView } from './chat-view.js';
import { buildModelPicker } from './model-picker.js';

export interface ModelRoutesDependencies {
  chatModel: ChatModel;
  chatService: ChatService;
  view: ChatView;
}

interface ModelChoice {
  model: string;
  /** '' in a new chat. */
  conversationId?: number | '';
}

const choiceSchema = fields({ model: text('model', { default: '' }), conversationId: optionalRecordId('conversation') });

/**
 * Choosing a model: the picker posts each pick (the next new chat opens with it, and the open chat
 * keeps it), and a photo refusal's one-tap switch posts the model that can see.
 */
export function registerModelRoutes(app: FastifyInstance, dependencies: ModelRoutesDependencies): void {
  const { chatModel, chatService, view } = dependencies;

  async function choose(body: ModelChoice): Promise<string | undefined> {
    if (!body.model) return 'Pick a model first.';
    try {
      await chatService.chooseModel({ model: body.model, conversationId: body.conversationId || undefined });
      return undefined;
    } catch (error) {
      if (error instanceof ChatInputError) return error.message;
      throw error;
    }
  }

  app.post<{ Body: ModelChoice }>('/model-choice', { schema: { body: choiceSchema } }, async (request, reply) => {
    const problem = await choose(request.body);
    if (problem) return reply.code(400).type('text/plain').send(problem);
    return reply.code(204).send();
  });

  // The switch: the picker shows the new model, the composer's refusal goes, and the status line
  // says so; the photos and the typed text stay where they are, ready to send again.
  app.post<{ Body: ModelChoice }>('/model-switch', { schema: { body: choiceSchema } }, async (request, reply) => {
    const problem = await choose(request.body);
    if (problem) return reply.code(400).type('text/plain').send(problem);
    const picker = await buildModelPicker(chatModel, request.body.model);
    const said = `Now using ${shortModelName(request.body.model)}. Your photos are still there: send again.`;
    return reply
      .type('text/html')
      .send(
        `<hx-partial hx-target="#model-select" hx-swap="innerHTML">${view.modelOptions(picker, request.body.model)}</hx-partial>` +
          '<hx-partial hx-target="#photo-error" hx-swap="outerHTML"><p id="photo-error" class="photo-error chat-error" role="alert" hidden></p></hx-partial>' +
          `<hx-partial hx-target="#chat-status" hx-swap="innerHTML">${escapeText(said)}</hx-partial>`,
      );
  });
}
