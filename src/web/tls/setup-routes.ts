import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { CertificateNames } from './certificates.js';
import { ownHostForUrl } from './machine-names.js';
import { caMobileConfig, certificateFingerprint } from './phone-profiles.js';
import { phonePlatformOf } from './phone-platform.js';

export const setupPaths = {
  page: '/setup',
  certificate: '/setup/hearth-ca.crt',
  profile: '/setup/hearth-ca.mobileconfig',
} as const;

export interface SetupRouteOptions {
  /** The CA certificate (PEM). Only public material is ever given to these routes. */
  authorityCertificatePem: string;
  /** The port Hearth serves HTTPS on (known only once it listens). */
  httpsPort: () => number;
  /** Names and addresses the certificate covers: the page links only to these. */
  machineNames: () => CertificateNames;
}

/**
 * The phone set-up page and the CA certificate in the two forms phones install. Public on
 * purpose: a phone needs them before it can trust Hearth, so before anyone can log in.
 */
export function registerSetupRoutes(app: FastifyInstance, options: SetupRouteOptions): void {
  const authority = new crypto.X509Certificate(options.authorityCertificatePem);
  const certificateDer = authority.raw;
  const commonName = /CN=([^\n]+)/.exec(authority.subject)?.[1] ?? 'Hearth local CA';
  const profile = caMobileConfig({ certificateDer, commonName });
  const fingerprint = certificateFingerprint(options.authorityCertificatePem);

  app.get(setupPaths.page, async (request, reply) => {
    const host = ownHostForUrl(request, options.machineNames());
    // The page differs by phone (its own steps first), so a cache must not hand one to another.
    return reply.header('cache-control', 'no-store').header('vary', 'User-Agent').view('setup', {
      platform: phonePlatformOf(request.headers['user-agent']),
      httpsAddress: `https://${host}:${options.httpsPort()}/`,
      secure: request.protocol === 'https',
      commonName,
      fingerprint,
      certificatePath: setupPaths.certificate,
      profilePath: setupPaths.profile,
    });
  });

  // DER: what Android's "Install a certificate → CA certificate" and Apple devices both accept.
  app.get(setupPaths.certificate, async (_request, reply) =>
    reply
      .type('application/x-x509-ca-cert')
      .header('content-disposition', 'attachment; filename="hearth-ca.crt"')
      .header('cache-control', 'no-cache')
      .send(certificateDer),
  );

  app.get(setupPaths.profile, async (_request, reply) =>
    reply
      .type('application/x-apple-aspen-config')
      .header('content-disposition', 'attachment; filename="hearth-ca.mobileconfig"')
      .header('cache-control', 'no-cache')
      .send(profile),
  );
}
