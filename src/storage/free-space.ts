import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
// The driver's own type, not database.ts's name for it: database.ts calls in here as it opens.
import type Database from 'better-sqlite3';

type SqliteDatabase = Database.Database;

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
export function useIncrementalVacuum(
  database: SqliteDatabase,
  file: string,
  log: (line: string) => void = console.log,
  options: { compact?: boolean } = {},
): VacuumSetup {
  if ((database.pragma('auto_vacuum', { simple: true }) as number) === incremental) return { state: 'already' };
  const tables = (database.prepare('SELECT count(*) AS count FROM sqlite_master').get() as { count: number }).count;
  if (tables === 0) {
    database.pragma('auto_vacuum = INCREMENTAL');
    if ((database.pragma('auto_vacuum', { simple: true }) as number) === incremental) return { state: 'new' };
  }
  // Only the server compacts: `npm run set-password` or a bench opening the file while the server
  // writes to it must not hold the write lock for a whole VACUUM.
  if (!options.compact) return { state: 'skipped', reason: 'compacted only by the server' };
  const bytesBefore = fileSize(file) + fileSize(`${file}-wal`);
  const room = roomForVacuum(file, bytesBefore);
  if (room) {
    log(`Hearth: the database was not compacted this time (${room}); space from deleted chats is reused but not given back until it is.`);
    return { state: 'skipped', reason: room };
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
  checkpointWithoutWaiting(database);
  return { state: 'compacted', milliseconds, bytesBefore, bytesAfter: fileSize(file) + fileSize(`${file}-wal`) };
}

/**
 * Why there is no room for a VACUUM, or undefined when there is. It writes a temporary copy of the
 * database into SQLite's temporary folder (SQLITE_TMPDIR, else TMPDIR, else /var/tmp or /tmp) and,
 * in WAL mode, every page again into the WAL beside the database. Both may be on one disk.
 */
function roomForVacuum(file: string, bytes: number): string | undefined {
  const margin = 64 * 1024 * 1024;
  const dataFolder = path.dirname(file);
  const temporaryFolder = [process.env.SQLITE_TMPDIR, process.env.TMPDIR, '/var/tmp', '/usr/tmp', '/tmp', os.tmpdir()].find(
    (folder): folder is string => Boolean(folder) && isWritableFolder(folder!),
  );
  const besideDatabase = freeBytes(dataFolder);
  const sameDisk = temporaryFolder !== undefined && deviceOf(temporaryFolder) === deviceOf(dataFolder);
  const neededBeside = (sameDisk ? 2 * bytes : bytes) + margin;
  if (besideDatabase !== undefined && besideDatabase < neededBeside) {
    return `only ${megabytes(besideDatabase)} free beside the database, ${megabytes(neededBeside)} needed`;
  }
  const inTemporary = temporaryFolder === undefined || sameDisk ? undefined : freeBytes(temporaryFolder);
  if (inTemporary !== undefined && inTemporary < bytes + margin) {
    return `only ${megabytes(inTemporary)} free in ${temporaryFolder}, where SQLite writes its temporary copy; ${megabytes(bytes + margin)} needed (set SQLITE_TMPDIR to a folder with room)`;
  }
  return undefined;
}

/**
 * Folds the WAL into the file and cuts both short, without waiting: with another reader open
 * (the sqlite3 shell, a backup tool) a TRUNCATE checkpoint would wait out the busy timeout (5 s)
 * on the event loop. Busy, it leaves the rest to the next checkpoint.
 */
function checkpointWithoutWaiting(database: SqliteDatabase): void {
  const timeout = database.pragma('busy_timeout', { simple: true }) as number;
  database.pragma('busy_timeout = 0');
  try {
    database.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    database.pragma(`busy_timeout = ${Number(timeout)}`);
  }
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
    let free = freePages();
    while (free > 0) {
      database.exec(`PRAGMA incremental_vacuum(${pagesPerStep})`);
      const left = freePages();
      if (left >= free) break;
      pages += free - left;
      free = left;
      await nextTurn();
      // The server may have shut down meanwhile.
      if (!database.open) return { pages, bytes: pages * pageSize };
    }
    // In WAL mode the file is cut short when the WAL is folded in; TRUNCATE also empties the WAL,
    // which the moved pages went through. A reader in the way leaves it to the next checkpoint.
    checkpointWithoutWaiting(database);
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

function isWritableFolder(folder: string): boolean {
  try {
    fs.accessSync(folder, fs.constants.W_OK);
    return fs.statSync(folder).isDirectory();
  } catch {
    return false;
  }
}

function deviceOf(folder: string): number | undefined {
  try {
    return fs.statSync(folder).dev;
  } catch {
    return undefined;
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
