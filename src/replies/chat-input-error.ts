import type { ErrorNotice } from './error-notice.js';

/**
 * Something the person sent that cannot be used; the text says what to do instead. Its own module
 * so that other capabilities (photos) can extend it without importing the chat service.
 */
export class ChatInputError extends Error {
  override name = 'ChatInputError';

  /** `notice`: how the chat shows it, when more than the message itself (a headline naming a server, a Retry). */
  constructor(
    message: string,
    readonly notice?: ErrorNotice,
  ) {
    super(message);
  }
}
