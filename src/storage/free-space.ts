import fs from 'node:fs';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { SqliteDatabase } from './database.js';

/**
 * Giving the disk space of deleted chats back. SQLite keeps freed pages inside the file for reuse,
 * so a database that once held many photos never shrinks. With auto_vacuum = INCREMENTAL it can:
 * `PRAGMA incremental_vacuum` moves the last pages into the holes and cuts the file short.
 */

/** SQLite's auto_vacuum values. */
const incremental = 2;

export type VacuumSetup =
  | { state: 'already' | 'new' }
  | { state: 'compacted'; milliseconds: number; bytesBefore: number; bytesAfter: number }
  | { state: 'skipped'; reason: string };

/**
 * Turns incremental auto-vacuum on. A new database only needs the pragma (it must come before the
 * first table, and before journal_mode = WAL, which already writes the file's first page). An
 * existing one needs a VACUUM once, which rewrites the whole file (0.7–0.9 s for 96 MB, 1.7 s for 122 MB here). It
 * runs at start-up (a migration runs inside a transaction, where VACUUM cannot), is atomic (a crash
 * leaves the old file as it was), and is put off to the next start when the disk lacks room for the
 * copy it makes.
 */
export function useIncrementalVacuum(database: SqliteDatabase, file: string, log: (line: string) => void = console.log): VacuumSetup {
  if ((database.pragma('auto_vacuum', { simple: true }) as number) === incremental) return { state: 'already' };
  const tables = (database.prepare('SELECT count(*) AS count FROM sqlite_master').get() as { count: number }).count;
  if (tables === 0) {
    database.pragma('auto_vacuum = INCREMENTAL');
    if ((database.pragma('auto_vacuum', { simple: true }) as number) === incremental) return { state: 'new' };
  }
  const bytesBefore = fileSize(file) + fileSize(`${file}-wal`);
  // VACUUM writes a temporary copy and, in WAL mode, the whole file again into the WAL.
  const needed = 2 * bytesBefore + 64 * 1024 * 1024;
  const available = freeBytes(path.dirname(file));
  if (available !== undefined && available < needed) {
    const reason = `only ${megabytes(available)} free beside the database, ${megabytes(needed)} needed`;
    log(`Hearth: the database was not compacted this time (${reason}); space from deleted chats is reused but not given back until it is.`);
    return { state: 'skipped', reason };
  }
  if (bytesBefore > 50 * 1024 * 1024) {
    log(`Hearth: compacting the database once (${megabytes(bytesBefore)}) so that deleting chats gives disk space back; this can take a minute.`);
  }
  const started = performance.now();
  try {
    database.pragma('auto_vacuum = INCREMENTAL');
    database.exec('VACUUM');
  } catch (error) {
    // Another process holding the file, a full disk: Hearth works as before and tries at the next start.
    const reason = (error as Error).message;
    log(`Hearth: the database could not be compacted this time (${reason}); it will try again at the next start.`);
    return { state: 'skipped', reason };
  }
  const milliseconds = Math.round(performance.now() - started);
  // The WAL now holds a copy of every page: fold it in and cut it back to nothing.
  database.pragma('wal_checkpoint(TRUNCATE)');
  return { state: 'compacted', milliseconds, bytesBefore, bytesAfter: fileSize(file) + fileSize(`${file}-wal`) };
}

export interface ReclaimedSpace {
  pages: number;
  bytes: number;
}

export interface FreeSpaceReclaimer {
  /** Gives freed pages back to the file system, a batch per event-loop turn; one run at a time. */
  reclaim(): Promise<ReclaimedSpace>;
  /** The same, started now and not waited for (after a chat is deleted); failures are logged, never thrown. */
  reclaimSoon(): void;
}

export interface FreeSpaceOptions {
  /** Fewer free pages than this are left for SQLite to reuse: not worth a pass. */
  minFreePages?: number;
  /** Pages moved per turn of the event loop (about 35 ms for 1,024 pages of 4 KB here). */
  pagesPerStep?: number;
  logError?: (error: unknown) => void;
}

export function createFreeSpaceReclaimer(database: SqliteDatabase, options: FreeSpaceOptions = {}): FreeSpaceReclaimer {
  const minFreePages = options.minFreePages ?? 256;
  const pagesPerStep = Math.max(1, Math.floor(options.pagesPerStep ?? 1024));
  let running: Promise<ReclaimedSpace> | undefined;

  const freePages = () => database.pragma('freelist_count', { simple: true }) as number;

  async function run(): Promise<ReclaimedSpace> {
    // A database made before auto_vacuum was on (its one VACUUM put off) has nothing to give back this way.
    if ((database.pragma('auto_vacuum', { simple: true }) as number) !== incremental || freePages() < minFreePages) return { pages: 0, bytes: 0 };
    const pageSize = database.pragma('page_size', { simple: true }) as number;
    let pages = 0;
    // Batches, so a large delete does not hold the server for the whole pass.
    for (let free = freePages(); free > 0 && database.open; free = freePages()) {
      database.exec(`PRAGMA incremental_vacuum(${pagesPerStep})`);
      const moved = free - freePages();
      if (moved <= 0) break;
      pages += moved;
      await nextTurn();
    }
    // In WAL mode the file is cut short when the WAL is folded in; TRUNCATE also empties the WAL,
    // which the moved pages went through. A reader in the way leaves it to the next checkpoint.
    if (database.open) database.pragma('wal_checkpoint(TRUNCATE)');
    return { pages, bytes: pages * pageSize };
  }

  function reclaim(): Promise<ReclaimedSpace> {
    running ??= run().finally(() => {
      running = undefined;
    });
    return running;
  }

  return {
    reclaim,
    reclaimSoon() {
      reclaim().catch((error: unknown) => (options.logError ?? console.error)(error));
    },
  };
}

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

function freeBytes(folder: string): number | undefined {
  try {
    const stats = fs.statfsSync(folder);
    return stats.bavail * stats.bsize;
  } catch {
    return undefined;
  }
}

const megabytes = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;
