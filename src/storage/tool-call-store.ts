import type { SqliteDatabase } from './database.js';

export type ToolCallStatus = 'awaiting-approval' | 'running' | 'done' | 'failed' | 'denied' | 'expired';

export interface StoredToolCall {
  id: number;
  messageId: number;
  conversationId: number;
  name: string;
  params: string;
  status: ToolCallStatus;
  result: string;
  /** What the call would do, shown before it is approved (a memory update's diff). */
  preview: string | null;
  durationMs: number | null;
  createdAt: number;
}

interface ToolCallRow {
  id: number;
  message_id: number;
  conversation_id: number;
  name: string;
  params: string;
  status: ToolCallStatus;
  result: string;
  preview: string | null;
  duration_ms: number | null;
  created_at: number;
}

const toToolCall = (row: ToolCallRow): StoredToolCall => ({
  id: row.id,
  messageId: row.message_id,
  conversationId: row.conversation_id,
  name: row.name,
  params: row.params,
  status: row.status,
  result: row.result,
  preview: row.preview,
  durationMs: row.duration_ms,
  createdAt: row.created_at,
});

/** Tool calls are kept with the message that made them, so a reloaded chat shows the same cards. */
export function createToolCallStore(database: SqliteDatabase, now: () => number = Date.now) {
  const insert = database.prepare<[number, number, string, string, ToolCallStatus, string | null, number, number], ToolCallRow>(
    `INSERT INTO tool_calls (message_id, conversation_id, name, params, status, preview, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
  );
  const update = database.prepare<[ToolCallStatus, string, number | null, number, number]>(
    'UPDATE tool_calls SET status = ?, result = ?, duration_ms = ?, updated_at = ? WHERE id = ?',
  );
  const updateStatus = database.prepare<[ToolCallStatus, number, number]>('UPDATE tool_calls SET status = ?, updated_at = ? WHERE id = ?');
  const updateProgress = database.prepare<[string, number, number]>(
    "UPDATE tool_calls SET result = ?, updated_at = ? WHERE id = ? AND status = 'running'",
  );
  const select = database.prepare<[number], ToolCallRow>('SELECT * FROM tool_calls WHERE id = ?');
  const byMessage = database.prepare<[number], ToolCallRow>('SELECT * FROM tool_calls WHERE message_id = ? ORDER BY id');
  const byConversation = database.prepare<[number], ToolCallRow>('SELECT * FROM tool_calls WHERE conversation_id = ? ORDER BY id');
  const byConversationFrom = database.prepare<[number, number], ToolCallRow>(
    'SELECT * FROM tool_calls WHERE conversation_id = ? AND message_id >= ? ORDER BY message_id, id',
  );
  // The ids go in as one JSON array, so the statement is prepared once.
  const byMessages = database.prepare<[string], ToolCallRow>(
    'SELECT * FROM tool_calls WHERE message_id IN (SELECT value FROM json_each(?)) ORDER BY message_id, id',
  );
  const countByName = database.prepare<[], { name: string; uses: number }>('SELECT name, COUNT(*) AS uses FROM tool_calls GROUP BY name');
  const closeInterrupted = database.prepare<[string, number]>(
    "UPDATE tool_calls SET status = 'failed', result = ?, updated_at = ? WHERE status IN ('awaiting-approval', 'running')",
  );

  return {
    add: (messageId: number, conversationId: number, name: string, params: string, status: ToolCallStatus, preview: string | null = null): StoredToolCall =>
      toToolCall(insert.get(messageId, conversationId, name, params, status, preview, now(), now())!),
    finish(id: number, status: ToolCallStatus, result: string, durationMs: number | null): void {
      update.run(status, result, durationMs, now(), id);
    },
    setStatus(id: number, status: ToolCallStatus): void {
      updateStatus.run(status, now(), id);
    },
    /** While a call runs, its result field holds the latest progress line; the result replaces it. */
    setProgress(id: number, text: string): void {
      updateProgress.run(text, now(), id);
    },
    get(id: number): StoredToolCall | undefined {
      const row = select.get(id);
      return row && toToolCall(row);
    },
    listForMessage: (messageId: number): StoredToolCall[] => byMessage.all(messageId).map(toToolCall),
    listForConversation: (conversationId: number): StoredToolCall[] => byConversation.all(conversationId).map(toToolCall),
    /** A conversation's calls made by message `fromMessageId` or later, keyed by message, in order. */
    groupedByMessage: (conversationId: number, fromMessageId = 0): Map<number, StoredToolCall[]> =>
      groupByMessage(byConversationFrom.iterate(conversationId, fromMessageId)),
    /** The calls of these messages (a page of them), keyed by message, in order: one query. */
    listForMessages: (messageIds: number[]): Map<number, StoredToolCall[]> =>
      messageIds.length === 0 ? new Map() : groupByMessage(byMessages.iterate(JSON.stringify(messageIds))),
    /** How often each tool was called, for putting the most used first in the prompt. */
    usageCounts: (): Map<string, number> => new Map(countByName.all().map((row) => [row.name, row.uses])),
    closeInterrupted: (reason: string): number => closeInterrupted.run(reason, now()).changes,
  };
}

function groupByMessage(rows: Iterable<ToolCallRow>): Map<number, StoredToolCall[]> {
  const groups = new Map<number, StoredToolCall[]>();
  for (const row of rows) {
    const call = toToolCall(row);
    const group = groups.get(call.messageId);
    if (group) group.push(call);
    else groups.set(call.messageId, [call]);
  }
  return groups;
}

export type ToolCallStore = ReturnType<typeof createToolCallStore>;
