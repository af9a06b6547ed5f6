import type { FastifyReply, FastifyRequest } from 'fastify';

/** The one check every page, API call and WebSocket upgrade goes through. */
export function isAuthenticated(request: FastifyRequest, now: number = Date.now()): boolean {
  const session = request.session;
  if (!session?.authenticated) return false;
  const expires = session.cookie.expires ? new Date(session.cookie.expires).getTime() : Infinity;
  return expires > now;
}

/**
 * A WebSocket upgrade carries the session cookie whatever page opened it, so a foreign page
 * could talk to the chat as the user (cross-site WebSocket hijacking): the Origin must be ours.
 */
export function isSameOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (!origin) return false;
  try {
    return new URL(origin).host === request.host;
  } catch {
    return false;
  }
}

export async function requireLogin(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (isAuthenticated(request)) return;
  if (request.ws || request.headers.upgrade) {
    request.log.warn({ ip: request.ip }, 'websocket refused: not logged in');
    return reply.code(401).send({ error: 'Log in first.' });
  }
  if (request.headers['hx-request']) {
    return reply.code(401).header('HX-Redirect', '/login').send('');
  }
  if (request.method === 'GET') {
    const next = request.url === '/' ? '' : `?next=${encodeURIComponent(request.url)}`;
    return reply.redirect(`/login${next}`);
  }
  return reply.code(401).send({ error: 'Log in first.' });
}

export async function requireSameOriginSocket(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (isSameOrigin(request)) return;
  request.log.warn({ ip: request.ip, origin: request.headers.origin }, 'websocket refused: foreign origin');
  return reply.code(403).send({ error: 'WebSocket connections are only accepted from this site.' });
}
