import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * The browser fetches these in the background, perhaps while the login form is on its way. Left
 * with the session, their answers would renew the cookie of the anonymous login-form session, and
 * arriving after the login's new cookie, log the user straight out again. Without a session, no
 * cookie is sent.
 */
async function leaveSessionAlone(request: FastifyRequest): Promise<void> {
  (request as { session?: unknown }).session = undefined;
}

/**
 * The two files a phone needs at the site root to install Hearth: the web app manifest, and the
 * service worker (its scope is the folder it is served from, so it must be /sw.js to cover every
 * page). Public and GET only: browsers may fetch the manifest without cookies, and neither file
 * says anything private. Icons and the offline page are ordinary files under /static/.
 */
export function registerAppInstallRoutes(app: FastifyInstance, options: { projectRoot: string }): void {
  const publicFolder = path.join(options.projectRoot, 'public');
  // Read once at start-up: they change only with a new release.
  const manifest = fs.readFileSync(path.join(publicFolder, 'manifest.webmanifest'), 'utf8');
  const serviceWorker = fs.readFileSync(path.join(publicFolder, 'sw.js'), 'utf8');

  app.get('/manifest.webmanifest', { onRequest: leaveSessionAlone }, async (_request, reply) => {
    reply.type('application/manifest+json; charset=utf-8').header('Cache-Control', 'no-cache');
    return manifest;
  });

  app.get('/sw.js', { onRequest: leaveSessionAlone }, async (_request, reply) => {
    // no-cache: the browser asks again on each visit, so a new version is picked up at once.
    reply.type('text/javascript; charset=utf-8').header('Cache-Control', 'no-cache');
    return serviceWorker;
  });
}
