/**
 * A global cap on bcrypt work in flight. bcrypt runs on libuv's thread pool (4 threads), which
 * file reads and DNS share: a flood of login attempts from many addresses must leave threads and
 * CPU for the chat. Attempts beyond the cap wait in short queues: "trusted" attempts (a browser
 * with a device cookie, no failures and nothing else pending: the owner's) go first, then "clean"
 * ones (an address with no failures and nothing else pending), then "suspect" ones. Whoever finds
 * its queue full is told to try again (429) without bcrypt work.
 */
export type CheckPriority = 'trusted' | 'clean' | 'suspect';

const rank: Record<CheckPriority, number> = { trusted: 0, clean: 1, suspect: 2 };

export interface PasswordCheckGateOptions {
  /** bcrypt compares running at once. */
  concurrent: number;
  /** Attempts that may wait for a turn, by priority; more are refused. */
  queuedTrusted: number;
  queuedClean: number;
  queuedSuspect: number;
}

interface Waiter {
  priority: CheckPriority;
  admit: () => void;
}

export class PasswordCheckGate {
  readonly #options: PasswordCheckGateOptions;
  readonly #waiting: Waiter[] = [];
  #running = 0;

  constructor(options: PasswordCheckGateOptions) {
    this.#options = options;
  }

  /** Runs check when a turn comes; resolves to undefined when the gate is too busy to take it. */
  async run<T>(priority: CheckPriority, check: () => Promise<T>): Promise<T | undefined> {
    if (!(await this.#enter(priority))) return undefined;
    try {
      return await check();
    } finally {
      this.#leave();
    }
  }

  #enter(priority: CheckPriority): Promise<boolean> {
    if (this.#running < this.#options.concurrent) {
      this.#running += 1;
      return Promise.resolve(true);
    }
    const waitingLikeThis = this.#waiting.filter((entry) => entry.priority === priority).length;
    const room = { trusted: this.#options.queuedTrusted, clean: this.#options.queuedClean, suspect: this.#options.queuedSuspect }[priority];
    if (waitingLikeThis >= room) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter: Waiter = { priority, admit: () => resolve(true) };
      // Behind every waiter of its own or a higher priority, ahead of the lower ones.
      const firstLower = this.#waiting.findIndex((entry) => rank[entry.priority] > rank[priority]);
      if (firstLower >= 0) this.#waiting.splice(firstLower, 0, waiter);
      else this.#waiting.push(waiter);
    });
  }

  #leave(): void {
    const next = this.#waiting.shift();
    if (next) next.admit();
    else this.#running -= 1;
  }
}
