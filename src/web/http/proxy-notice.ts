import type { FastifyInstance } from 'fastify';

/**
 * Behind a reverse proxy without TRUST_PROXY, every request seems to come from the proxy: the
 * login limits would then lock out everybody at once. Say so in the log, once.
 */
export function registerProxyNotice(app: FastifyInstance, options: { trustProxy: boolean }): void {
  if (options.trustProxy) return;
  let told = false;
  app.addHook('onRequest', async (request) => {
    if (told || request.headers['x-forwarded-for'] === undefined) return;
    told = true;
    request.log.warn(
      { ip: request.ip, forwardedFor: request.headers['x-forwarded-for'] },
      'requests arrive through a proxy (X-Forwarded-For) but TRUST_PROXY is not set: every client looks like the proxy, so login limits apply to all of them together. Set TRUST_PROXY to the proxy address.',
    );
  });
}
