import cookie from '@fastify/cookie';
import session from '@fastify/session';
import csrf from '@fastify/csrf-protection';
import type { FastifyInstance } from 'fastify';
import type { SessionStore } from '@fastify/session';

declare module 'fastify' {
  interface Session {
    authenticated?: boolean;
    loggedInAt?: number;
    /** When a page last extended this login (at most once a minute: see auth/session-lifetime.ts). */
    lastUsedAt?: number;
    /** The CSRF secret (@fastify/csrf-protection): tokens are valid for this session only. */
    _csrf?: string;
  }
}

export interface SessionOptions {
  secretKey: string;
  /** How long a new session's cookie lasts before login sets its own (the login form's session). */
  cookieMaxAgeMs: number;
  store: SessionStore;
}

/**
 * Cookies are httpOnly and SameSite=Lax; Secure is decided per request ('auto'), so they are
 * Secure over HTTPS or behind a trusted HTTPS proxy and still work on plain LAN HTTP.
 * CSRF secrets live in the session, so a token is good only for the session it was made for and
 * ends with it: a token fetched by another page (another port of this host, which shares the
 * cookie jar) cannot be planted next to the owner's session. The login form gets a short-lived
 * anonymous session of its own for its token; logging in replaces it with a new session.
 */
export async function registerSessions(app: FastifyInstance, options: SessionOptions): Promise<void> {
  await app.register(cookie, { secret: options.secretKey });
  await app.register(session, {
    secret: options.secretKey,
    cookieName: 'hearth_session',
    store: options.store,
    saveUninitialized: false,
    // The cookie is sent only when a session is made or changed, not on every response: a static
    // file or service-worker request still in flight with the login form's session would otherwise
    // answer after the login and put the old cookie back (logged out again). A login slides all
    // the same: a page request a minute or more after the last extension changes the session,
    // which sends the cookie with its new end (auth/session-lifetime.ts).
    rolling: false,
    cookie: {
      httpOnly: true,
      sameSite: 'lax',
      secure: 'auto',
      path: '/',
      maxAge: options.cookieMaxAgeMs,
    },
  });
  await app.register(csrf, { sessionPlugin: '@fastify/session' });
}
