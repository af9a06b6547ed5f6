import type { AddressInfo } from 'node:net';
import type { Eta } from 'eta';
import Fastify from 'fastify';
import { registerSecurityHeaders } from '../http/security-headers.js';
import { registerStaticFiles } from '../http/static-files.js';
import { registerViews } from '../http/views.js';
import { registerSetupRoutes } from './setup-routes.js';

export interface SetupListener {
  port: number;
  close(): Promise<void>;
}

/**
 * A phone cannot trust Hearth's HTTPS before it has the CA, so the set-up page and the CA files
 * are also served on a small plain-HTTP listener. It serves nothing else: every other address
 * is redirected to HTTPS, so no password or chat ever crosses it.
 */
export async function startSetupListener(options: {
  host: string;
  port: number;
  httpsPort: () => number;
  authorityCertificatePem: string;
  templates: Eta;
  projectRoot: string;
}): Promise<SetupListener> {
  const app = Fastify({ logger: false });
  await registerSecurityHeaders(app, { https: false });
  await registerViews(app, options.templates);
  await registerStaticFiles(app, options.projectRoot);
  registerSetupRoutes(app, { authorityCertificatePem: options.authorityCertificatePem, httpsPort: options.httpsPort });
  app.get('/', async (_request, reply) => reply.redirect('/setup'));
  app.setNotFoundHandler(async (request, reply) => {
    const host = request.hostname.includes(':') && !request.hostname.startsWith('[') ? `[${request.hostname}]` : request.hostname;
    return reply.redirect(`https://${host}:${options.httpsPort()}${request.url}`, 302);
  });
  try {
    await app.listen({ host: options.host, port: options.port });
  } catch (error) {
    await app.close();
    throw error;
  }
  return { port: (app.server.address() as AddressInfo).port, close: () => app.close() };
}
