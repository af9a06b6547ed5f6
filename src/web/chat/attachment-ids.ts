import { photoLimits } from '../../providers/photos/photo-checks.js';
import { ChatInputError } from '../../replies/chat-input-error.js';

/**
 * Attachment ids from a send command or form: "3,4", ["3", "4"], [3, 4]. Anything else is
 * refused rather than dropped, so a photo is never silently left out.
 */
export function parseAttachmentIds(value: unknown): number[] {
  if (value === undefined || value === null || value === '') return [];
  const parts = (Array.isArray(value) ? value : [value]).flatMap((part) => (typeof part === 'string' ? part.split(',') : [part]));
  const ids: number[] = [];
  for (const part of parts) {
    if (typeof part === 'string' && part.trim() === '') continue;
    const id = Number(typeof part === 'string' ? part.trim() : part);
    if (!Number.isSafeInteger(id) || id <= 0 || (typeof part !== 'string' && typeof part !== 'number')) {
      throw new ChatInputError('The attached photos could not be read. Remove them and attach them again.');
    }
    if (!ids.includes(id)) ids.push(id);
  }
  if (ids.length > 64) throw new ChatInputError(`At most ${photoLimits.perMessage} photos can go with one message.`);
  return ids;
}
