import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from './database.js';

export type MessageRole = 'user' | 'assistant';
export type MessageStatus = 'streaming' | 'complete' | 'stopped' | 'failed';

export interface Conversation {
  id: number;
  title: string;
  model: string;
  createdAt: number;
  updatedAt: number;
}

export interface StoredMessage {
  id: number;
  conversationId: number;
  role: MessageRole;
  content: string;
  thinking: string;
  /** What the model wrote, tool tags included, when it differs from the shown content. */
  raw: string | null;
  status: MessageStatus;
  error: string | null;
  model: string | null;
  /** The reply rendered to safe HTML when it ended, and the renderer version that made it. */
  html: string | null;
  htmlVersion: number | null;
  createdAt: number;
  /** The message this one follows (null for a conversation's first); its versions share it. */
  parentId: number | null;
  /** Part of an earlier version, not of the thread shown. */
  hidden: boolean;
}

/** The versions of a message: the ids of its siblings (same parent, same role), oldest first. */
export interface MessageVersions {
  ids: number[];
  /** Where the message itself is in `ids`. */
  index: number;
}

export interface SearchHit {
  conversationId: number;
  title: string;
  messageId: number;
  /** Plain text with \u0001 and \u0002 around matched words; escape it before showing it. */
  snippet: string;
}

export interface MessageChanges {
  content?: string;
  thinking?: string;
  raw?: string | null;
  status?: MessageStatus;
  error?: string | null;
  html?: string | null;
  html_version?: number | null;
}

/** What a streaming reply added since its last save; `raw` is null where it equals `content`. */
export interface DraftPiece {
  content: string;
  thinking: string;
  raw: string | null;
}

export interface ConversationStore {
  createConversation(title: string, model: string): Conversation;
  getConversation(id: number): Conversation | undefined;
  listConversations(limit: number, offset?: number): Conversation[];
  setConversationModel(id: number, model: string): void;
  /** The person's own title for the chat; false when there is no such chat. */
  renameConversation(id: number, title: string): boolean;
  /** An automatic title: kept out when the person has named the chat. True when it was set. */
  setAutomaticTitle(id: number, title: string): boolean;
  /**
   * Deletes a chat for the person: from now on it is in no list, search or page, and
   * getConversation does not find it; it can be restored until it is purged. False when there is
   * no such chat (or it is deleted already).
   */
  softDeleteConversation(id: number): boolean;
  /** Brings back a chat deleted after `deletedAfter` (ms since 1970), as it was. False when it cannot be. */
  restoreConversation(id: number, deletedAfter: number): boolean;
  /** A chat deleted after `deletedAfter`, still restorable. */
  getDeletedConversation(id: number, deletedAfter: number): Conversation | undefined;
  /** Removes for good, with their messages, calls and photos, the chats deleted at or before `deletedBy`; returns how many. */
  purgeDeletedConversations(deletedBy: number): number;
  /**
   * Text from outside Hearth reached the model in this chat through a way tool results do not
   * record (an MCP tool's description in its system prompt or a find_tools answer). Kept for good.
   */
  markOutsideText(id: number): void;
  /** Whether markOutsideText was ever called for this chat. */
  hasOutsideText(id: number): boolean;
  addMessage(conversationId: number, role: MessageRole, content: string, options?: { status?: MessageStatus; model?: string }): StoredMessage;
  /** Sets these columns; setting `content` (the whole text) replaces any draft pieces. */
  updateMessage(id: number, changes: MessageChanges): void;
  /**
   * Saves what a streaming reply added since its last save, and only that: a save costs the same
   * at the first kilobyte and at the tenth megabyte. The message's own text is written once, by
   * updateMessage when the reply ends (or joined from the pieces after a crash). Nothing happens
   * when the message is gone (its chat was deleted meanwhile).
   */
  appendDraft(id: number, piece: DraftPiece): void;
  getMessage(id: number): StoredMessage | undefined;
  /** The thread shown: every message not hidden, oldest first. */
  listMessages(conversationId: number): StoredMessage[];
  /** Up to `limit` messages older than `before` (or the newest, without it), oldest first. */
  listMessagesPage(conversationId: number, limit: number, before?: number): StoredMessage[];
  /** The message `fromId` and every later one (or the first `limit`), oldest first (what a reconnecting page missed). */
  listMessagesFrom(conversationId: number, fromId: number, limit?: number): StoredMessage[];
  /** Up to `limit` messages newer than `after`, oldest first (the page below a window opened at a search match). */
  listMessagesAfter(conversationId: number, after: number, limit: number): StoredMessage[];
  /**
   * Where a model's history starts: the id of the oldest of the newest shown messages whose text
   * (what the model is sent) reaches `characters`, or 0 when the whole thread is shorter. A reply
   * reads the thread from there, so a 5,000-message chat costs what its newest page costs.
   */
  historyStart(conversationId: number, characters: number): number;
  search(query: string, limit: number): SearchHit[];
  /** The newest shown message written by the person (of those before `before`, when given: the one a reply answers). */
  lastUserMessage(conversationId: number, before?: number): StoredMessage | undefined;
  versionsOf(message: StoredMessage): MessageVersions;
  /** The versions of each of several messages of one conversation, by message id, read in one query (a page's ‹ 2/3 ›). */
  versionsOfMessages(messages: StoredMessage[]): Map<number, MessageVersions>;
  /**
   * Starts a new version: hides the shown message `fromId` and every shown one after it (kept as
   * an earlier version), then adds the new message after what is left, in one transaction.
   */
  branchFrom(
    conversationId: number,
    fromId: number,
    role: MessageRole,
    content: string,
    options?: { status?: MessageStatus; model?: string },
  ): StoredMessage;
  /**
   * Shows version `targetId` in place of the shown message `messageId` (its sibling): hides the
   * thread from `messageId` on and shows the target with, below it, its newest replies.
   */
  showVersion(messageId: number, targetId: number): void;
  /** Replies left 'streaming' by a crash are marked failed, keeping their text (draft pieces joined in). */
  closeInterruptedReplies(reason: string): number;
}

interface MessageRow {
  id: number;
  conversation_id: number;
  role: MessageRole;
  content: string;
  thinking: string;
  raw: string | null;
  status: MessageStatus;
  error: string | null;
  model: string | null;
  html: string | null;
  html_version: number | null;
  created_at: number;
  parent_id: number | null;
  hidden: number;
}

interface ConversationRow {
  id: number;
  title: string;
  model: string;
  created_at: number;
  updated_at: number;
}

const toConversation = (row: ConversationRow): Conversation => ({
  id: row.id,
  title: row.title,
  model: row.model,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const toMessage = (row: MessageRow): StoredMessage => ({
  id: row.id,
  conversationId: row.conversation_id,
  role: row.role,
  content: row.content,
  thinking: row.thinking,
  raw: row.raw,
  status: row.status,
  error: row.error,
  model: row.model,
  html: row.html,
  htmlVersion: row.html_version,
  createdAt: row.created_at,
  parentId: row.parent_id,
  hidden: row.hidden !== 0,
});

/** Turns what a person types into an FTS5 query: every word must match, as a prefix, with no operators. */
export function toSearchQuery(input: string): string | undefined {
  const words = input.match(/[\p{L}\p{N}_]+/gu)?.slice(0, 12) ?? [];
  if (words.length === 0) return undefined;
  return words.map((word) => `"${word}"*`).join(' ');
}

export function titleFromMessage(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length === 0) return 'New chat';
  return line.length > 60 ? `${line.slice(0, 59).trimEnd()}…` : line;
}

/**
 * Joins the draft pieces of replies still marked streaming onto their text, in order, leaving
 * their status: at start-up after a crash, and in a backup taken while a reply streams (so the
 * file holds the text so far). Returns how many messages got text.
 */
export function joinDraftPieces(database: SqliteDatabase): number {
  if (!database.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'message_drafts'").get()) return 0;
  // Along messages_streaming: a crash leaves few.
  const streaming = database
    .prepare<[], Pick<MessageRow, 'id' | 'content' | 'thinking' | 'raw'>>("SELECT id, content, thinking, raw FROM messages WHERE status = 'streaming'")
    .all();
  const listPieces = database.prepare<[number], DraftPiece>('SELECT content, thinking, raw FROM message_drafts WHERE message_id = ? ORDER BY id');
  const setText = database.prepare<[string, string, string | null, number]>('UPDATE messages SET content = ?, thinking = ?, raw = ? WHERE id = ?');
  const deletePieces = database.prepare<[number]>('DELETE FROM message_drafts WHERE message_id = ?');
  let joined = 0;
  for (const message of streaming) {
    const pieces = listPieces.all(message.id);
    if (pieces.length === 0) continue;
    const join = (part: (piece: DraftPiece) => string) => pieces.map(part).join('');
    const tagged = message.raw !== null || pieces.some((piece) => piece.raw !== null);
    setText.run(
      message.content + join((piece) => piece.content),
      message.thinking + join((piece) => piece.thinking),
      tagged ? (message.raw ?? message.content) + join((piece) => piece.raw ?? piece.content) : null,
      message.id,
    );
    deletePieces.run(message.id);
    joined += 1;
  }
  return joined;
}

export function createConversationStore(database: SqliteDatabase, now: () => number = Date.now): ConversationStore {
  const statements = {
    insertConversation: database.prepare<[string, string, number, number], ConversationRow>(
      'INSERT INTO conversations (title, model, created_at, updated_at) VALUES (?, ?, ?, ?) RETURNING *',
    ),
    selectConversation: database.prepare<[number], ConversationRow>('SELECT * FROM conversations WHERE id = ? AND deleted_at IS NULL'),
    // Along conversations_recent, which holds only the chats not deleted.
    listConversations: database.prepare<[number, number], ConversationRow>(
      'SELECT * FROM conversations WHERE deleted_at IS NULL ORDER BY updated_at DESC, id DESC LIMIT ? OFFSET ?',
    ),
    updateModel: database.prepare<[string, number]>('UPDATE conversations SET model = ? WHERE id = ?'),
    renameConversation: database.prepare<[string, number]>('UPDATE conversations SET title = ?, title_set_by_person = 1 WHERE id = ?'),
    setAutomaticTitle: database.prepare<[string, number]>('UPDATE conversations SET title = ? WHERE id = ? AND title_set_by_person = 0'),
    touchConversation: database.prepare<[number, number]>('UPDATE conversations SET updated_at = ? WHERE id = ?'),
    softDeleteConversation: database.prepare<[number, number]>('UPDATE conversations SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL'),
    restoreConversation: database.prepare<[number, number]>('UPDATE conversations SET deleted_at = NULL WHERE id = ? AND deleted_at > ?'),
    selectDeletedConversation: database.prepare<[number, number], ConversationRow>('SELECT * FROM conversations WHERE id = ? AND deleted_at > ?'),
    // Messages, tool calls and photos go with their chat (ON DELETE CASCADE).
    purgeDeletedConversations: database.prepare<[number]>('DELETE FROM conversations WHERE deleted_at IS NOT NULL AND deleted_at <= ?'),
    markOutsideText: database.prepare<[number]>('UPDATE conversations SET outside_text = 1 WHERE id = ? AND outside_text = 0'),
    outsideText: database.prepare<[number], { outside_text: number }>('SELECT outside_text FROM conversations WHERE id = ?'),
    // A new message follows the last one shown.
    insertMessage: database.prepare<[number, MessageRole, string, MessageStatus, string | null, number, number, number], MessageRow>(
      `INSERT INTO messages (conversation_id, role, content, status, model, created_at, updated_at, parent_id)
       VALUES (?, ?, ?, ?, ?, ?, ?,
         (SELECT MAX(id) FROM messages WHERE conversation_id = ? AND hidden = 0)) RETURNING *`,
    ),
    selectMessage: database.prepare<[number], MessageRow>('SELECT * FROM messages WHERE id = ?'),
    listMessages: database.prepare<[number], MessageRow>('SELECT * FROM messages WHERE conversation_id = ? AND hidden = 0 ORDER BY id'),
    // Both walk messages_visible (conversation_id, id) WHERE hidden = 0 backwards: no sort, no full scan.
    listNewestMessages: database.prepare<[number, number], MessageRow>(
      'SELECT * FROM messages WHERE conversation_id = ? AND hidden = 0 ORDER BY id DESC LIMIT ?',
    ),
    listMessagesBefore: database.prepare<[number, number, number], MessageRow>(
      'SELECT * FROM messages WHERE conversation_id = ? AND hidden = 0 AND id < ? ORDER BY id DESC LIMIT ?',
    ),
    // Lengths only, newest first along messages_visible: no message text is copied out.
    messageLengthsNewestFirst: database.prepare<[number], { id: number; characters: number }>(
      'SELECT id, length(coalesce(raw, content)) AS characters FROM messages WHERE conversation_id = ? AND hidden = 0 ORDER BY id DESC',
    ),
    // LIMIT -1 is SQLite's "no limit".
    listMessagesFrom: database.prepare<[number, number, number], MessageRow>(
      'SELECT * FROM messages WHERE conversation_id = ? AND hidden = 0 AND id >= ? ORDER BY id LIMIT ?',
    ),
    lastUserMessage: database.prepare<[number], MessageRow>(
      "SELECT * FROM messages WHERE conversation_id = ? AND hidden = 0 AND role = 'user' ORDER BY id DESC LIMIT 1",
    ),
    lastUserMessageBefore: database.prepare<[number, number], MessageRow>(
      "SELECT * FROM messages WHERE conversation_id = ? AND hidden = 0 AND role = 'user' AND id < ? ORDER BY id DESC LIMIT 1",
    ),
    // The children of each parent in a JSON list: all versions of the messages that follow them.
    // IS, not =: the first messages of a conversation have no parent (JSON null) and are versions
    // of each other. CROSS JOIN keeps the list outside, so each parent is one look-up in
    // messages_by_parent (the planner otherwise walks the whole conversation).
    listChildrenOf: database.prepare<[string, number], { id: number; parent_id: number | null; role: MessageRole }>(
      `SELECT m.id, m.parent_id, m.role FROM json_each(?) AS parent CROSS JOIN messages AS m
       WHERE m.conversation_id = ? AND m.parent_id IS parent.value ORDER BY m.id`,
    ),
    newestChild: database.prepare<[number, number], { id: number }>(
      'SELECT id FROM messages WHERE conversation_id = ? AND parent_id = ? ORDER BY id DESC LIMIT 1',
    ),
    hideFrom: database.prepare<[number, number]>('UPDATE messages SET hidden = 1 WHERE conversation_id = ? AND hidden = 0 AND id >= ?'),
    show: database.prepare<[number]>('UPDATE messages SET hidden = 0 WHERE id = ?'),
    listMessagesAfter: database.prepare<[number, number, number], MessageRow>(
      'SELECT * FROM messages WHERE conversation_id = ? AND hidden = 0 AND id > ? ORDER BY id LIMIT ?',
    ),
    search: database.prepare<[string, number], { conversation_id: number; title: string; message_id: number; snippet: string }>(
      `SELECT m.conversation_id, c.title, m.id AS message_id,
              snippet(messages_search, 0, char(1), char(2), '…', 12) AS snippet
       FROM messages_search
       JOIN messages m ON m.id = messages_search.rowid
       JOIN conversations c ON c.id = m.conversation_id
       WHERE messages_search MATCH ? AND m.hidden = 0 AND c.deleted_at IS NULL
       ORDER BY rank
       LIMIT ?`,
    ),
    closeInterrupted: database.prepare<[string, number]>(
      "UPDATE messages SET status = 'failed', error = ?, updated_at = ? WHERE status = 'streaming'",
    ),
    appendDraft: database.prepare<[number, string, string, string | null, number]>(
      'INSERT INTO message_drafts (message_id, content, thinking, raw) SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM messages WHERE id = ?)',
    ),
    deleteDrafts: database.prepare<[number]>('DELETE FROM message_drafts WHERE message_id = ?'),
  };

  const updateStatements = new Map<string, Statement<Array<string | number | null>>>();

  const updateMessage = database.transaction((id: number, changes: MessageChanges) => {
    const columns = Object.entries(changes).filter(([, value]) => value !== undefined);
    if (columns.length === 0) return;
    // Every round of every reply ends with one: prepare each set of columns once, not per update.
    const key = columns.map(([name]) => name).join(',');
    let update = updateStatements.get(key);
    if (!update) {
      // Column names come from the MessageChanges keys above, never from input.
      const assignments = columns.map(([name]) => `${name} = ?`).join(', ');
      update = database.prepare<Array<string | number | null>>(`UPDATE messages SET ${assignments}, updated_at = ? WHERE id = ?`);
      updateStatements.set(key, update);
    }
    update.run(...columns.map(([, value]) => value as string | null), now(), id);
    if (changes.content !== undefined) statements.deleteDrafts.run(id);
  });

  /** A reply a crash cut off: its draft pieces joined onto its text, once, at start-up. */
  const closeInterrupted = database.transaction((reason: string) => {
    joinDraftPieces(database);
    return statements.closeInterrupted.run(reason, now()).changes;
  });

  const addMessage = database.transaction(
    (conversationId: number, role: MessageRole, content: string, status: MessageStatus, model: string | null) => {
      const time = now();
      const row = statements.insertMessage.get(conversationId, role, content, status, model, time, time, conversationId)!;
      statements.touchConversation.run(time, conversationId);
      return toMessage(row);
    },
  );

  const branchFrom = database.transaction(
    (conversationId: number, fromId: number, role: MessageRole, content: string, status: MessageStatus, model: string | null) => {
      statements.hideFrom.run(conversationId, fromId);
      return addMessage(conversationId, role, content, status, model);
    },
  );

  const showVersion = database.transaction((messageId: number, targetId: number) => {
    const message = statements.selectMessage.get(messageId);
    const target = statements.selectMessage.get(targetId);
    if (!message || !target || message.hidden || target.conversation_id !== message.conversation_id) return;
    if (target.parent_id !== message.parent_id || target.role !== message.role) return;
    statements.hideFrom.run(message.conversation_id, message.id);
    // The target, then repeatedly its newest reply: a path, so ids keep growing down it.
    for (let id: number | undefined = target.id; id !== undefined; id = statements.newestChild.get(message.conversation_id, id)?.id) {
      statements.show.run(id);
    }
    statements.touchConversation.run(now(), message.conversation_id);
  });

  function versionsOfMessages(messages: StoredMessage[]): Map<number, MessageVersions> {
    const versions = new Map<number, MessageVersions>();
    if (messages.length === 0) return versions;
    const parents = [...new Set(messages.map((message) => message.parentId))];
    // Siblings share a parent and a role; ids come in order, so each list is oldest first.
    const siblings = new Map<string, number[]>();
    for (const row of statements.listChildrenOf.all(JSON.stringify(parents), messages[0]!.conversationId)) {
      const key = `${row.parent_id}:${row.role}`;
      const ids = siblings.get(key);
      if (ids) ids.push(row.id);
      else siblings.set(key, [row.id]);
    }
    for (const message of messages) {
      const ids = siblings.get(`${message.parentId}:${message.role}`) ?? [message.id];
      versions.set(message.id, { ids, index: ids.indexOf(message.id) });
    }
    return versions;
  }

  return {
    createConversation(title, model) {
      const time = now();
      return toConversation(statements.insertConversation.get(title, model, time, time)!);
    },
    getConversation(id) {
      const row = statements.selectConversation.get(id);
      return row && toConversation(row);
    },
    listConversations: (limit, offset = 0) => statements.listConversations.all(limit, offset).map(toConversation),
    setConversationModel: (id, model) => void statements.updateModel.run(model, id),
    renameConversation: (id, title) => statements.renameConversation.run(title, id).changes > 0,
    setAutomaticTitle: (id, title) => statements.setAutomaticTitle.run(title, id).changes > 0,
    softDeleteConversation: (id) => statements.softDeleteConversation.run(now(), id).changes > 0,
    restoreConversation: (id, deletedAfter) => statements.restoreConversation.run(id, deletedAfter).changes > 0,
    getDeletedConversation(id, deletedAfter) {
      const row = statements.selectDeletedConversation.get(id, deletedAfter);
      return row && toConversation(row);
    },
    purgeDeletedConversations: (deletedBy) => statements.purgeDeletedConversations.run(deletedBy).changes,
    markOutsideText: (id) => void statements.markOutsideText.run(id),
    hasOutsideText: (id) => statements.outsideText.get(id)?.outside_text === 1,
    addMessage: (conversationId, role, content, options = {}) =>
      addMessage(conversationId, role, content, options.status ?? 'complete', options.model ?? null),
    updateMessage: (id, changes) => updateMessage(id, changes),
    appendDraft: (id, piece) => void statements.appendDraft.run(id, piece.content, piece.thinking, piece.raw, id),
    getMessage(id) {
      const row = statements.selectMessage.get(id);
      return row && toMessage(row);
    },
    listMessages: (conversationId) => statements.listMessages.all(conversationId).map(toMessage),
    listMessagesPage(conversationId, limit, before) {
      const rows =
        before === undefined
          ? statements.listNewestMessages.all(conversationId, limit)
          : statements.listMessagesBefore.all(conversationId, before, limit);
      return rows.reverse().map(toMessage);
    },
    listMessagesFrom: (conversationId, fromId, limit = -1) => statements.listMessagesFrom.all(conversationId, fromId, limit).map(toMessage),
    listMessagesAfter: (conversationId, after, limit) => statements.listMessagesAfter.all(conversationId, after, limit).map(toMessage),
    historyStart(conversationId, characters) {
      let total = 0;
      // Leaving the loop early ends the statement (better-sqlite3 resets it).
      for (const row of statements.messageLengthsNewestFirst.iterate(conversationId)) {
        total += row.characters;
        if (total >= characters) return row.id;
      }
      return 0;
    },
    search(query, limit) {
      const match = toSearchQuery(query);
      if (!match) return [];
      return statements.search.all(match, limit).map((row) => ({
        conversationId: row.conversation_id,
        title: row.title,
        messageId: row.message_id,
        snippet: row.snippet,
      }));
    },
    closeInterruptedReplies: (reason) => closeInterrupted(reason),
    lastUserMessage(conversationId, before) {
      const row = before === undefined ? statements.lastUserMessage.get(conversationId) : statements.lastUserMessageBefore.get(conversationId, before);
      return row && toMessage(row);
    },
    versionsOf: (message) => versionsOfMessages([message]).get(message.id)!,
    versionsOfMessages,
    branchFrom: (conversationId, fromId, role, content, options = {}) =>
      branchFrom(conversationId, fromId, role, content, options.status ?? 'complete', options.model ?? null),
    showVersion: (messageId, targetId) => showVersion(messageId, targetId),
  };
}
