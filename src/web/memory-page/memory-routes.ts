import type { FastifyInstance, FastifyReply } from 'fastify';
import { formatWhen } from '../http/format-when.js';
import { fields, idParams, text } from '../http/request-schemas.js';
import type { MemoryFile, MemorySnapshot } from '../../providers/memory/memory-file.js';
import { changeMemoryList, memoryPercentFull, readMemoryEntries, type MemoryEntry, type MemoryListChange } from '../../providers/memory/memory-list.js';

export interface MemoryRoutesDependencies {
  memory: MemoryFile;
}

interface MemoryPageState {
  /** What the whole-file editor shows: the file, or the person's unsaved text after a conflict. */
  editorText?: string;
  notice?: string;
  error?: string;
  conflict?: MemorySnapshot;
  /** The whole file is open (after a problem with it, so the person sees their text). */
  fileOpen?: boolean;
}

/** How full the memory would be with `content` (a browser posts line ends as \r\n; the file stores \n). */
function editorFullness(content: string, maxBytes: number): { percent: number; over: boolean } {
  const bytes = Buffer.byteLength(content.replace(/\r\n/g, '\n'));
  return { percent: memoryPercentFull(bytes, maxBytes), over: bytes > maxBytes };
}

const preview = (text: string) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 140 ? `${line.slice(0, 139)}…` : line || '(empty)';
};

/** How full the memory is, in words a person reads at a glance. */
function describeFullness(snapshot: MemorySnapshot | undefined): string {
  if (!snapshot || snapshot.bytes === 0) return 'Memory is empty.';
  const percent = memoryPercentFull(snapshot.bytes, snapshot.maxBytes);
  if (snapshot.overCap) return `Memory is over its limit (${percent}% full): only the first part reaches the assistant. Remove or shorten something.`;
  return `Memory is ${percent}% full.`;
}

const notices: Record<string, string> = {
  memory: 'Memory saved.',
  unchanged: 'Nothing changed: the memory already says exactly this.',
  restored: 'Version restored.',
  added: 'Added.',
  edited: 'Changed.',
  removed: 'Removed. Past versions below can bring it back.',
};

/** The /memory page: what the assistant remembers as a list, the whole file, and every version. */
export function registerMemoryRoutes(app: FastifyInstance, dependencies: MemoryRoutesDependencies): void {
  const { memory } = dependencies;

  async function renderPage(reply: FastifyReply, state: MemoryPageState = {}, status = 200) {
    let snapshot: MemorySnapshot | undefined;
    let readError: string | undefined;
    try {
      snapshot = await memory.read();
    } catch (error) {
      readError = (error as Error).message;
    }
    const entries: MemoryEntry[] = snapshot ? await readMemoryEntries(snapshot.content) : [];
    const versions = memory.versions(50).map((version) => ({
      id: version.id,
      author: version.author,
      when: formatWhen(version.createdAt),
      preview: preview(version.content),
    }));
    return reply.code(status).view('memory', {
      title: 'Memory',
      maxBytes: memory.maxBytes,
      snapshot,
      entries,
      fullness: describeFullness(snapshot),
      percentFull: snapshot ? Math.min(100, memoryPercentFull(snapshot.bytes, memory.maxBytes)) : 0,
      editorText: state.editorText ?? snapshot?.content ?? '',
      editorSize: editorFullness(state.editorText ?? snapshot?.content ?? '', memory.maxBytes),
      fileOpen: Boolean(state.fileOpen || state.conflict),
      notice: state.notice,
      error: state.error ?? readError,
      conflict: state.conflict,
      versions,
      csrfToken: reply.generateCsrf(),
    });
  }

  app.get<{ Querystring: { saved?: string } }>('/memory', { schema: { querystring: fields({ saved: text('notice') }) } }, (request, reply) =>
    renderPage(reply, { notice: notices[request.query.saved ?? ''] }),
  );

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
    return renderPage(reply, { editorText: content, error: result.message, fileOpen: true }, 500);
  });

  // How full the whole file would be with the text in the editor, as it is typed (views/partials/memory-size.eta).
  app.post<{ Body: { content: string } }>('/memory/size', { schema: { body: fields({ content: text('memory text') }, ['content']) } }, (request, reply) =>
    reply.view('partials/memory-size', editorFullness(request.body.content, memory.maxBytes)),
  );

  /** One entry added, changed or removed; the page again, saying what happened. */
  async function changeList(reply: FastifyReply, revision: string, change: MemoryListChange, done: string) {
    const result = await changeMemoryList(memory, revision, change);
    if (result.ok) return reply.redirect(`/memory?saved=${result.unchanged ? 'unchanged' : done}#memory-list`, 303);
    const status = result.reason === 'unwritable' ? 500 : 409;
    return renderPage(reply, { error: result.message }, status);
  }

  const entryForm = fields({ text: text('what to remember'), revision: text('revision') }, ['text', 'revision']);
  app.post<{ Body: { text: string; revision: string } }>('/memory/entries', { schema: { body: entryForm } }, (request, reply) => {
    if (!request.body.text.trim()) return renderPage(reply, { error: 'Write what the assistant should remember, then tap Add.' }, 400);
    return changeList(reply, request.body.revision, { action: 'add', text: request.body.text }, 'added');
  });

  app.post<{ Params: { id: number }; Body: { text: string; revision: string } }>(
    '/memory/entries/:id',
    { schema: { params: idParams('entry'), body: entryForm } },
    (request, reply) => changeList(reply, request.body.revision, { action: 'edit', entry: request.params.id, text: request.body.text }, 'edited'),
  );

  const removeForm = fields({ revision: text('revision') }, ['revision']);
  app.post<{ Params: { id: number }; Body: { revision: string } }>(
    '/memory/entries/:id/remove',
    { schema: { params: idParams('entry'), body: removeForm } },
    (request, reply) => changeList(reply, request.body.revision, { action: 'remove', entry: request.params.id }, 'removed'),
  );

  app.post<{ Params: { id: number } }>('/memory/versions/:id/restore', { schema: { params: idParams('version') } }, async (request, reply) => {
    const version = memory.version(request.params.id);
    if (!version) return renderPage(reply, { error: 'That version does not exist.' }, 404);
    const result = await memory.write(version.content, 'restore');
    if (!result.ok) return renderPage(reply, { error: result.message }, 500);
    return reply.redirect('/memory?saved=restored', 303);
  });
}
