import type { SqliteDatabase } from './database.js';

/**
 * Failed logins counted per key in one SQLite table (its column is still named `address`). The
 * login budgets use three kinds of key: a source address as the request gives it (never a space
 * in it), `device <id>` for a browser with a device cookie, and `all untrusted browsers` for the
 * budget shared by every browser without one.
 */
export interface LoginFailureStore {
  /** Failures counted for this key in its current window (0 when the window has ended). */
  failuresOf(key: string): number;
  /** When this key may try again (ms since epoch), or undefined when it is not locked out. */
  lockedUntil(key: string): number | undefined;
  /** Counts one wrong password; the first failure starts the key's window. */
  recordFailure(key: string): void;
  /** Takes back one counted failure (an attempt counted before bcrypt that proved right). */
  withdrawFailure(key: string): void;
  /** A right password forgets the key's earlier typos. */
  forget(key: string): void;
  prune(): number;
}

export interface LoginFailureOptions {
  /** Wrong passwords allowed per key per window; the next attempts wait for the window to end. */
  maxFailures: number;
  windowMs: number;
  now?: () => number;
}

/**
 * In SQLite so a restart does not hand an attacker a fresh budget. Only failures count: the
 * owner's successful logins never lock anyone out.
 */
export function createLoginFailureStore(database: SqliteDatabase, options: LoginFailureOptions): LoginFailureStore {
  const now = options.now ?? Date.now;
  const select = database.prepare<[string, number], { failures: number; window_started_at: number }>(
    'SELECT failures, window_started_at FROM login_failures WHERE address = ? AND window_started_at > ?',
  );
  // A new window starts when the last one has ended (the row is then replaced).
  const startWindow = database.prepare<[string, number]>(
    `INSERT INTO login_failures (address, failures, window_started_at) VALUES (?, 1, ?)
     ON CONFLICT (address) DO UPDATE SET failures = 1, window_started_at = excluded.window_started_at`,
  );
  const countFailure = database.prepare<[string]>('UPDATE login_failures SET failures = failures + 1 WHERE address = ?');
  const uncountFailure = database.prepare<[string]>('UPDATE login_failures SET failures = MAX(failures - 1, 0) WHERE address = ?');
  const remove = database.prepare<[string]>('DELETE FROM login_failures WHERE address = ?');
  const removeEnded = database.prepare<[number]>('DELETE FROM login_failures WHERE window_started_at <= ?');

  const current = (key: string) => select.get(key, now() - options.windowMs);

  return {
    failuresOf: (key) => current(key)?.failures ?? 0,
    lockedUntil(key) {
      const row = current(key);
      return row && row.failures >= options.maxFailures ? row.window_started_at + options.windowMs : undefined;
    },
    recordFailure(key) {
      if (current(key)) countFailure.run(key);
      else startWindow.run(key, now());
    },
    withdrawFailure: (key) => void uncountFailure.run(key),
    forget: (key) => void remove.run(key),
    prune: () => removeEnded.run(now() - options.windowMs).changes,
  };
}
