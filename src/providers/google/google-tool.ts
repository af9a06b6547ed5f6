import { Tool, type ApprovalNeed } from '../../engine/tools/tool.js';
import { noGoogleAccountMessage } from './google-services.js';

/** What a Gmail or Calendar call's card says when no account is connected: words for the person, not the model. */
export const noGoogleAccountReason = 'no Google account is connected yet (the Tools page says how to connect one)';

/**
 * A Gmail or Calendar tool: offered to the model only while at least one Google account is
 * connected (a token in TOKENS_DIR), so a chat without one is not steered towards mail it
 * cannot read.
 */
export abstract class GoogleTool extends Tool.using('google') {
  override unavailableReason(): string | undefined {
    return this.services.google.listAccounts().length === 0 ? noGoogleAccountReason : undefined;
  }

  /** A call that failed for want of an account says so in the person's words; its result was written for the model. */
  override explainFailure(result: string): string | undefined {
    return result.includes(noGoogleAccountMessage) ? noGoogleAccountReason : undefined;
  }

  /**
   * Always asks, showing what the call will do (the lines `preview` makes, from the same plan
   * `run` carries out; `stop` is approvalFor's signal). When the plan cannot be made (a wrong date, Google unreachable) it still
   * asks, saying why: a write never runs unasked because looking ahead failed.
   */
  protected async askShowing(stop: AbortSignal, preview: (signal: AbortSignal) => Promise<string[]>): Promise<ApprovalNeed> {
    try {
      // Stop ends a slow lookup at once, as it ends a call that runs.
      const lines = await preview(AbortSignal.any([stop, AbortSignal.timeout(Math.min(this.timeoutMs, 15_000))]));
      return { ask: true, preview: lines.join('\n') };
    } catch (error) {
      if (stop.aborted) return { ask: true, preview: 'Stopped before it was prepared.' };
      const reason = error instanceof Error ? error.message : String(error);
      return { ask: true, preview: `Could not prepare this: ${reason.split('\n')[0]!.slice(0, 300)}` };
    }
  }
}

/**
 * A tool that sends mail: it always asks, "Always allow" is never offered (a sent message cannot
 * be called back), and its card sums up whom it went to. Its result says "To: … | Subject: …" (a reply may add "| Cc: …").
 */
export abstract class MailSendingTool extends GoogleTool {
  override readonly timeoutMs = 30_000;
  override readonly actsOnWorld = true;
  override readonly canAlwaysAllow = false;

  override summarize(result: string): string | undefined {
    return / To: (.*?) (?:\| Cc: .*? )?\| Subject: /.exec(result)?.[1]?.replace(/^/, 'to ');
  }
}
