import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fields, text } from '../http/request-schemas.js';
import { verifyPassword } from './password.js';
import { isAuthenticated } from './auth-guard.js';
import { rememberDevice, trustedDevice } from './device-cookie.js';
import type { LoginBudgets, LoginLock } from './login-budget.js';
import type { PasswordCheckGate } from './password-check-gate.js';
import type { SessionSockets } from './session-sockets.js';
import { loginEndsAt, slideSession, type SessionLifetime, type SessionSliding } from './session-lifetime.js';

export interface AuthRoutesOptions {
  passwordHash: () => string;
  sessionSockets: SessionSockets;
  loginBudgets: LoginBudgets;
  passwordCheckGate: PasswordCheckGate;
  /** How long a login lasts: while used up to an idle limit, and a fixed length when set. */
  sessionLifetime: SessionLifetime;
  sessionSliding: SessionSliding;
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
export function safeNext(next: string | undefined): string {
  if (next === undefined || !/^\/(?![/\\])[^\s]*$/.test(next) || next.startsWith('/login')) return '/';
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

/** What the login form says, and the log, when a budget is spent. */
function describeLock(lock: LoginLock, minutes: string): { error: string; log: string } {
  switch (lock.reason) {
    case 'device':
      return { error: `Too many wrong passwords from this browser. Try again in ${minutes}.`, log: 'login refused: too many wrong passwords from this browser (device cookie)' };
    case 'address':
      return { error: `Too many login attempts. Try again in ${minutes}.`, log: 'login refused: too many wrong passwords from this address' };
    case 'untrusted':
      return {
        error: `Too many wrong passwords have been tried here lately. Try again in ${minutes}, or log in from a browser that has logged in here before.`,
        log: 'login refused: the budget shared by browsers that never logged in is spent',
      };
  }
}

export async function registerAuthRoutes(app: FastifyInstance, options: AuthRoutesOptions): Promise<void> {
  const { loginBudgets, passwordCheckGate } = options;
  // Attempts being checked or waiting, per address or device: its second attempt in parallel is
  // no longer "clean", so many parallel guesses from one place cannot crowd out the owner.
  const pendingByKey = new Map<string, number>();

  const nextField = text('next page');

  app.get<{ Querystring: { next?: string } }>('/login', { onRequest: preventCaching, schema: { querystring: fields({ next: nextField }) } }, async (request, reply) => {
    if (isAuthenticated(request)) return reply.redirect(safeNext(request.query.next));
    return reply.view('login', { csrfToken: loginFormToken(request, reply), next: safeNext(request.query.next) });
  });

  // The password's length is checked as an attempt (it counts against the budgets), not here.
  const loginForm = fields({ password: text('password', { default: '' }), next: nextField });
  app.post<{ Body: { password: string; next?: string } }>(
    '/login',
    // This route's own CSRF check: the logged-in scope's hook does not reach it.
    { bodyLimit: loginBodyLimit, onRequest: preventCaching, preHandler: app.csrfProtection, schema: { body: loginForm } },
    async (request, reply) => {
      const address = request.ip;
      const userAgent = request.headers['user-agent'];
      const next = safeNext(request.body.next);
      const deviceId = trustedDevice(request);
      const budget = loginBudgets.forAttempt(address, deviceId);
      const logContext = { ip: address, userAgent, trustedBrowser: budget.trusted };
      const refuse = (status: number, error: string) =>
        reply.code(status).view('login', { csrfToken: loginFormToken(request, reply), next, error });

      const lockedOut = () => {
        const lock = budget.lock();
        if (lock === undefined) return undefined;
        const seconds = secondsUntil(lock.until);
        const minutes = `${Math.ceil(seconds / 60)} minute${seconds > 60 ? 's' : ''}`;
        const { error, log } = describeLock(lock, minutes);
        request.log.warn(logContext, log);
        reply.header('Retry-After', String(seconds));
        return refuse(429, error);
      };
      // Refused before any bcrypt work. A browser with a device cookie answers to its own budget
      // only, so the owner's browsers get in whatever other addresses have spent.
      const locked = lockedOut();
      if (locked) return locked;

      const { password } = request.body;
      const pending = pendingByKey.get(budget.key) ?? 0;
      const priority = pending > 0 || budget.hasFailed() ? 'suspect' : budget.trusted ? 'trusted' : 'clean';
      pendingByKey.set(budget.key, pending + 1);
      const outcome = await passwordCheckGate
        .run(priority, async () => {
          // Asked again at our turn, and the attempt counted as a failure before bcrypt runs (taken
          // back when it proves right): parallel guesses cannot exceed any budget.
          if (budget.lock() !== undefined) return 'locked';
          budget.recordFailure();
          if (password.length === 0 || password.length > maxPasswordLength) return 'wrong';
          return (await verifyPassword(password, options.passwordHash())) ? 'right' : 'wrong';
        })
        .finally(() => {
          const left = (pendingByKey.get(budget.key) ?? 1) - 1;
          if (left > 0) pendingByKey.set(budget.key, left);
          else pendingByKey.delete(budget.key);
        });
      if (outcome === undefined) {
        request.log.warn(logContext, 'login refused: too many logins being checked at once');
        reply.header('Retry-After', '5');
        return refuse(429, 'The server is busy checking other logins. Try again in a few seconds.');
      }
      if (outcome === 'locked') return lockedOut() ?? refuse(429, 'Too many login attempts. Try again later.');
      if (outcome === 'wrong') {
        request.log.warn(logContext, 'login failed: wrong password');
        return refuse(401, 'That password is not right. Try again.');
      }

      budget.recordSuccess();
      // This browser is vouched for at the login form from now on (a year, renewed at each login).
      rememberDevice(reply, deviceId);
      // A new session id at login, so a session id planted before login is worthless. The new
      // session has no CSRF secret: the next page makes one, so old tokens die with the old id.
      await request.session.regenerate();
      const loggedInAt = Date.now();
      request.session.options({ maxAge: loginEndsAt(options.sessionLifetime, loggedInAt, loggedInAt) - loggedInAt });
      request.session.authenticated = true;
      request.session.loggedInAt = loggedInAt;
      request.log.info({ ip: address, trustedBrowser: budget.trusted }, 'logged in');
      return reply.redirect(next, 303);
    },
  );

  // Public: a page whose socket cannot open asks whether its login ended (the upgrade's 401
  // never reaches the page's script), so it can ask for the password instead of retrying for ever.
  // A logged-in answer counts as a use: a page that lives on its socket (a home-screen app) asks
  // now and then, so its cookie is sent again with the login's new end.
  app.get('/session', { onRequest: preventCaching }, async (request) => {
    const loggedIn = isAuthenticated(request);
    if (loggedIn) slideSession(request, options.sessionSliding);
    return { loggedIn };
  });

  app.post('/logout', { bodyLimit: loginBodyLimit, onRequest: preventCaching, preHandler: app.csrfProtection }, async (request, reply) => {
    options.sessionSockets.closeAll(request.session.sessionId);
    await request.session.destroy();
    return reply.redirect('/login', 303);
  });
}
