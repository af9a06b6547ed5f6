import { ToolError } from '../../engine/tools/tool.js';
import type { GoogleServices } from './google-services.js';

/** Gmail message ids are short hex strings; anything else is refused before it reaches a URL. */
export const messageIdPattern = /^[A-Za-z0-9_-]{6,64}$/;

/** The message in the named account, or in whichever authorized account has it. */
export async function findMessage(google: GoogleServices, id: string, account: string | undefined, signal: AbortSignal, format: 'full' | 'metadata' = 'full', metadataHeaders?: string[]) {
  const accounts = google.resolveAccounts(account);
  for (const candidate of accounts) {
    const gmail = await google.gmail(candidate);
    try {
      const response = await google.call(
        { account: candidate, service: 'Gmail', notFound: `No message with id ${id} in ${accounts.length > 1 ? 'any authorized account' : candidate}. Use search_emails to find the right id.` },
        () => gmail.users.messages.get({ userId: 'me', id, format, ...(metadataHeaders ? { metadataHeaders } : {}) }, { signal }),
      );
      return { account: candidate, message: response.data };
    } catch (error) {
      // Not in this account: try the next one, and report "not found" after the last.
      if (!(error instanceof ToolError) || !error.message.startsWith('No message with id') || candidate === accounts.at(-1)) throw error;
    }
  }
  throw new ToolError(`No message with id ${id}.`);
}
