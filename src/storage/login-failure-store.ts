import type { SqliteDatabase } from './database.js';

export interface LoginFailureStore {
  /** Failures counted for this address in its current window (0 when the window has ended). */
  failuresOf(address: string): number;
  /** When this address may try again (ms since epoch), or undefined when it is not locked out. */
  lockedUntil(address: string): number | undefined;
  /** Counts one wrong password; the first failure starts the address's window. */
  recordFailure(address: string): void;
  /** A right password forgets the address's earlier typos. */
  forget(address: string): void;
  prune(): number;
}

export interface LoginFailureOptions {
  /** Wrong passwords allowed per address per window; the next attempts wait for the window to end. */
  maxFailures: number;
  windowMs: number;
  now?: () => number;
}

/**
 * Failed logins per source address, in SQLite so a restart does not hand an attacker a fresh
 * budget. Only failures count: the owner's successful logins never lock anyone out.
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
  const remove = database.prepare<[string]>('DELETE FROM login_failures WHERE address = ?');
  const removeEnded = database.prepare<[number]>('DELETE FROM login_failures WHERE window_started_at <= ?');

  const current = (address: string) => select.get(address, now() - options.windowMs);

  return {
    failuresOf: (address) => current(address)?.failures ?? 0,
    lockedUntil(address) {
      const row = current(address);
      return row && row.failures >= options.maxFailures ? row.window_started_at + options.windowMs : undefined;
    },
    recordFailure(address) {
      if (current(address)) countFailure.run(address);
      else startWindow.run(address, now());
    },
    forget: (address) => void remove.run(address),
    prune: () => removeEnded.run(now() - options.windowMs).changes,
  };
}
