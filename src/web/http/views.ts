import path from 'node:path';
import view from '@fastify/view';
import { Eta } from 'eta';
import type { FastifyInstance } from 'fastify';

/** One Eta instance renders whole pages (through @fastify/view) and the partials sent over the socket. */
export function createTemplates(root: string): Eta {
  return new Eta({ views: path.join(root, 'views'), cache: true, autoEscape: true });
}

export async function registerViews(app: FastifyInstance, templates: Eta): Promise<void> {
  // Without production mode @fastify/view turns Eta's cache off at every render, so every page and
  // socket update would re-read and recompile its templates. Templates change only with a restart.
  await app.register(view, {
    engine: { eta: templates },
    root: templates.config.views!,
    viewExt: 'eta',
    production: process.env.NODE_ENV !== 'development',
  });
}
