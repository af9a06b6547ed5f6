import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';

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

  app.get('/manifest.webmanifest', async (_request, reply) => {
    reply.type('application/manifest+json; charset=utf-8').header('Cache-Control', 'no-cache');
    return manifest;
  });

  app.get('/sw.js', async (_request, reply) => {
    // no-cache: the browser asks again on each visit, so a new version is picked up at once.
    reply.type('text/javascript; charset=utf-8').header('Cache-Control', 'no-cache');
    return serviceWorker;
  });
}
