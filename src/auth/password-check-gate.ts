/**
 * A global cap on bcrypt work in flight. bcrypt runs on libuv's thread pool (4 threads), which
 * file reads and DNS share: a flood of login attempts from many addresses must leave threads and
 * CPU for the chat. Attempts beyond the cap wait in a short queue; addresses that have not failed
 * (the owner, usually) go ahead of addresses that have, and may take a suspect's place when the
 * queue is full. Whoever finds no place is told to try again (429) without any bcrypt work.
 */
export type CheckPriority = 'clean' | 'suspect';

export interface PasswordCheckGateOptions {
  /** bcrypt compares running at once. */
  concurrent: number;
  /** Attempts waiting for a turn; more are refused. */
  queued: number;
}

interface Waiter {
  priority: CheckPriority;
  admit: (admitted: boolean) => void;
}

export class PasswordCheckGate {
  readonly #options: PasswordCheckGateOptions;
  readonly #waiting: Waiter[] = [];
  #running = 0;

  constructor(options: PasswordCheckGateOptions) {
    this.#options = options;
  }

  get running(): number {
    return this.#running;
  }

  get waiting(): number {
    return this.#waiting.length;
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
    return new Promise((admit) => {
      const waiter: Waiter = { priority, admit };
      if (this.#waiting.length >= this.#options.queued) {
        const suspect = priority === 'clean' ? this.#waiting.findLastIndex((entry) => entry.priority === 'suspect') : -1;
        if (suspect < 0) return admit(false);
        this.#waiting.splice(suspect, 1)[0]!.admit(false);
      }
      if (priority === 'clean') {
        const firstSuspect = this.#waiting.findIndex((entry) => entry.priority === 'suspect');
        this.#waiting.splice(firstSuspect < 0 ? this.#waiting.length : firstSuspect, 0, waiter);
      } else {
        this.#waiting.push(waiter);
      }
    });
  }

  #leave(): void {
    const next = this.#waiting.shift();
    if (next) next.admit(true);
    else this.#running -= 1;
  }
}
