import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export interface ErrorHandlerOptions {
  /** A CSRF token for the login form shown again after a failed login post (auth-routes.ts makes it). */
  loginFormToken(request: FastifyRequest, reply: FastifyReply): string;
}

/** How the asker reads an answer: htmx swaps text in, a browser shows a page, a script reads JSON. */
type AnswerForm = 'htmx' | 'page' | 'json';

function answerFormFor(request: FastifyRequest): AnswerForm {
  if (request.headers['hx-request']) return 'htmx';
  const accept = String(request.headers.accept ?? '');
  if (accept.includes('text/html')) return 'page';
  if (accept.includes('application/json')) return 'json';
  // A form posted without JavaScript gets a page; anything else read by a script gets JSON.
  return request.method === 'GET' ? 'json' : 'page';
}

const pageTitles: Record<number, string> = { 400: 'That request could not be read', 403: 'Refused', 404: 'Not found' };

/** htmx puts what it gets into the page as HTML: the words go in as text. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/**
 * One place that turns errors into pages or short messages; internals never reach the browser. A
 * request refused by a route's schema gets a 400 with the sentence request-schemas.ts made from
 * the schema's words (which field, what it must be), never a 500.
 */
export function registerErrorHandlers(app: FastifyInstance, { loginFormToken }: ErrorHandlerOptions): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500;
    const isLogin = request.url.startsWith('/login') && request.method === 'POST';

    if (status >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.info({ status, code: error.code, url: request.url }, error.message);

    let message = status >= 500 ? 'Something went wrong on the server. It has been logged; try again.' : error.message;
    if (error.code?.startsWith('FST_CSRF')) message = 'This form has expired (or came from another site). Reload the page and try again.';

    if (isLogin) {
      return reply.code(status).view('login', { csrfToken: loginFormToken(request, reply), error: message, next: '/' });
    }
    switch (answerFormFor(request)) {
      case 'htmx':
        return reply.code(status).type('text/html; charset=utf-8').send(escapeHtml(message));
      case 'page':
        return reply.code(status).view('not-found', { title: pageTitles[status] ?? 'Something went wrong', message });
      case 'json':
        return reply.code(status).send({ error: message });
    }
  });

  app.setNotFoundHandler((request, reply) => {
    const wantsHtml = String(request.headers.accept ?? '').includes('text/html');
    if (wantsHtml) return reply.code(404).view('not-found', { title: 'Not found', message: 'There is no page at this address.' });
    return reply.code(404).send({ error: 'Not found' });
  });
}
