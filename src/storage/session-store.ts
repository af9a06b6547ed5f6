import type { SessionStore } from '@fastify/session';
import type { Session } from 'fastify';
import type { SqliteDatabase } from './database.js';

type Callback = (error?: unknown) => void;
type GetCallback = (error: unknown, session?: Session | null) => void;

/** Anonymous sessions (a login form's CSRF secret) kept at most; older ones are dropped first. */
export const anonymousSessionCap = 1000;

export interface SqliteSessionStore extends SessionStore {
  /** When a logged-in session ends (ms since epoch), or undefined when it is gone, logged out or expired. */
  authenticatedUntil(sessionId: string): number | undefined;
  /**
   * Logs out every logged-in session (after a password change); returns how many were logged in.
   * Anonymous login-form sessions hold only a CSRF secret: they are neither counted nor deleted.
   */
  logOutAll(): number;
  /**
   * Moves a logged-in, unexpired session's end (a sliding login, used over a WebSocket where no
   * response carries a cookie); the cookie copy in its data moves too, or the next page request
   * would find it expired. False when it is gone, logged out or expired.
   */
  extendAuthenticated(sessionId: string, until: number): boolean;
  prune(): number;
}

/** @fastify/session store in SQLite, so a server restart does not log anyone out. */
export function createSqliteSessionStore(database: SqliteDatabase, now: () => number = Date.now): SqliteSessionStore {
  const select = database.prepare<[string, number], { data: string }>(
    'SELECT data FROM sessions WHERE id = ? AND expires_at > ?',
  );
  const selectLive = database.prepare<[string, number], { expires_at: number }>(
    'SELECT expires_at FROM sessions WHERE id = ? AND authenticated = 1 AND expires_at > ?',
  );
  const upsert = database.prepare<[string, string, number, number]>(
    `INSERT INTO sessions (id, data, expires_at, authenticated) VALUES (?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET data = excluded.data, expires_at = excluded.expires_at, authenticated = excluded.authenticated`,
  );
  // A logged-in session is only ever updated, never created: a request still in flight when the
  // session was deleted (logout, `npm run set-password`) must not bring it back when it saves.
  // Login creates the row first, as the anonymous session that regenerate() stores.
  const updateAuthenticated = database.prepare<[string, number, string]>(
    'UPDATE sessions SET data = ?, expires_at = ?, authenticated = 1 WHERE id = ?',
  );
  const extend = database.prepare<[number, string, string, number]>(
    `UPDATE sessions SET expires_at = ?, data = json_set(data, '$.cookie.expires', ?)
     WHERE id = ? AND authenticated = 1 AND expires_at > ?`,
  );
  const remove = database.prepare<[string]>('DELETE FROM sessions WHERE id = ?');
  const removeLoggedIn = database.prepare<[], { expires_at: number }>('DELETE FROM sessions WHERE authenticated = 1 RETURNING expires_at');
  const removeExpired = database.prepare<[number]>('DELETE FROM sessions WHERE expires_at <= ?');
  // A flood of login-page visits must not grow the table without bound.
  const trimAnonymous = database.prepare<[number]>(
    `DELETE FROM sessions WHERE authenticated = 0 AND id NOT IN
       (SELECT id FROM sessions WHERE authenticated = 0 ORDER BY expires_at DESC LIMIT ?)`,
  );
  let anonymousWrites = 0;

  return {
    set(sessionId: string, session: Session, callback: Callback) {
      try {
        const expires = session.cookie.expires ? new Date(session.cookie.expires).getTime() : now() + 86_400_000;
        if (session.authenticated === true) {
          updateAuthenticated.run(JSON.stringify(session), expires, sessionId);
        } else {
          upsert.run(sessionId, JSON.stringify(session), expires, 0);
          if ((anonymousWrites += 1) % 100 === 0) trimAnonymous.run(anonymousSessionCap);
        }
        callback();
      } catch (error) {
        callback(error);
      }
    },
    get(sessionId: string, callback: GetCallback) {
      try {
        const row = select.get(sessionId, now());
        callback(null, row ? (JSON.parse(row.data) as Session) : null);
      } catch (error) {
        callback(error);
      }
    },
    destroy(sessionId: string, callback: Callback) {
      try {
        remove.run(sessionId);
        callback();
      } catch (error) {
        callback(error);
      }
    },
    authenticatedUntil: (sessionId) => selectLive.get(sessionId, now())?.expires_at,
    extendAuthenticated: (sessionId, until) => extend.run(until, new Date(until).toISOString(), sessionId, now()).changes === 1,
    logOutAll() {
      // Expired rows go too, but only sessions still logged in are counted as logged out.
      const at = now();
      return removeLoggedIn.all().filter((row) => row.expires_at > at).length;
    },
    prune: () => removeExpired.run(now()).changes,
  };
}
