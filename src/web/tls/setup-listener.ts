import type { AddressInfo } from 'node:net';
import type { Eta } from 'eta';
import Fastify from 'fastify';
import { capConnectionsPerAddress, fastifyTimeouts, type ListenerLimits } from '../http/listener-limits.js';
import { registerSecurityHeaders } from '../http/security-headers.js';
import { registerStaticFiles } from '../http/static-files.js';
import { registerViews } from '../http/views.js';
import type { CertificateNames } from './certificates.js';
import { ownHostForUrl } from './machine-names.js';
import { registerSetupRoutes } from './setup-routes.js';

/** Connections the set-up listener holds at once, from all addresses: it can never starve the main port. */
export const setupListenerMaxConnections = 256;

export interface SetupListener {
  port: number;
  close(): Promise<void>;
}

/**
 * A phone cannot trust Hearth's HTTPS before it has the CA, so the set-up page and the CA files
 * are also served on a small plain-HTTP listener. It serves nothing else: every other address
 * is redirected to HTTPS, so no password or chat ever crosses it. Anyone on the network reaches
 * it without a password, so it has the main port's time-outs and per-address cap, and a total cap.
 */
export async function startSetupListener(options: {
  host: string;
  port: number;
  httpsPort: () => number;
  /** Names and addresses the certificate covers: the only hosts a redirect may name. */
  machineNames: () => CertificateNames;
  authorityCertificatePem: string;
  templates: Eta;
  projectRoot: string;
  limits: ListenerLimits;
}): Promise<SetupListener> {
  const timeouts = fastifyTimeouts(options.limits);
  const app = Fastify({ logger: false, requestTimeout: timeouts.requestTimeout, http: timeouts.http });
  capConnectionsPerAddress(app.server, options.limits);
  app.server.maxConnections = setupListenerMaxConnections;
  await registerSecurityHeaders(app, { https: false });
  await registerViews(app, options.templates);
  await registerStaticFiles(app, options.projectRoot);
  registerSetupRoutes(app, { authorityCertificatePem: options.authorityCertificatePem, httpsPort: options.httpsPort, machineNames: options.machineNames });
  app.get('/', async (_request, reply) => reply.redirect('/setup'));
  app.setNotFoundHandler(async (request, reply) => {
    const host = ownHostForUrl(request, options.machineNames());
    // Only a path goes after the host ("GET http://other/x HTTP/1.1" has a whole URL there).
    const url = new URL(request.url, 'http://unused');
    const path = request.url.startsWith('/') ? request.url : url.pathname + url.search;
    return reply.redirect(`https://${host}:${options.httpsPort()}${path}`, 302);
  });
  try {
    await app.listen({ host: options.host, port: options.port });
  } catch (error) {
    await app.close();
    throw error;
  }
  return { port: (app.server.address() as AddressInfo).port, close: () => app.close() };
}
