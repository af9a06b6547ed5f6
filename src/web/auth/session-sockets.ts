import type { WebSocket } from 'ws';

/** Close code that htmx's WebSocket extension does not retry: the page must log in again. */
export const loggedOutCloseCode = 4401;

/** Why a socket's login ended: this browser logged out, or the login expired or was ended (a password change). */
export type SessionEndReason = 'logged-out' | 'expired';

/**
 * The last data frame a socket gets before it closes with loggedOutCloseCode. The page stops
 * reconnecting, keeps what was typed, and asks for the password in place (GET /login has the
 * form; POST /login with `next` set to the page's own path).
 */
export function sessionEndedFrame(reason: SessionEndReason): string {
  const message =
    reason === 'logged-out'
      ? 'You logged out in this browser. Enter the password to go on; what you typed is kept.'
      : 'Your login has ended. Enter the password to go on; what you typed is kept.';
  return JSON.stringify({ event: 'session-ended', reason, message, login: '/login' });
}

/** Says why, then closes: a frame sent before the close frame arrives before it. */
export function endSocketSession(socket: WebSocket, reason: SessionEndReason): void {
  if (socket.readyState === socket.OPEN) socket.send(sessionEndedFrame(reason));
  socket.close(loggedOutCloseCode, reason === 'logged-out' ? 'Logged out' : 'Log in again');
}

export interface SessionSocketsOptions {
  /** When a logged-in session ends, or undefined when it is gone (the session store answers). */
  authenticatedUntil: (sessionId: string) => number | undefined;
  /** How often an idle socket re-checks its session (a deletion by another process is seen this late at worst). */
  checkEveryMs?: number;
  now?: () => number;
}

/**
 * Open sockets by session, so logging out closes that session's chat sockets at once, and a
 * socket whose session expires or is deleted (`npm run set-password`) closes by itself: each
 * socket re-checks its session at its expiry time and at least every `checkEveryMs`. (Each
 * message is checked too, by the chat socket's isAuthenticated call.)
 */
export class SessionSockets {
  readonly #sockets = new Map<string, Set<WebSocket>>();
  readonly #authenticatedUntil: (sessionId: string) => number | undefined;
  readonly #checkEveryMs: number;
  readonly #now: () => number;

  constructor(options: SessionSocketsOptions) {
    this.#authenticatedUntil = options.authenticatedUntil;
    this.#checkEveryMs = options.checkEveryMs ?? 30_000;
    this.#now = options.now ?? Date.now;
  }

  add(sessionId: string, socket: WebSocket): void {
    let sockets = this.#sockets.get(sessionId);
    if (!sockets) {
      sockets = new Set();
      this.#sockets.set(sessionId, sockets);
    }
    sockets.add(socket);
    let timer: NodeJS.Timeout | undefined;
    const check = () => {
      const until = this.#authenticatedUntil(sessionId);
      const left = until === undefined ? 0 : until - this.#now();
      if (left <= 0) {
        endSocketSession(socket, 'expired');
        return;
      }
      timer = setTimeout(check, Math.min(left + 50, this.#checkEveryMs));
      timer.unref();
    };
    socket.once('close', () => {
      clearTimeout(timer);
      sockets.delete(socket);
      if (sockets.size === 0) this.#sockets.delete(sessionId);
    });
    check();
  }

  closeAll(sessionId: string): void {
    for (const socket of this.#sockets.get(sessionId) ?? []) endSocketSession(socket, 'logged-out');
  }

  get count(): number {
    let total = 0;
    for (const sockets of this.#sockets.values()) total += sockets.size;
    return total;
  }
}
