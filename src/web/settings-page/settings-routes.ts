import type { FastifyInstance, FastifyReply } from 'fastify';
import { fields, text } from '../http/request-schemas.js';

/** The system prompt's template (the prompt builder provides it). */
export interface PromptTemplateFile {
  readonly defaultTemplate: string;
  readTemplate(): Promise<string>;
  saveTemplate(text: string): Promise<void>;
}

export interface SettingsRoutesDependencies {
  systemPrompt: PromptTemplateFile;
}

/** The /settings page: the system prompt's template, which the assistant gets with every message. */
export function registerSettingsRoutes(app: FastifyInstance, dependencies: SettingsRoutesDependencies): void {
  const { systemPrompt } = dependencies;

  async function renderPage(reply: FastifyReply, state: { notice?: string; error?: string; template?: string } = {}, status = 200) {
    return reply.code(status).view('settings', {
      title: 'Settings',
      template: state.template ?? (await systemPrompt.readTemplate()),
      notice: state.notice,
      error: state.error,
      csrfToken: reply.generateCsrf(),
    });
  }

  app.get<{ Querystring: { saved?: string } }>('/settings', { schema: { querystring: fields({ saved: text('notice') }) } }, (request, reply) =>
    renderPage(reply, { notice: request.query.saved === 'prompt' ? 'System prompt saved.' : undefined }),
  );

  const promptForm = fields({ template: text('system prompt', { default: '' }), reset: text('reset') });
  app.post<{ Body: { template: string; reset?: string } }>('/settings/prompt', { schema: { body: promptForm } }, async (request, reply) => {
    const template = request.body.reset ? systemPrompt.defaultTemplate : request.body.template;
    try {
      await systemPrompt.saveTemplate(template);
    } catch (error) {
      return renderPage(reply, { template, error: `The system prompt could not be saved: ${(error as Error).message}` }, 500);
    }
    return reply.redirect('/settings?saved=prompt', 303);
  });
}
