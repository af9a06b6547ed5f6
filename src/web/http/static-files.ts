import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/** Our own assets and the two htmx files, served with caching; the pages name them explicitly. */
export async function registerStaticFiles(app: FastifyInstance, root: string): Promise<void> {
  await app.register(fastifyStatic, {
    root: path.join(root, 'public'),
    prefix: '/static/',
    maxAge: '1h',
    index: false,
    dotfiles: 'deny',
  });
  await app.register(fastifyStatic, {
    root: path.join(root, 'node_modules', 'htmx.org', 'dist'),
    prefix: '/static/vendor/',
    decorateReply: false,
    maxAge: '7d',
    immutable: true,
    index: false,
    allowedPath: (pathName) => ['/htmx.min.js', '/ext/hx-ws.min.js'].includes(pathName),
  });
}
