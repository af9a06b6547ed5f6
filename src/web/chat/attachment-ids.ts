import { photoLimits } from '../../providers/photos/photo-checks.js';
import { ChatInputError } from '../../replies/chat-input-error.js';
import { maxRecordId, type Schema } from '../http/request-schemas.js';

/** Photo ids as the chat form and the socket's `send` carry them: "3,4" (the hidden field), or a list. */
export const attachmentIdsSchema: Schema = {
  title: 'attached photos',
  description: 'photo ids separated by commas',
  anyOf: [
    { title: 'attached photos', description: 'photo ids separated by commas', type: 'string' },
    { title: 'attached photos', description: 'a list of photo ids', type: 'array', items: { type: 'string' } },
  ],
};

/**
 * Attachment ids from a send command or form: "3,4", ["3", "4"]. Anything else is refused rather
 * than dropped, so a photo is never silently left out; the sender keeps their text and is told.
 */
export function parseAttachmentIds(value: string | string[] | undefined): number[] {
  const parts = [value ?? []].flat().flatMap((part) => part.split(','));
  const ids: number[] = [];
  for (const part of parts.map((text) => text.trim())) {
    if (part === '') continue;
    const id = Number(part);
    if (!/^[1-9][0-9]*$/.test(part) || id > maxRecordId) {
      throw new ChatInputError('The attached photos could not be read. Remove them and attach them again.');
    }
    if (!ids.includes(id)) ids.push(id);
  }
  if (ids.length > 64) throw new ChatInputError(`At most ${photoLimits.perMessage} photos can go with one message.`);
  return ids;
}
