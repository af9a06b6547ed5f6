import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

const unsafeMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Every change made in a scope carries its session's CSRF token (a form's `_csrf` field or the
 * x-csrf-token header): one hook for the whole scope, so a route added later is covered without
 * saying so, and cannot forget. It runs once the body is read (a form's token is in it) and before
 * the route's schema is checked: a forged request is refused as forged, whatever it holds.
 * (@fastify/csrf-protection does the check; sessions.ts registers it.)
 */
export function registerCsrfCheck(scope: FastifyInstance): void {
  scope.addHook('preValidation', function requireCsrfToken(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
    if (!unsafeMethods.has(request.method)) return done();
    return this.csrfProtection(request, reply, done);
  });
}
