import type { FastifyInstance } from 'fastify';

/** Uploads a photo as the browser does (POST /attachments, the session's cookie and CSRF token); the raw answer. */
export function uploadPhoto(app: Pick<FastifyInstance, 'inject'>, session: { cookie: string; token: string }, body: Buffer, type = 'image/jpeg') {
  return app.inject({
    method: 'POST',
    url: '/attachments',
    headers: { cookie: session.cookie, 'x-csrf-token': session.token, 'content-type': type },
    payload: body,
  });
}
