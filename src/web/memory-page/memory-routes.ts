import type { FastifyInstance, FastifyReply } from 'fastify';
import { formatWhen } from '../http/format-when.js';
import { fields, idParams, text } from '../http/request-schemas.js';
import type { MemoryFile, MemorySnapshot } from '../../providers/memory/memory-file.js';

/** The system prompt's template, edited on the same page (the prompt builder provides it). */
export interface PromptTemplateFile {
  readonly defaultTemplate: string;
  readTemplate(): Promise<string>;
  saveTemplate(text: string): Promise<void>;
}

export interface MemoryRoutesDependencies {
  memory: MemoryFile;
  systemPrompt: PromptTemplateFile;
}

interface MemoryPageState {
  /** What the editor shows: the file, or the person's unsaved text after a conflict. */
  editorText?: string;
  notice?: string;
  error?: string;
  conflict?: MemorySnapshot;
}

const preview = (text: string) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 140 ? `${line.slice(0, 139)}…` : line || '(empty)';
};

/** The /memory page: edit memory.md, see and restore every version, edit the system prompt. */
export function registerMemoryRoutes(app: FastifyInstance, dependencies: MemoryRoutesDependencies): void {
  const { memory, systemPrompt } = dependencies;

  async function renderPage(reply: FastifyReply, state: MemoryPageState = {}, status = 200) {
    let snapshot: MemorySnapshot | undefined;
    let readError: string | undefined;
    try {
      snapshot = await memory.read();
    } catch (error) {
      readError = (error as Error).message;
    }
    const versions = memory.versions(50).map((version) => ({
      id: version.id,
      author: version.author,
      when: formatWhen(version.createdAt),
      preview: preview(version.content),
      bytes: Buffer.byteLength(version.content, 'utf8'),
    }));
    return reply.code(status).view('memory', {
      title: 'Memory',
      file: memory.file,
      maxBytes: memory.maxBytes,
      snapshot,
      editorText: state.editorText ?? snapshot?.content ?? '',
      notice: state.notice,
      error: state.error ?? readError,
      conflict: state.conflict,
      versions,
      template: await systemPrompt.readTemplate(),
      csrfToken: reply.generateCsrf(),
    });
  }

  app.get<{ Querystring: { saved?: string } }>('/memory', { schema: { querystring: fields({ saved: text('notice') }) } }, (request, reply) => {
    const notices: Record<string, string> = { memory: 'Memory saved.', unchanged: 'Nothing changed: the memory already says exactly this.', restored: 'Version restored.', prompt: 'System prompt saved.' };
    return renderPage(reply, { notice: notices[request.query.saved ?? ''] });
  });

  // The content is required: a post without it would otherwise empty the memory.
  const memoryForm = fields({ content: text('memory text'), revision: text('revision') }, ['content']);
  app.post<{ Body: { content: string; revision?: string } }>('/memory', { schema: { body: memoryForm } }, async (request, reply) => {
    const { content, revision } = request.body;
    const result = await memory.write(content, 'browser', revision || undefined);
    if (result.ok) return reply.redirect(result.unchanged ? '/memory?saved=unchanged' : '/memory?saved=memory', 303);
    if (result.reason === 'changed') {
      return renderPage(
        reply,
        {
          editorText: content,
          conflict: result.snapshot,
          error: 'The memory changed since you opened this page (the assistant or an editor wrote to it). Your text is still in the editor; compare it with the current memory below, then save again.',
        },
        409,
      );
    }
    return renderPage(reply, { editorText: content, error: result.message }, 500);
  });

  app.post<{ Params: { id: number } }>('/memory/versions/:id/restore', { schema: { params: idParams('version') } }, async (request, reply) => {
    const version = memory.version(request.params.id);
    if (!version) return renderPage(reply, { error: 'That version does not exist.' }, 404);
    const result = await memory.write(version.content, 'restore');
    if (!result.ok) return renderPage(reply, { error: result.message }, 500);
    return reply.redirect('/memory?saved=restored', 303);
  });

  const promptForm = fields({ template: text('system prompt', { default: '' }), reset: text('reset') });
  app.post<{ Body: { template: string; reset?: string } }>('/memory/prompt', { schema: { body: promptForm } }, async (request, reply) => {
    const template = request.body.reset ? systemPrompt.defaultTemplate : request.body.template;
    try {
      await systemPrompt.saveTemplate(template);
    } catch (error) {
      return renderPage(reply, { error: `The system prompt could not be saved: ${(error as Error).message}` }, 500);
    }
    return reply.redirect('/memory?saved=prompt', 303);
  });
}
