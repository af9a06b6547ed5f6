import { Tool } from '../../engine/tools/tool.js';
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
}
