import type { SessionStore } from '@fastify/session';
import type { Session } from 'fastify';
import type { SqliteDatabase } from './database.js';

type Callback = (error?: unknown) => void;
type GetCallback = (error: unknown, session?: Session | null) => void;

/** @fastify/session store in SQLite, so a server restart does not log anyone out. */
export function createSqliteSessionStore(database: SqliteDatabase, now: () => number = Date.now): SessionStore & {
  prune(): number;
} {
  const select = database.prepare<[string, number], { data: string }>(
    'SELECT data FROM sessions WHERE id = ? AND expires_at > ?',
  );
  const upsert = database.prepare<[string, string, number]>(
    'INSERT INTO sessions (id, data, expires_at) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET data = excluded.data, expires_at = excluded.expires_at',
  );
  const remove = database.prepare<[string]>('DELETE FROM sessions WHERE id = ?');
  const removeExpired = database.prepare<[number]>('DELETE FROM sessions WHERE expires_at <= ?');

  return {
    set(sessionId: string, session: Session, callback: Callback) {
      try {
        const expires = session.cookie.expires ? new Date(session.cookie.expires).getTime() : now() + 86_400_000;
        upsert.run(sessionId, JSON.stringify(session), expires);
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
    prune: () => removeExpired.run(now()).changes,
  };
}
