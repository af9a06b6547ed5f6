import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { LoginFailureStore } from '../storage/login-failure-store.js';
import { verifyPassword } from './password.js';
import { isAuthenticated } from './auth-guard.js';
import type { PasswordCheckGate } from './password-check-gate.js';
import type { SessionSockets } from './session-sockets.js';

export interface AuthRoutesOptions {
  passwordHash: () => string;
  sessionSockets: SessionSockets;
  loginFailures: LoginFailureStore;
  passwordCheckGate: PasswordCheckGate;
  /** How long a login lasts. */
  sessionTtlMs: number;
}

/** The login form is small: a password (at most 1024 characters), a token and a path. */
export const loginBodyLimit = 4096;
/** An anonymous session made for the login form's CSRF token lasts this long. */
export const loginFormTtlMs = 30 * 60_000;
const maxPasswordLength = 1024;

/**
 * A "next" value is only followed when it is a path on this site. Characters outside printable
 * ASCII are percent-encoded: a Location header may only carry Latin-1, and anything else used to
 * throw after a successful login.
 */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || !/^\/(?![/\\])[^\s]*$/.test(next) || next.startsWith('/login')) return '/';
  try {
    return next.replace(/[^\x21-\x7e]+/gu, (characters) => encodeURIComponent(characters));
  } catch {
    return '/'; // a lone surrogate cannot be encoded
  }
}

/** Private responses must not be kept by the browser: Back after logout would show them again. */
export async function preventCaching(_request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.header('Cache-Control', 'no-store');
}

/**
 * A CSRF token for the login form. Without a session yet, the token's secret goes into a new
 * anonymous session that lasts minutes, not the whole login time.
 */
export function loginFormToken(request: FastifyRequest, reply: FastifyReply): string {
  if (!request.session.authenticated && !request.session._csrf) request.session.options({ maxAge: loginFormTtlMs });
  return reply.generateCsrf();
}

function secondsUntil(time: number): number {
  return Math.max(1, Math.ceil((time - Date.now()) / 1000));
}

export async function registerAuthRoutes(app: FastifyInstance, options: AuthRoutesOptions): Promise<void> {
  const { loginFailures, passwordCheckGate } = options;
  // Attempts being checked or waiting, per address: an address's second attempt in parallel is
  // no longer "clean", so many parallel guesses from one address cannot crowd out the owner.
  const pendingByAddress = new Map<string, number>();

  app.get<{ Querystring: { next?: string } }>('/login', { onRequest: preventCaching }, async (request, reply) => {
    if (isAuthenticated(request)) return reply.redirect(safeNext(request.query.next));
    return reply.view('login', { csrfToken: loginFormToken(request, reply), next: safeNext(request.query.next) });
  });

  app.post<{ Body: { password?: string; next?: string } }>(
    '/login',
    { bodyLimit: loginBodyLimit, onRequest: preventCaching, preHandler: app.csrfProtection },
    async (request, reply) => {
      const address = request.ip;
      const userAgent = request.headers['user-agent'];
      const next = safeNext(request.body?.next);
      const refuse = (status: number, error: string) =>
        reply.code(status).view('login', { csrfToken: loginFormToken(request, reply), next, error });

      const lockedOut = () => {
        const until = loginFailures.lockedUntil(address);
        if (until === undefined) return undefined;
        request.log.warn({ ip: address, userAgent }, 'login refused: too many wrong passwords from this address');
        const seconds = secondsUntil(until);
        reply.header('Retry-After', String(seconds));
        return refuse(429, `Too many login attempts. Try again in ${Math.ceil(seconds / 60)} minute${seconds > 60 ? 's' : ''}.`);
      };
      // Only this address waits: the owner can still log in from any address that has not failed.
      const locked = lockedOut();
      if (locked) return locked;

      const password = typeof request.body?.password === 'string' ? request.body.password : '';
      const pending = pendingByAddress.get(address) ?? 0;
      const priority = pending > 0 || loginFailures.failuresOf(address) > 0 ? 'suspect' : 'clean';
      pendingByAddress.set(address, pending + 1);
      const outcome = await passwordCheckGate
        .run(priority, async () => {
          // Asked again at our turn, and the attempt counted as a failure before bcrypt runs (forgotten
          // when it proves right): parallel guesses from one address cannot exceed its budget.
          if (loginFailures.lockedUntil(address) !== undefined) return 'locked';
          loginFailures.recordFailure(address);
          if (password.length === 0 || password.length > maxPasswordLength) return 'wrong';
          return (await verifyPassword(password, options.passwordHash())) ? 'right' : 'wrong';
        })
        .finally(() => {
          const left = (pendingByAddress.get(address) ?? 1) - 1;
          if (left > 0) pendingByAddress.set(address, left);
          else pendingByAddress.delete(address);
        });
      if (outcome === undefined) {
        request.log.warn({ ip: address, userAgent }, 'login refused: too many logins being checked at once');
        reply.header('Retry-After', '5');
        return refuse(429, 'The server is busy checking other logins. Try again in a few seconds.');
      }
      if (outcome === 'locked') return lockedOut() ?? refuse(429, 'Too many login attempts. Try again later.');
      if (outcome === 'wrong') {
        request.log.warn({ ip: address, userAgent }, 'login failed: wrong password');
        return refuse(401, 'That password is not right. Try again.');
      }

      loginFailures.forget(address);
      // A new session id at login, so a session id planted before login is worthless. The new
      // session has no CSRF secret: the next page makes one, so old tokens die with the old id.
      await request.session.regenerate();
      request.session.options({ maxAge: options.sessionTtlMs });
      request.session.authenticated = true;
      request.session.loggedInAt = Date.now();
      request.log.info({ ip: address }, 'logged in');
      return reply.redirect(next, 303);
    },
  );

  app.post('/logout', { bodyLimit: loginBodyLimit, onRequest: preventCaching, preHandler: app.csrfProtection }, async (request, reply) => {
    options.sessionSockets.closeAll(request.session.sessionId);
    await request.session.destroy();
    return reply.redirect('/login', 303);
  });
}
