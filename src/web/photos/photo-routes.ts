import type { FastifyError, FastifyInstance } from 'fastify';
import type { AttachmentStore } from '../../storage/attachment-store.js';
import { checkPhoto, checkThumbnail, PhotoError, photoLimits } from '../../providers/photos/photo-checks.js';
import { idParams } from '../http/request-schemas.js';

export interface PhotoRoutesDependencies {
  attachments: AttachmentStore;
}

/** Photos are never changed once stored: a browser may keep one for a day, for this login only. */
const photoCacheControl = 'private, max-age=86400';

/**
 * POST /attachments takes one photo as the raw request body (the WebSocket's command limit is far
 * too small for it) and answers its id; GET /attachments/:id serves it. Register inside the
 * logged-in scope: the login check runs before any body is read.
 */
export function registerPhotoRoutes(app: FastifyInstance, dependencies: PhotoRoutesDependencies): void {
  const { attachments } = dependencies;

  // Encapsulated: these parsers and this error handler apply to the photo routes only.
  void app.register(async (scope) => {
    // Every body is read as bytes (up to the route's bodyLimit): the bytes decide what it is, so a
    // wrong or missing Content-Type gets "not a photo", not a generic 415.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

    scope.setErrorHandler((error: FastifyError, request, reply) => {
      if (error instanceof PhotoError) return reply.code(error.statusCode).send({ error: error.message });
      if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
        const limit = request.routeOptions.bodyLimit ?? photoLimits.maxBytes;
        const size = limit >= 1024 * 1024 ? `${limit / 1024 / 1024} MB` : `${limit / 1024} KB`;
        return reply.code(413).send({ error: `That file is over ${size}, the limit.` });
      }
      if (error.code?.startsWith('FST_CSRF')) {
        return reply.code(403).send({ error: 'This page has expired. Reload it and attach the photo again.' });
      }
      // Everything else goes to the app's own error handler.
      throw error;
    });

    scope.post(
      '/attachments',
      {
        bodyLimit: photoLimits.maxBytes,
        // A body declared too large is refused unread. (The CSRF token, in the x-csrf-token
        // header, is checked by the logged-in scope's hook like every change's.)
        onRequest: async (request) => {
          const declared = Number(request.headers['content-length']);
          if (declared > photoLimits.maxBytes) {
            throw new PhotoError(`That photo is ${(declared / 1024 / 1024).toFixed(1)} MB; the limit is ${photoLimits.maxBytes / 1024 / 1024} MB.`, 413);
          }
        },
      },
      async (request, reply) => {
        if (!Buffer.isBuffer(request.body)) throw new PhotoError('No photo came with the request. Attach it again.', 400);
        const photo = await checkPhoto(request.body);
        if (attachments.countUnsent() >= photoLimits.maxUnsent) {
          throw new PhotoError(`${photoLimits.maxUnsent} photos are waiting to be sent already. Send or remove some first.`, 429);
        }
        const stored = attachments.add({ ...photo, bytes: request.body });
        return reply.code(201).send({ id: stored.id, url: `/attachments/${stored.id}`, width: stored.width, height: stored.height, size: stored.size });
      },
    );

    // The browser's small version for the thread, before the photo is sent; a sent photo stays as it is.
    const photoParams = idParams('photo');

    scope.put<{ Params: { id: number } }>(
      '/attachments/:id/thumbnail',
      { bodyLimit: photoLimits.thumbnailMaxBytes, schema: { params: photoParams } },
      async (request, reply) => {
        if (!Buffer.isBuffer(request.body)) throw new PhotoError('No thumbnail came with the request.', 400);
        await checkThumbnail(request.body);
        const saved = attachments.setThumbnail(request.params.id, request.body);
        return reply.code(saved ? 204 : 404).send();
      },
    );

    scope.get<{ Params: { id: number } }>('/attachments/:id/thumbnail', { schema: { params: photoParams } }, async (request, reply) => {
      const thumbnail = attachments.getThumbnail(request.params.id);
      if (!thumbnail) return reply.code(404).type('text/plain').send('That photo does not exist (it may have been deleted).');
      return reply
        .header('Cache-Control', photoCacheControl)
        .header('X-Content-Type-Options', 'nosniff')
        .type(thumbnail.mime)
        .send(thumbnail.bytes);
    });

    // The tray's ✕: an unsent photo is deleted at once rather than waiting a day to be pruned.
    scope.delete<{ Params: { id: number } }>('/attachments/:id', { schema: { params: photoParams } }, async (request, reply) => {
      const deleted = attachments.deleteUnsent(request.params.id);
      return reply.code(deleted ? 204 : 404).send();
    });

    scope.get<{ Params: { id: number } }>('/attachments/:id', { schema: { params: photoParams } }, async (request, reply) => {
      const photo = attachments.getWithBytes(request.params.id);
      if (!photo) return reply.code(404).type('text/plain').send('That photo does not exist (it may have been deleted).');
      return reply
        .header('Cache-Control', photoCacheControl)
        .header('X-Content-Type-Options', 'nosniff')
        .header('Content-Disposition', `inline; filename="photo-${photo.id}.${photo.mime.slice('image/'.length)}"`)
        .type(photo.mime)
        .send(photo.bytes);
    });
  });
}
