import websocket, { type WebsocketPluginOptions } from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';

/** Close code for "the server is restarting": htmx's WebSocket extension reconnects on it. */
export const serverRestartCloseCode = 1012;

export interface ShutdownOptions {
  /** Stops every running reply and resolves once each is saved as stopped. */
  stopReplies: () => Promise<void>;
  /** How long a page or a request may take to let go before its connection is cut. */
  graceMs?: number;
  /** Options for the ws server behind @fastify/websocket. */
  socketOptions?: WebsocketPluginOptions['options'];
}

/**
 * Registers @fastify/websocket with a shutdown that cannot be held by a device that stopped
 * answering. Left to themselves, `app.close()` waits for every chat socket's closing handshake
 * (ws gives a silent peer 30 s: a phone asleep with the chat open is one) and for every request
 * still being received (up to the 60 s request timeout), and only then runs the onClose hooks
 * that save running replies. So, in this order, before the server waits for anything:
 * replies are stopped and saved, each page is told the server is restarting (its socket
 * reconnects when Hearth is back), and after `graceMs` whatever has not let go is cut.
 */
export async function registerSocketsWithShutdown(app: FastifyInstance, options: ShutdownOptions): Promise<void> {
  const graceMs = options.graceMs ?? 1000;
  let cutTimer: NodeJS.Timeout | undefined;
  app.addHook('preClose', async () => {
    // A page reconnecting meanwhile is turned away at once. (Answered 503 by Fastify instead, its
    // connection would be out of both ws's and the HTTP server's reach, and hold the close.)
    app.server.removeAllListeners('upgrade');
    app.server.on('upgrade', (_request, socket) => socket.destroy());
    await options.stopReplies();
    cutTimer = setTimeout(() => app.server.closeAllConnections(), graceMs).unref();
  });
  app.addHook('onClose', async () => clearTimeout(cutTimer));
  await app.register(websocket, {
    options: options.socketOptions,
    preClose: async function closeSockets(this: FastifyInstance) {
      await Promise.all([...this.websocketServer.clients].map((socket) => closeSocket(socket, graceMs)));
      this.websocketServer.close();
    },
  });
}

function closeSocket(socket: WebSocket, graceMs: number): Promise<void> {
  if (socket.readyState === socket.CLOSED) return Promise.resolve();
  return new Promise((resolve) => {
    const cut = setTimeout(() => socket.terminate(), graceMs);
    socket.once('close', () => {
      clearTimeout(cut);
      resolve();
    });
    socket.close(serverRestartCloseCode, 'Hearth is restarting');
  });
}
