import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

/**
 * Scripts only from our own files: no inline scripts, no eval. htmx's hx-on and js: values
 * need eval, so the policy also stops any that reach the page through model or email text.
 */
export async function registerSecurityHeaders(app: FastifyInstance, options: { https: boolean }): Promise<void> {
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'"],
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        objectSrc: ["'none'"],
        ...(options.https ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    // HSTS only where the server itself speaks HTTPS; on plain LAN HTTP it would lock people out.
    // Without includeSubDomains: a home server's name often has other plain-HTTP services under
    // it (and HSTS already holds for this name on every port; browsers never apply it to IPs).
    strictTransportSecurity: options.https ? { maxAge: 31_536_000, includeSubDomains: false } : false,
    // same-origin, not no-referrer: over plain HTTP on the LAN browsers send no Sec-Fetch-Site, and
    // with no-referrer Chromium sends "Origin: null" for our own forms, so logging in was refused.
    // Other sites still get no Referer (and Origin: null), and are refused.
    referrerPolicy: { policy: 'same-origin' },
    crossOriginEmbedderPolicy: false,
  });
}
