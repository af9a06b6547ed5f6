import cookie from '@fastify/cookie';
import session from '@fastify/session';
import csrf from '@fastify/csrf-protection';
import type { FastifyInstance } from 'fastify';
import type { SessionStore } from '@fastify/session';

declare module 'fastify' {
  interface Session {
    authenticated?: boolean;
    loggedInAt?: number;
  }
}

export interface SessionOptions {
  secretKey: string;
  ttlHours: number;
  store: SessionStore;
}

/**
 * Cookies are httpOnly and SameSite=Lax; Secure is decided per request ('auto'), so they are
 * Secure over HTTPS or behind a trusted HTTPS proxy and still work on plain LAN HTTP.
 * CSRF tokens use a signed cookie, so the login page needs no server-side session.
 */
export async function registerSessions(app: FastifyInstance, options: SessionOptions): Promise<void> {
  await app.register(cookie, { secret: options.secretKey });
  await app.register(session, {
    secret: options.secretKey,
    cookieName: 'hearth_session',
    store: options.store,
    saveUninitialized: false,
    cookie: {
      httpOnly: true,
      sameSite: 'lax',
      secure: 'auto',
      path: '/',
      maxAge: options.ttlHours * 3_600_000,
    },
  });
  await app.register(csrf, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: 'hearth_csrf',
    cookieOpts: { httpOnly: true, sameSite: 'strict', path: '/', signed: true, secure: 'auto' },
  });
}
