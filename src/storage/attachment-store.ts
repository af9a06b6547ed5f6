import type { SqliteDatabase } from './database.js';

export type PhotoMime = 'image/jpeg' | 'image/png' | 'image/webp';

/** A stored photo without its bytes (what pages, exports and checks need). */
export interface StoredAttachment {
  id: number;
  conversationId: number | null;
  /** null until the message it was attached to is sent. */
  messageId: number | null;
  mime: PhotoMime;
  /** Size in bytes. */
  size: number;
  width: number;
  height: number;
  /** The browser sent a small version for the thread. */
  hasThumbnail: boolean;
  createdAt: number;
}

export interface NewAttachment {
  mime: PhotoMime;
  bytes: Buffer;
  width: number;
  height: number;
}

export interface AttachmentStore {
  add(photo: NewAttachment): StoredAttachment;
  /** The photo with its bytes, for serving it. */
  getWithBytes(id: number): (StoredAttachment & { bytes: Buffer }) | undefined;
  /** The small version when there is one, else the photo itself. */
  getThumbnail(id: number): { mime: PhotoMime; bytes: Buffer } | undefined;
  /** Gives an unsent photo its small version; false when the photo is sent or gone. */
  setThumbnail(id: number, thumbnail: Buffer): boolean;
  /** Those of `ids` that exist and belong to no message yet. */
  listUnsent(ids: number[]): StoredAttachment[];
  /** Attaches unsent photos to a message; returns how many were linked. */
  linkToMessage(ids: number[], conversationId: number, messageId: number): number;
  /** Gives a new version of a message (an edit) the photos of the message it replaces; returns how many. */
  copyToMessage(fromMessageId: number, conversationId: number, toMessageId: number): number;
  /** Photos of these messages, by message id, in upload order. */
  listForMessages(messageIds: number[]): Map<number, StoredAttachment[]>;
  listForConversation(conversationId: number): StoredAttachment[];
  /** The photos of a conversation's shown messages (from `fromMessageId` on) as base64, by message id (what a vision model is sent). */
  imagesForConversation(conversationId: number, fromMessageId?: number): Map<number, string[]>;
  countUnsent(): number;
  /** Deletes a photo that was uploaded but not sent (removed from the tray); a sent one stays with its message. */
  deleteUnsent(id: number): boolean;
  /** Deletes photos uploaded before `before` (ms) and never sent. */
  pruneUnsent(before: number): number;
}

interface AttachmentRow {
  id: number;
  conversation_id: number | null;
  message_id: number | null;
  mime: PhotoMime;
  size: number;
  width: number;
  height: number;
  has_thumbnail: number;
  created_at: number;
}

const columns = 'id, conversation_id, message_id, mime, size, width, height, thumbnail IS NOT NULL AS has_thumbnail, created_at';

const toAttachment = (row: AttachmentRow): StoredAttachment => ({
  id: row.id,
  conversationId: row.conversation_id,
  messageId: row.message_id,
  mime: row.mime,
  size: row.size,
  width: row.width,
  height: row.height,
  hasThumbnail: row.has_thumbnail === 1,
  createdAt: row.created_at,
});

/** Unsent, or in a chat that is not deleted. */
const inShownChat = 'NOT EXISTS (SELECT 1 FROM conversations AS c WHERE c.id = attachments.conversation_id AND c.deleted_at IS NOT NULL)';

export function createAttachmentStore(database: SqliteDatabase, now: () => number = Date.now): AttachmentStore {
  // Lists of ids go in as one JSON array (json_each), so each statement is prepared once.
  const statements = {
    insert: database.prepare<[PhotoMime, Buffer, number, number, number, number], AttachmentRow>(
      `INSERT INTO attachments (mime, bytes, size, width, height, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING ${columns}`,
    ),
    // A photo of a deleted chat is gone at once, not when the chat is purged seconds later (and
    // back again if the deletion is undone).
    selectWithBytes: database.prepare<[number], AttachmentRow & { bytes: Buffer }>(
      `SELECT ${columns}, bytes FROM attachments WHERE id = ? AND ${inShownChat}`,
    ),
    selectThumbnail: database.prepare<[number], { mime: PhotoMime; thumbnail: Buffer | null; bytes: Buffer | null }>(
      // The photo's bytes are read only when it has no thumbnail.
      `SELECT mime, thumbnail, CASE WHEN thumbnail IS NULL THEN bytes END AS bytes FROM attachments WHERE id = ? AND ${inShownChat}`,
    ),
    setThumbnail: database.prepare<[Buffer, number]>('UPDATE attachments SET thumbnail = ? WHERE message_id IS NULL AND id = ?'),
    listUnsent: database.prepare<[string], AttachmentRow>(
      `SELECT ${columns} FROM attachments WHERE message_id IS NULL AND id IN (SELECT value FROM json_each(?)) ORDER BY id`,
    ),
    link: database.prepare<[number, number, string]>(
      'UPDATE attachments SET conversation_id = ?, message_id = ? WHERE message_id IS NULL AND id IN (SELECT value FROM json_each(?))',
    ),
    copyToMessage: database.prepare<[number, number, number]>(
      `INSERT INTO attachments (conversation_id, message_id, mime, bytes, size, width, height, thumbnail, created_at)
       SELECT ?, ?, mime, bytes, size, width, height, thumbnail, created_at FROM attachments WHERE message_id = ? ORDER BY id`,
    ),
    listForMessages: database.prepare<[string], AttachmentRow>(
      `SELECT ${columns} FROM attachments WHERE message_id IN (SELECT value FROM json_each(?)) ORDER BY message_id, id`,
    ),
    listForConversation: database.prepare<[number], AttachmentRow>(`SELECT ${columns} FROM attachments WHERE conversation_id = ? ORDER BY id`),
    bytesForConversation: database.prepare<[number, number], { message_id: number; bytes: Buffer }>(
      // Only the shown messages' photos: an edit copies them to the new version, and the model sees only the shown thread.
      // CROSS JOIN keeps the attachments outside: a range of this chat's photos, then one look-up each.
      `SELECT a.message_id, a.bytes FROM attachments AS a CROSS JOIN messages AS m ON m.id = a.message_id AND m.hidden = 0
       WHERE a.conversation_id = ? AND a.message_id >= ? ORDER BY a.id`,
    ),
    countUnsent: database.prepare<[], { count: number }>('SELECT count(*) AS count FROM attachments WHERE message_id IS NULL'),
    pruneUnsent: database.prepare<[number]>('DELETE FROM attachments WHERE message_id IS NULL AND created_at < ?'),
    deleteUnsent: database.prepare<[number]>('DELETE FROM attachments WHERE message_id IS NULL AND id = ?'),
  };

  return {
    add: (photo) => toAttachment(statements.insert.get(photo.mime, photo.bytes, photo.bytes.length, photo.width, photo.height, now())!),
    getWithBytes(id) {
      const row = statements.selectWithBytes.get(id);
      return row && { ...toAttachment(row), bytes: row.bytes };
    },
    getThumbnail(id) {
      const row = statements.selectThumbnail.get(id);
      if (!row) return undefined;
      return row.thumbnail ? { mime: 'image/jpeg', bytes: row.thumbnail } : { mime: row.mime, bytes: row.bytes! };
    },
    setThumbnail: (id, thumbnail) => statements.setThumbnail.run(thumbnail, id).changes > 0,
    listUnsent: (ids) => (ids.length === 0 ? [] : statements.listUnsent.all(JSON.stringify(ids)).map(toAttachment)),
    linkToMessage: (ids, conversationId, messageId) =>
      ids.length === 0 ? 0 : statements.link.run(conversationId, messageId, JSON.stringify(ids)).changes,
    copyToMessage: (fromMessageId, conversationId, toMessageId) => statements.copyToMessage.run(conversationId, toMessageId, fromMessageId).changes,
    listForMessages(messageIds) {
      const byMessage = new Map<number, StoredAttachment[]>();
      if (messageIds.length === 0) return byMessage;
      for (const row of statements.listForMessages.all(JSON.stringify(messageIds))) {
        const attachment = toAttachment(row);
        byMessage.set(row.message_id!, [...(byMessage.get(row.message_id!) ?? []), attachment]);
      }
      return byMessage;
    },
    listForConversation: (conversationId) => statements.listForConversation.all(conversationId).map(toAttachment),
    imagesForConversation(conversationId, fromMessageId = 0) {
      const byMessage = new Map<number, string[]>();
      for (const row of statements.bytesForConversation.iterate(conversationId, fromMessageId)) {
        byMessage.set(row.message_id, [...(byMessage.get(row.message_id) ?? []), row.bytes.toString('base64')]);
      }
      return byMessage;
    },
    countUnsent: () => statements.countUnsent.get()!.count,
    deleteUnsent: (id) => statements.deleteUnsent.run(id).changes > 0,
    pruneUnsent: (before) => statements.pruneUnsent.run(before).changes,
  };
}
