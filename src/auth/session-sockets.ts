import type { WebSocket } from 'ws';

/** Close code that htmx's WebSocket extension does not retry: the page must log in again. */
export const loggedOutCloseCode = 4401;

/** Open sockets by session, so logging out also closes that session's chat sockets at once. */
export class SessionSockets {
  readonly #sockets = new Map<string, Set<WebSocket>>();

  add(sessionId: string, socket: WebSocket): void {
    let sockets = this.#sockets.get(sessionId);
    if (!sockets) {
      sockets = new Set();
      this.#sockets.set(sessionId, sockets);
    }
    sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(socket);
      if (sockets.size === 0) this.#sockets.delete(sessionId);
    });
  }

  closeAll(sessionId: string): void {
    for (const socket of this.#sockets.get(sessionId) ?? []) socket.close(loggedOutCloseCode, 'Logged out');
  }

  get count(): number {
    let total = 0;
    for (const sockets of this.#sockets.values()) total += sockets.size;
    return total;
  }
}
