import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { useIncrementalVacuum } from './free-space.js';

export type SqliteDatabase = Database.Database;

/** Schema steps, applied in order; PRAGMA user_version records how many have run. */
const migrations: string[] = [
  `
  CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    data TEXT NOT NULL,
    expires_at INTEGER NOT NULL
  );
  CREATE INDEX sessions_expiry ON sessions (expires_at);
  CREATE TABLE conversations (
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    model TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX conversations_recent ON conversations (updated_at DESC, id DESC);
  CREATE TABLE messages (
    id INTEGER PRIMARY KEY,
    conversation_id INTEGER NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
    content TEXT NOT NULL DEFAULT '',
    thinking TEXT NOT NULL DEFAULT '',
    raw TEXT,
    status TEXT NOT NULL DEFAULT 'complete' CHECK (status IN ('streaming', 'complete', 'stopped', 'failed')),
    error TEXT,
    model TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX messages_by_conversation ON messages (conversation_id, id);
  CREATE VIRTUAL TABLE messages_search USING fts5 (
    content, content = 'messages', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2'
  );
  CREATE TRIGGER messages_search_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_search (rowid, content) VALUES (new.id, new.content);
  END;
  CREATE TRIGGER messages_search_delete AFTER DELETE ON messages BEGIN
    INSERT INTO messages_search (messages_search, rowid, content) VALUES ('delete', old.id, old.content);
  END;
  CREATE TRIGGER messages_search_update AFTER UPDATE OF content ON messages BEGIN
    INSERT INTO messages_search (messages_search, rowid, content) VALUES ('delete', old.id, old.content);
    INSERT INTO messages_search (rowid, content) VALUES (new.id, new.content);
  END;
  `,
  `
  CREATE TABLE memory_versions (
    id INTEGER PRIMARY KEY,
    content TEXT NOT NULL,
    author TEXT NOT NULL CHECK (author IN ('assistant', 'browser', 'hand edit', 'restore', 'created')),
    created_at INTEGER NOT NULL
  );
  CREATE TABLE tool_calls (
    id INTEGER PRIMARY KEY,
    message_id INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    conversation_id INTEGER NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    params TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('awaiting-approval', 'running', 'done', 'failed', 'denied')),
    result TEXT NOT NULL DEFAULT '',
    duration_ms INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX tool_calls_by_message ON tool_calls (message_id, id);
  CREATE INDEX tool_calls_by_conversation ON tool_calls (conversation_id, id);
  `,
  // A reply enters the search index when it is finished, stopped or failed, not at each save while
  // it streams: re-indexing the whole growing text every second cost more than the save itself.
  // The index reads from a view of the messages that are not streaming, so 'rebuild' and
  // 'integrity-check' agree with the triggers. One update trigger, so the old text always leaves
  // the index before the new text enters it.
  `
  DROP TRIGGER messages_search_insert;
  DROP TRIGGER messages_search_delete;
  DROP TRIGGER messages_search_update;
  DROP TABLE messages_search;
  CREATE VIEW messages_searchable AS SELECT id, content FROM messages WHERE status <> 'streaming';
  CREATE VIRTUAL TABLE messages_search USING fts5 (
    content, content = 'messages_searchable', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2'
  );
  INSERT INTO messages_search (messages_search) VALUES ('rebuild');
  CREATE TRIGGER messages_search_insert AFTER INSERT ON messages WHEN new.status <> 'streaming' BEGIN
    INSERT INTO messages_search (rowid, content) VALUES (new.id, new.content);
  END;
  CREATE TRIGGER messages_search_delete AFTER DELETE ON messages WHEN old.status <> 'streaming' BEGIN
    INSERT INTO messages_search (messages_search, rowid, content) VALUES ('delete', old.id, old.content);
  END;
  CREATE TRIGGER messages_search_update AFTER UPDATE OF content, status ON messages
  WHEN old.status <> 'streaming' OR new.status <> 'streaming' BEGIN
    INSERT INTO messages_search (messages_search, rowid, content)
      SELECT 'delete', old.id, old.content WHERE old.status <> 'streaming';
    INSERT INTO messages_search (rowid, content)
      SELECT new.id, new.content WHERE new.status <> 'streaming';
  END;
  -- Replies a crash left streaming are found at start-up without reading every message.
  CREATE INDEX messages_streaming ON messages (id) WHERE status = 'streaming';
  `,
  // Sessions say whether they are logged in, so a socket can ask "is my session still live?" with
  // one indexed lookup and anonymous login-form sessions can be capped. Failed logins are counted
  // per address here, so a restart does not reset them.
  `
  ALTER TABLE sessions ADD COLUMN authenticated INTEGER NOT NULL DEFAULT 0;
  UPDATE sessions SET authenticated = 1 WHERE json_extract(data, '$.authenticated') = 1;
  CREATE INDEX sessions_anonymous ON sessions (expires_at) WHERE authenticated = 0;
  CREATE TABLE login_failures (
    address TEXT PRIMARY KEY,
    failures INTEGER NOT NULL,
    window_started_at INTEGER NOT NULL
  );
  `,
  // An approval nobody answers expires ('expired'); a call can carry a preview of what it would
  // do (the diff of a memory update), shown on its approval card. SQLite cannot change a CHECK
  // constraint in place, so the table is rebuilt.
  `
  CREATE TABLE tool_calls_rebuilt (
    id INTEGER PRIMARY KEY,
    message_id INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    conversation_id INTEGER NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    params TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('awaiting-approval', 'running', 'done', 'failed', 'denied', 'expired')),
    result TEXT NOT NULL DEFAULT '',
    preview TEXT,
    duration_ms INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  INSERT INTO tool_calls_rebuilt (id, message_id, conversation_id, name, params, status, result, duration_ms, created_at, updated_at)
    SELECT id, message_id, conversation_id, name, params, status, result, duration_ms, created_at, updated_at FROM tool_calls;
  DROP TABLE tool_calls;
  ALTER TABLE tool_calls_rebuilt RENAME TO tool_calls;
  CREATE INDEX tool_calls_by_message ON tool_calls (message_id, id);
  CREATE INDEX tool_calls_by_conversation ON tool_calls (conversation_id, id);
  -- A finished reply's Markdown, rendered once (off the main thread, with a time limit) and kept,
  -- with the renderer's version: pages show it without rendering again.
  ALTER TABLE messages ADD COLUMN html TEXT;
  ALTER TABLE messages ADD COLUMN html_version INTEGER;
  `,
  `
  -- 1 once the person has named the chat: automatic titles never replace their words.
  ALTER TABLE conversations ADD COLUMN title_set_by_person INTEGER NOT NULL DEFAULT 0;
  `,
  // Photos sent to vision models, kept with their conversation (deleting it deletes them). An
  // upload waits with no message until it is sent; unsent ones are pruned after a while.
  `
  CREATE TABLE attachments (
    id INTEGER PRIMARY KEY,
    conversation_id INTEGER REFERENCES conversations (id) ON DELETE CASCADE,
    message_id INTEGER REFERENCES messages (id) ON DELETE CASCADE,
    mime TEXT NOT NULL CHECK (mime IN ('image/jpeg', 'image/png', 'image/webp')),
    bytes BLOB NOT NULL,
    size INTEGER NOT NULL,
    width INTEGER NOT NULL,
    height INTEGER NOT NULL,
    -- A small JPEG the browser made with the photo, shown in the thread (the photo itself on tap).
    thumbnail BLOB,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX attachments_by_message ON attachments (message_id, id);
  CREATE INDEX attachments_by_conversation ON attachments (conversation_id, id);
  CREATE INDEX attachments_unsent ON attachments (created_at) WHERE message_id IS NULL;
  `,
  // Edited messages and regenerated replies keep the turns they replace as earlier versions.
  // Messages form a tree (parent_id); the thread shown is the one path whose messages are not
  // hidden, in id order (a child is always newer than its parent). Versions of a message are its
  // siblings: same parent, same role. Existing chats are one straight path.
  `
  ALTER TABLE messages ADD COLUMN parent_id INTEGER;
  ALTER TABLE messages ADD COLUMN hidden INTEGER NOT NULL DEFAULT 0;
  UPDATE messages SET parent_id = (
    SELECT MAX(earlier.id) FROM messages AS earlier
    WHERE earlier.conversation_id = messages.conversation_id AND earlier.id < messages.id
  );
  CREATE INDEX messages_visible ON messages (conversation_id, id) WHERE hidden = 0;
  CREATE INDEX messages_by_parent ON messages (conversation_id, parent_id, id);
  `,
  // A reply reads the tool calls and photos of a chat's newest messages only (the reply runner's
  // history window): a range of message ids within one conversation.
  `
  CREATE INDEX tool_calls_by_conversation_message ON tool_calls (conversation_id, message_id, id);
  CREATE INDEX attachments_by_conversation_message ON attachments (conversation_id, message_id, id);
  `,
  // 1 once an MCP server's own text (a tool description) reached the model in the chat: its
  // memory updates ask from then on, as after an email (tool-call-runner.ts).
  `
  ALTER TABLE conversations ADD COLUMN outside_text INTEGER NOT NULL DEFAULT 0;
  `,
  // A streaming reply is saved every second as the text it added since the last save, not as its
  // whole text again: a reply that runs to megabytes (a looping model) cost each save, and the
  // disk, the whole of it. The message gets its whole text once, when it ends; after a crash the
  // pieces are joined into it at the next start. `raw` is NULL where it is the same as `content`.
  `
  CREATE TABLE message_drafts (
    id INTEGER PRIMARY KEY,
    message_id INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    content TEXT NOT NULL,
    thinking TEXT NOT NULL,
    raw TEXT
  );
  CREATE INDEX message_drafts_by_message ON message_drafts (message_id, id);
  `,
  // A deleted chat is kept, hidden everywhere, for the few seconds in which it can be undone;
  // then (or at the next start) it is removed for good. Lists walk only the chats not deleted.
  `
  ALTER TABLE conversations ADD COLUMN deleted_at INTEGER;
  DROP INDEX conversations_recent;
  CREATE INDEX conversations_recent ON conversations (updated_at DESC, id DESC) WHERE deleted_at IS NULL;
  CREATE INDEX conversations_deleted ON conversations (deleted_at) WHERE deleted_at IS NOT NULL;
  `,
];

/** The database holds the password hash and the session secret: only its owner may read it. */
const privateFileMode = 0o600;

/** Creates the file empty with mode 0600 when missing, and narrows it to 0600 when it exists. */
function makePrivate(file: string): void {
  fs.closeSync(fs.openSync(file, fs.constants.O_CREAT | fs.constants.O_RDWR, privateFileMode));
  fs.chmodSync(file, privateFileMode);
}

/**
 * Opens (creating when needed) the SQLite database in dataDir and brings its schema up to date.
 * `log` hears the one-time compaction of an older database (see free-space.ts).
 */
export interface OpenDatabaseOptions {
  log?: (line: string) => void;
  /** Compact an older database once so deleting chats gives space back (the server only; see storage/free-space.ts). */
  compact?: boolean;
}

export function openDatabase(dataDir: string, options: OpenDatabaseOptions = {}): SqliteDatabase {
  const file = path.join(dataDir, 'hearth.sqlite');
  try {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    fs.accessSync(dataDir, fs.constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new Error(`DATA_DIR: ${dataDir} cannot be used as the data folder (${code}); make it a writable folder or point DATA_DIR elsewhere`);
  }
  let database: SqliteDatabase;
  try {
    // Before SQLite opens it: SQLite gives the -wal and -shm files the main file's mode.
    makePrivate(file);
    database = new Database(file);
  } catch (error) {
    throw new Error(`DATA_DIR: the database ${file} cannot be opened: ${(error as Error).message}`);
  }
  // Before WAL mode, which writes the first page: on a new file the pragma alone is enough then.
  useIncrementalVacuum(database, file, options.log, { compact: options.compact });
  database.pragma('journal_mode = WAL');
  // Older installs may have -wal/-shm files made readable by others: narrow them too.
  for (const suffix of ['-wal', '-shm']) {
    if (fs.existsSync(file + suffix)) fs.chmodSync(file + suffix, privateFileMode);
  }
  // NORMAL in WAL mode survives a process crash; only an OS crash can lose the last commits.
  database.pragma('synchronous = NORMAL');
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  migrate(database);
  return database;
}

function migrate(database: SqliteDatabase): void {
  const applied = database.pragma('user_version', { simple: true }) as number;
  for (let step = applied; step < migrations.length; step += 1) {
    database.transaction(() => {
      database.exec(migrations[step]!);
      database.pragma(`user_version = ${step + 1}`);
    })();
  }
}
