import type { SqliteDatabase } from '../../storage/database.js';
import { createLoginFailureStore } from '../../storage/login-failure-store.js';

/**
 * How many wrong passwords a login attempt may be one of (OWASP, "Slow Down Online Guessing
 * Attacks with Device Cookies"). A browser with a valid device cookie is counted against its own
 * budget only. Every other attempt is counted against its source address and against one budget
 * shared by all browsers without a device cookie, so taking many addresses on the LAN (IPv6 has no
 * end of them) buys no more guesses. Once a budget is spent its attempts are refused without
 * bcrypt until its window ends: a refusal costs the server nothing, where a growing delay would
 * hold a connection open per guess. Sessions already logged in are not involved at all.
 */
export interface LoginBudgetOptions {
  /** Wrong passwords per source address per window (browsers without a device cookie). */
  perAddress: number;
  /** Wrong passwords per window for one browser with a device cookie. */
  perDevice: number;
  /** Wrong passwords per window shared by every browser without a device cookie. */
  untrusted: number;
  windowMs: number;
  now?: () => number;
}

/** Which budget is spent: this browser's, this address's, or the one shared by untrusted browsers. */
export type LoginLockReason = 'device' | 'address' | 'untrusted';

export interface LoginLock {
  reason: LoginLockReason;
  /** When the budget's window ends (ms since epoch). */
  until: number;
}

export interface AttemptBudget {
  /** What parallel attempts are grouped by: the device or the address. */
  key: string;
  /** Whether a valid device cookie came with the attempt. */
  trusted: boolean;
  /** The spent budget that refuses this attempt, or undefined when it may be checked. */
  lock(): LoginLock | undefined;
  /** Whether this device or address has wrong passwords in its window (its attempts wait behind clean ones). */
  hasFailed(): boolean;
  /** Counted before bcrypt runs, so parallel guesses cannot overspend. */
  recordFailure(): void;
  /** A right password forgets the device's or address's typos and takes back this attempt's count. */
  recordSuccess(): void;
}

export interface LoginBudgets {
  forAttempt(address: string, deviceId: string | undefined): AttemptBudget;
  prune(): void;
}

/** Addresses never hold a space, so these keys cannot be taken by a forged address. */
const untrustedKey = 'all untrusted browsers';
const deviceKey = (deviceId: string) => `device ${deviceId}`;

export function createLoginBudgets(database: SqliteDatabase, options: LoginBudgetOptions): LoginBudgets {
  const store = (maxFailures: number) => createLoginFailureStore(database, { maxFailures, windowMs: options.windowMs, now: options.now });
  const perAddress = store(options.perAddress);
  const perDevice = store(options.perDevice);
  const untrusted = store(options.untrusted);

  return {
    forAttempt(address, deviceId) {
      if (deviceId !== undefined) {
        const key = deviceKey(deviceId);
        return {
          key,
          trusted: true,
          lock: () => {
            const until = perDevice.lockedUntil(key);
            return until === undefined ? undefined : { reason: 'device', until };
          },
          hasFailed: () => perDevice.failuresOf(key) > 0,
          recordFailure: () => perDevice.recordFailure(key),
          recordSuccess: () => perDevice.forget(key),
        };
      }
      return {
        key: address,
        trusted: false,
        lock: () => {
          const addressUntil = perAddress.lockedUntil(address);
          if (addressUntil !== undefined) return { reason: 'address', until: addressUntil };
          const untrustedUntil = untrusted.lockedUntil(untrustedKey);
          return untrustedUntil === undefined ? undefined : { reason: 'untrusted', until: untrustedUntil };
        },
        hasFailed: () => perAddress.failuresOf(address) > 0,
        recordFailure: () => {
          perAddress.recordFailure(address);
          untrusted.recordFailure(untrustedKey);
        },
        // The shared count only takes this attempt back: others' guesses are not forgiven.
        recordSuccess: () => {
          perAddress.forget(address);
          untrusted.withdrawFailure(untrustedKey);
        },
      };
    },
    // All three budgets share one table and one window length.
    prune: () => void perAddress.prune(),
  };
}
