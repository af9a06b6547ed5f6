import path from 'node:path';
import view from '@fastify/view';
import { Eta } from 'eta';
import type { FastifyInstance } from 'fastify';

/** One Eta instance renders whole pages (through @fastify/view) and the partials sent over the socket. */
export function createTemplates(root: string): Eta {
  return new Eta({ views: path.join(root, 'views'), cache: true, autoEscape: true });
}

export async function registerViews(app: FastifyInstance, templates: Eta): Promise<void> {
  await app.register(view, { engine: { eta: templates }, root: templates.config.views!, viewExt: 'eta' });
}
