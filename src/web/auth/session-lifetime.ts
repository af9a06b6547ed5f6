import type { FastifyRequest } from 'fastify';

/** How long a login lasts: while used, up to an idle limit; and, when set, no longer than a fixed length. */
export interface SessionLifetime {
  /** SESSION_IDLE_DAYS: a login ends this long after its last use. */
  idleMs: number;
  /** SESSION_TTL_HOURS, when set: a login ends this long after it was made, however it is used. */
  maxMs: number | undefined;
}

/** A session is extended at most this often: every request of a busy page would otherwise be a write. */
export const slideEveryMs = 60_000;

export function sessionLifetimeFromConfig(config: { sessionIdleDays: number; sessionTtlHours: number | undefined }): SessionLifetime {
  return {
    idleMs: config.sessionIdleDays * 86_400_000,
    maxMs: config.sessionTtlHours === undefined ? undefined : config.sessionTtlHours * 3_600_000,
  };
}

/** When a login used now ends. */
export function loginEndsAt(lifetime: SessionLifetime, loggedInAt: number, now: number): number {
  const idleEnd = now + lifetime.idleMs;
  return lifetime.maxMs === undefined ? idleEnd : Math.min(idleEnd, loggedInAt + lifetime.maxMs);
}

/** What sliding needs from the session store (the SQLite store has both). */
export interface SlidingSessionStore {
  authenticatedUntil(sessionId: string): number | undefined;
  /** Moves a logged-in, unexpired session's end to `until`; false when it is gone. */
  extendAuthenticated(sessionId: string, until: number): boolean;
}

/** Extend the session to `until`, or leave it at `current`. */
export type SlideDecision = { until: number } | { current: number };

export interface SessionSliding {
  /**
   * The session's new end when this use should extend it (a minute or more later than now
   * stored), or undefined: not logged in, gone, or extended less than a minute ago.
   */
  due(sessionId: string, loggedInAt: number | undefined): SlideDecision | undefined;
  /** A use the store is told of directly (a socket's message, an upgrade): no response carries a cookie. */
  use(sessionId: string, loggedInAt: number | undefined): void;
}

export function createSessionSliding(store: SlidingSessionStore, lifetime: SessionLifetime, now: () => number = Date.now): SessionSliding {
  function due(sessionId: string, loggedInAt: number | undefined): SlideDecision | undefined {
    const current = store.authenticatedUntil(sessionId);
    if (current === undefined) return undefined;
    const at = now();
    const until = loginEndsAt(lifetime, loggedInAt ?? at, at);
    return until - current >= slideEveryMs ? { until } : { current };
  }
  return {
    due,
    use(sessionId, loggedInAt) {
      const next = due(sessionId, loggedInAt);
      if (next && 'until' in next) store.extendAuthenticated(sessionId, next.until);
    },
  };
}

/**
 * Slides the request's logged-in session. A page request changes the session (its last use), so
 * @fastify/session saves it and sends the cookie with the new end: the browser must not drop the
 * cookie while the server still honours it. A WebSocket upgrade has no response to carry a
 * cookie: the store is told directly. Either way, the session's cookie always says the end the
 * store holds, so an unrelated save (a new CSRF secret) cannot stretch a fixed-length login.
 */
export function slideSession(request: FastifyRequest, sliding: SessionSliding): void {
  const session = request.session;
  if (!session?.authenticated) return;
  const next = sliding.due(session.sessionId, session.loggedInAt);
  if (next === undefined) return;
  if ('current' in next) {
    session.cookie.expires = new Date(next.current);
    return;
  }
  if (request.headers.upgrade) {
    sliding.use(session.sessionId, session.loggedInAt);
    return;
  }
  session.cookie.expires = new Date(next.until);
  session.lastUsedAt = Date.now();
}
