import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { verifyPassword } from './password.js';
import { isAuthenticated } from './auth-guard.js';
import type { SessionSockets } from './session-sockets.js';

export interface AuthRoutesOptions {
  passwordHash: () => string;
  sessionSockets: SessionSockets;
  /** Login attempts allowed per address in the window; the rest are refused before bcrypt runs. */
  loginAttempts?: number;
  loginWindowMs?: number;
}

/** A "next" value is only followed when it is a path on this site. */
function safeNext(next: unknown): string {
  return typeof next === 'string' && /^\/(?![/\\])[^\s]*$/.test(next) && !next.startsWith('/login') ? next : '/';
}

export async function registerAuthRoutes(app: FastifyInstance, options: AuthRoutesOptions): Promise<void> {
  await app.register(rateLimit, { global: false });
  const loginAttempts = options.loginAttempts ?? 10;
  const loginWindowMs = options.loginWindowMs ?? 5 * 60_000;

  app.get<{ Querystring: { next?: string } }>('/login', async (request, reply) => {
    if (isAuthenticated(request)) return reply.redirect(safeNext(request.query.next));
    return reply.view('login', { csrfToken: reply.generateCsrf(), next: safeNext(request.query.next) });
  });

  app.post<{ Body: { password?: string; next?: string } }>(
    '/login',
    {
      config: {
        rateLimit: {
          max: loginAttempts,
          timeWindow: loginWindowMs,
          errorResponseBuilder: (request, context) => {
            request.log.warn({ ip: request.ip }, 'login refused: too many attempts');
            return { statusCode: 429, message: `Too many login attempts. Try again in ${context.after}.` };
          },
        },
      },
      preHandler: app.csrfProtection,
    },
    async (request, reply) => {
      const password = typeof request.body?.password === 'string' ? request.body.password : '';
      const next = safeNext(request.body?.next);
      if (password.length === 0 || password.length > 1024 || !(await verifyPassword(password, options.passwordHash()))) {
        request.log.warn({ ip: request.ip, userAgent: request.headers['user-agent'] }, 'login failed: wrong password');
        return reply.code(401).view('login', { csrfToken: reply.generateCsrf(), next, error: 'That password is not right. Try again.' });
      }
      // A new session id at login, so a session id planted before login is worthless.
      await request.session.regenerate();
      request.session.authenticated = true;
      request.session.loggedInAt = Date.now();
      request.log.info({ ip: request.ip }, 'logged in');
      return reply.redirect(next, 303);
    },
  );

  app.post('/logout', { preHandler: app.csrfProtection }, async (request, reply) => {
    options.sessionSockets.closeAll(request.session.sessionId);
    await request.session.destroy();
    return reply.redirect('/login', 303);
  });
}
