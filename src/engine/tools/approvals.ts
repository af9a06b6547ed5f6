import type { SettingsStore } from '../../storage/settings-store.js';

export type ApprovalDecision = 'approve' | 'deny' | 'expired';

const alwaysAllowSetting = 'tools_always_allowed';

/** How long a card waits for an answer before the reply ends without acting. */
export const defaultApprovalExpiryMs = 10 * 60_000;

/**
 * Tools that act on the world wait here for the person's Approve or Deny. "Always allow"
 * is remembered per tool in the settings table, listed on the tools page and revocable there.
 * A card nobody answers expires, so a forgotten approval never keeps a reply open for ever.
 */
export class ApprovalDesk {
  readonly #waiting = new Map<number, (decision: ApprovalDecision) => void>();
  readonly #settings: SettingsStore;
  readonly expiryMs: number;

  constructor(settings: SettingsStore, options: { expiryMs?: number } = {}) {
    this.#settings = settings;
    this.expiryMs = options.expiryMs ?? defaultApprovalExpiryMs;
  }

  isAlwaysAllowed(toolName: string): boolean {
    return this.alwaysAllowed().includes(toolName);
  }

  /** The tools the person ticked "Always allow" for, in the order they did. */
  alwaysAllowed(): string[] {
    try {
      const value: unknown = JSON.parse(this.#settings.get(alwaysAllowSetting) ?? '[]');
      return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
    } catch {
      return [];
    }
  }

  /** The person lets a tool act without asking (a card's "Always allow", or the tools page). */
  allowAlways(toolName: string): void {
    const allowed = new Set(this.alwaysAllowed());
    allowed.add(toolName);
    this.#settings.set(alwaysAllowSetting, JSON.stringify([...allowed]));
  }

  /** Takes back an "Always allow": the tool asks again from its next call. False if it was not allowed. */
  revoke(toolName: string): boolean {
    const allowed = this.alwaysAllowed();
    if (!allowed.includes(toolName)) return false;
    this.#settings.set(alwaysAllowSetting, JSON.stringify(allowed.filter((name) => name !== toolName)));
    return true;
  }

  /** Waits for a decision; Stop (the signal) counts as a denial, silence past expiryMs as 'expired'. */
  wait(toolCallId: number, signal: AbortSignal): Promise<ApprovalDecision> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve('deny');
      const onAbort = () => finish('deny');
      const timer = setTimeout(() => finish('expired'), this.expiryMs);
      const finish = (decision: ApprovalDecision) => {
        this.#waiting.delete(toolCallId);
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        resolve(decision);
      };
      this.#waiting.set(toolCallId, finish);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** False when nothing is waiting for this call (already decided, expired, or from an old page). */
  decide(toolCallId: number, decision: 'approve' | 'deny', always: { toolName: string } | undefined): boolean {
    const finish = this.#waiting.get(toolCallId);
    if (!finish) return false;
    if (decision === 'approve' && always) this.allowAlways(always.toolName);
    finish(decision);
    return true;
  }

  isWaiting(toolCallId: number): boolean {
    return this.#waiting.has(toolCallId);
  }
}
