import type { FastifyReply, FastifyRequest } from 'fastify';

/** What the session store can say about a session right now (the SQLite store can). */
interface SessionLiveness {
  authenticatedUntil(sessionId: string): number | undefined;
}

function hasLiveness(store: unknown): store is SessionLiveness {
  return typeof (store as Partial<SessionLiveness> | undefined)?.authenticatedUntil === 'function';
}

/**
 * The one check every page, API call, WebSocket upgrade and WebSocket message goes through. The
 * store is asked each time, not only the copy of the session loaded with the request: a socket
 * opened earlier must stop working once its session is logged out, expired or deleted by
 * `npm run set-password` in another process.
 */
export function isAuthenticated(request: FastifyRequest, now: number = Date.now()): boolean {
  const session = request.session;
  if (!session?.authenticated) return false;
  const store: unknown = request.sessionStore;
  const expires = hasLiveness(store)
    ? store.authenticatedUntil(session.sessionId)
    : session.cookie.expires
      ? new Date(session.cookie.expires).getTime()
      : Infinity;
  return expires !== undefined && expires > now;
}

/** This server's own origin as the browser sees it (X-Forwarded-Host/Proto count only with TRUST_PROXY). */
function ownHost(request: FastifyRequest): string | undefined {
  try {
    return new URL(`${request.protocol}://${request.host}`).host;
  } catch {
    return undefined;
  }
}

/**
 * Whether an Origin header names this server. Hosts are compared (with their ports): a page on
 * another port of the same machine is another origin, even though SameSite cookies treat it as
 * the same site. The scheme is not compared, so a TLS proxy without TRUST_PROXY still works.
 */
export function isOwnOrigin(request: FastifyRequest, origin: string | undefined): boolean {
  if (!origin || origin === 'null') return false;
  try {
    const host = ownHost(request);
    return host !== undefined && new URL(origin).host === host;
  } catch {
    return false;
  }
}

/**
 * A WebSocket upgrade carries the session cookie whatever page opened it, so a foreign page
 * could talk to the chat as the user (cross-site WebSocket hijacking): the Origin must be ours.
 */
export function isSameOrigin(request: FastifyRequest): boolean {
  return isOwnOrigin(request, request.headers.origin);
}

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Whether a state-changing request may come from where it says it comes from. Browsers send
 * Sec-Fetch-Site to secure origins (HTTPS, localhost), and it decides alone. Without it (plain HTTP
 * on the LAN, an older browser) the Origin must be ours: our Referrer-Policy (same-origin) lets
 * our own pages send it, where no-referrer made Chromium send "Origin: null". A request from
 * another origin (another port of this host included) is refused whatever cookies and tokens it
 * carries. A request with neither header is not from a browser's page (curl, scripts) and still
 * needs its session-bound CSRF token.
 */
export function isAllowedChange(request: FastifyRequest): boolean {
  if (safeMethods.has(request.method)) return true;
  const fetchSite = request.headers['sec-fetch-site'];
  if (fetchSite !== undefined) return fetchSite === 'same-origin' || fetchSite === 'none';
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  return isOwnOrigin(request, origin);
}

export async function requireOwnOriginForChanges(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (isAllowedChange(request)) return;
  request.log.warn(
    { ip: request.ip, origin: request.headers.origin, fetchSite: request.headers['sec-fetch-site'], url: request.url },
    'refused a change from another origin',
  );
  return reply.code(403).type('text/plain').send('Refused: this request came from another site.');
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
