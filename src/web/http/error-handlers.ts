import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export interface ErrorHandlerOptions {
  /** A CSRF token for the login form shown again after a failed login post (auth-routes.ts makes it). */
  loginFormToken(request: FastifyRequest, reply: FastifyReply): string;
}

/** One place that turns errors into pages or short messages; internals never reach the browser. */
export function registerErrorHandlers(app: FastifyInstance, { loginFormToken }: ErrorHandlerOptions): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500;
    const wantsHtml = request.method !== 'GET' || String(request.headers.accept ?? '').includes('text/html');
    const isLogin = request.url.startsWith('/login') && request.method === 'POST';

    if (status >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.info({ status, code: error.code, url: request.url }, error.message);

    let message = status >= 500 ? 'Something went wrong on the server. It has been logged; try again.' : error.message;
    if (error.code?.startsWith('FST_CSRF')) message = 'This form has expired (or came from another site). Reload the page and try again.';

    if (isLogin) {
      return reply.code(status).view('login', { csrfToken: loginFormToken(request, reply), error: message, next: '/' });
    }
    if (request.headers['hx-request']) return reply.code(status).type('text/html').send('');
    if (wantsHtml) return reply.code(status).view('not-found', { title: status === 404 ? 'Not found' : 'Something went wrong', message });
    return reply.code(status).send({ error: message });
  });

  app.setNotFoundHandler((request, reply) => {
    const wantsHtml = String(request.headers.accept ?? '').includes('text/html');
    if (wantsHtml) return reply.code(404).view('not-found', { title: 'Not found', message: 'There is no page at this address.' });
    return reply.code(404).send({ error: 'Not found' });
  });
}
