import type { FastifyInstance } from 'fastify';
import type { AttachmentStore } from '../../storage/attachment-store.js';
import { fields, recordId } from '../http/request-schemas.js';
import type { ChatView } from './chat-view.js';

export interface PhotoViewerRoutesDependencies {
  attachments: Pick<AttachmentStore, 'listForMessages'>;
  view: Pick<ChatView, 'photoViewer'>;
}

const viewerParams = fields({ id: recordId('message'), photo: recordId('photo') }, ['id', 'photo']);

/**
 * GET /messages/:id/photos/:photo: what the photo viewer's <dialog> holds when a photo in the
 * thread is tapped (views/partials/photo-viewer.eta): every photo of that message, the tapped one
 * shown. Register inside the logged-in scope.
 */
export function registerPhotoViewerRoutes(app: FastifyInstance, { attachments, view }: PhotoViewerRoutesDependencies): void {
  app.get<{ Params: { id: number; photo: number } }>('/messages/:id/photos/:photo', { schema: { params: viewerParams } }, async (request, reply) => {
    const photos = attachments.listForMessages([request.params.id]).get(request.params.id) ?? [];
    const shown = photos.findIndex((photo) => photo.id === request.params.photo);
    if (shown < 0) return reply.code(404).type('text/plain; charset=utf-8').send('That photo does not exist (it may have been deleted).');
    return reply.type('text/html; charset=utf-8').send(view.photoViewer(photos, shown));
  });
}
