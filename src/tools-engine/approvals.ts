import type { SettingsStore } from '../storage/settings-store.js';

export type ApprovalDecision = 'approve' | 'deny';

const alwaysAllowSetting = 'tools_always_allowed';

/**
 * Tools that act on the world wait here for the person's Approve or Deny. "Always allow"
 * is remembered per tool in the settings table.
 */
export class ApprovalDesk {
  readonly #waiting = new Map<number, (decision: ApprovalDecision) => void>();

  constructor(private readonly settings: SettingsStore) {}

  isAlwaysAllowed(toolName: string): boolean {
    return this.#alwaysAllowed().includes(toolName);
  }

  #alwaysAllowed(): string[] {
    try {
      const value: unknown = JSON.parse(this.settings.get(alwaysAllowSetting) ?? '[]');
      return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
    } catch {
      return [];
    }
  }

  /** Waits for a decision; Stop (the signal) counts as a denial. */
  wait(toolCallId: number, signal: AbortSignal): Promise<ApprovalDecision> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve('deny');
      const onAbort = () => finish('deny');
      const finish = (decision: ApprovalDecision) => {
        this.#waiting.delete(toolCallId);
        signal.removeEventListener('abort', onAbort);
        resolve(decision);
      };
      this.#waiting.set(toolCallId, finish);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** False when nothing is waiting for this call (already decided, or from an old page). */
  decide(toolCallId: number, decision: ApprovalDecision, always: { toolName: string } | undefined): boolean {
    const finish = this.#waiting.get(toolCallId);
    if (!finish) return false;
    if (decision === 'approve' && always) {
      const allowed = new Set(this.#alwaysAllowed());
      allowed.add(always.toolName);
      this.settings.set(alwaysAllowSetting, JSON.stringify([...allowed]));
    }
    finish(decision);
    return true;
  }

  isWaiting(toolCallId: number): boolean {
    return this.#waiting.has(toolCallId);
  }
}
