import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import { writeFileAtomically } from '../../storage/atomic-file.js';
import type { SqliteDatabase } from '../../storage/database.js';

export type MemoryAuthor = 'assistant' | 'browser' | 'hand edit' | 'restore' | 'created';

export interface MemoryVersion {
  id: number;
  content: string;
  author: MemoryAuthor;
  createdAt: number;
}

export interface MemorySnapshot {
  /** The file as it is (what the editor shows). */
  content: string;
  /** What goes into the system prompt: the content, cut at the cap if a hand edit made it longer. */
  promptContent: string;
  bytes: number;
  maxBytes: number;
  overCap: boolean;
  /** Identifies this content; a write that names it fails if the file changed since. */
  revision: string;
}

export type MemoryWriteResult =
  | { ok: true; snapshot: MemorySnapshot; unchanged?: true }
  | { ok: false; reason: 'too-large'; message: string; snapshot: MemorySnapshot }
  | { ok: false; reason: 'changed'; message: string; snapshot: MemorySnapshot }
  | { ok: false; reason: 'unwritable'; message: string; snapshot?: MemorySnapshot };

const emptyMemory = '';

export const revisionOf = (content: string): string => crypto.createHash('sha256').update(content).digest('hex').slice(0, 16);

/** Cuts to at most maxBytes of UTF-8 without splitting a character. */
function cutToBytes(text: string, maxBytes: number): string {
  const buffer = Buffer.from(text, 'utf8');
  if (buffer.length <= maxBytes) return text;
  return buffer.subarray(0, maxBytes).toString('utf8').replace(/\uFFFD$/, '');
}

/**
 * memory.md: plain Markdown on disk, the one copy everyone edits. Every version, whoever wrote
 * it, is kept in SQLite. Writes are serialized, atomic (temporary file, then rename) and
 * conditional: a write based on an older revision is refused instead of clobbering an edit.
 */
export function createMemoryFile(options: { file: string; maxBytes: number; database: SqliteDatabase; now?: () => number }) {
  const { file, maxBytes, database } = options;
  const now = options.now ?? Date.now;
  const insertVersion = database.prepare<[string, MemoryAuthor, number]>(
    'INSERT INTO memory_versions (content, author, created_at) VALUES (?, ?, ?)',
  );
  const latestVersion = database.prepare<[], { content: string }>('SELECT content FROM memory_versions ORDER BY id DESC LIMIT 1');
  const listVersions = database.prepare<[number], { id: number; content: string; author: MemoryAuthor; created_at: number }>(
    'SELECT * FROM memory_versions ORDER BY id DESC LIMIT ?',
  );
  const selectVersion = database.prepare<[number], { id: number; content: string; author: MemoryAuthor; created_at: number }>(
    'SELECT * FROM memory_versions WHERE id = ?',
  );
  let queue: Promise<unknown> = Promise.resolve();
  /** A read waiting in the queue that has not started: later readers share it. */
  let pendingRead: Promise<MemorySnapshot> | undefined;

  /** One read or write at a time, in order. */
  function serialized<T>(work: () => Promise<T>): Promise<T> {
    const result = queue.then(work, work);
    queue = result.catch(() => undefined);
    return result;
  }

  function snapshotOf(content: string): MemorySnapshot {
    const bytes = Buffer.byteLength(content, 'utf8');
    return { content, promptContent: cutToBytes(content, maxBytes), bytes, maxBytes, overCap: bytes > maxBytes, revision: revisionOf(content) };
  }

  /** Reads the file, creating it when missing; a change nobody recorded is a hand edit. */
  async function readAndRecord(): Promise<string> {
    let content: string;
    try {
      content = await fs.readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw describeFileError(error, file, 'read');
      // An empty file is no change: the first version is the first real text.
      await writeAtomically(emptyMemory);
      return emptyMemory;
    }
    if ((latestVersion.get()?.content ?? emptyMemory) !== content) insertVersion.run(content, 'hand edit', now());
    return content;
  }

  async function writeAtomically(content: string): Promise<void> {
    try {
      await writeFileAtomically(file, content);
    } catch (error) {
      throw describeFileError(error, file, 'write');
    }
  }

  return {
    file,
    maxBytes,

    /**
     * 200 chats starting at once must not each wait behind the others' reads: callers share a
     * read that has not started yet. Once it starts, a new caller queues a fresh one, so a hand
     * edit made meanwhile is still seen.
     */
    read(): Promise<MemorySnapshot> {
      if (pendingRead) return pendingRead;
      const read = serialized(async () => {
        if (pendingRead === read) pendingRead = undefined;
        return snapshotOf(await readAndRecord());
      });
      pendingRead = read;
      return read;
    },

    /**
     * Replaces the memory. `basedOn` is the revision the writer saw; when the file changed
     * since (a hand edit at the same moment), nothing is written and the writer is told.
     */
    write: (content: string, author: MemoryAuthor, basedOn?: string): Promise<MemoryWriteResult> =>
      serialized(async () => {
        let current: string;
        try {
          current = await readAndRecord();
        } catch (error) {
          return { ok: false, reason: 'unwritable', message: (error as Error).message };
        }
        const normalized = content.replace(/\r\n/g, '\n');
        const bytes = Buffer.byteLength(normalized, 'utf8');
        if (author === 'assistant' && bytes > maxBytes) {
          return {
            ok: false,
            reason: 'too-large',
            message: `Memory not changed: the new memory is ${bytes} bytes and the limit is ${maxBytes}. Condense it (merge and drop the least useful facts) and send the whole memory again.`,
            snapshot: snapshotOf(current),
          };
        }
        if (basedOn !== undefined && basedOn !== revisionOf(current)) {
          return {
            ok: false,
            reason: 'changed',
            message: 'Memory not changed: it was edited by someone else since it was read. Look at the current memory and make the change again.',
            snapshot: snapshotOf(current),
          };
        }
        // Saving the text that is already there changes nothing, so it adds no version.
        if (normalized === current) return { ok: true, snapshot: snapshotOf(current), unchanged: true };
        try {
          await writeAtomically(normalized);
        } catch (error) {
          return { ok: false, reason: 'unwritable', message: (error as Error).message, snapshot: snapshotOf(current) };
        }
        insertVersion.run(normalized, author, now());
        return { ok: true, snapshot: snapshotOf(normalized) };
      }),

    versions(limit = 50): MemoryVersion[] {
      return listVersions.all(limit).map((row) => ({ id: row.id, content: row.content, author: row.author, createdAt: row.created_at }));
    },

    version(id: number): MemoryVersion | undefined {
      const row = selectVersion.get(id);
      return row && { id: row.id, content: row.content, author: row.author, createdAt: row.created_at };
    },
  };
}

function describeFileError(error: unknown, file: string, action: 'read' | 'write'): Error {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
    return new Error(`The memory file ${file} cannot be ${action === 'read' ? 'read' : 'written'} (${code}): check its permissions or set MEMORY_FILE.`);
  }
  return new Error(`The memory file ${file} could not be ${action === 'read' ? 'read' : 'written'}: ${(error as Error).message}`);
}

export type MemoryFile = ReturnType<typeof createMemoryFile>;
