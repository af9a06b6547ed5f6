/**
 * What `npm ci --omit=dev` puts in node_modules: every package of package-lock.json that is not
 * marked `dev`, measured on disk where it is installed here (du's blocks, so the figure matches
 * `du -s node_modules` of a production install). Each package's own folder is counted without
 * the node_modules nested in it, which are packages of their own in the lockfile. Native modules
 * count with what their install built here (better-sqlite3's build/ folder).
 *
 *   npx tsx scripts/bench/install-size.ts   # prints the figure and the largest packages
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

interface LockedPackage {
  dev?: boolean;
  link?: boolean;
}

export interface InstallSize {
  /** Production packages found installed, and their size on disk. */
  packages: number;
  bytes: number;
  /** Production packages of the lockfile not installed here (optional ones for another platform). */
  missing: string[];
  /** The largest packages, by name. */
  largest: Array<{ name: string; bytes: number }>;
}

/** A folder's own blocks and its files', as du counts them. */
function folderBytes(folder: string): number {
  let bytes = fs.lstatSync(folder).blocks * 512;
  for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') bytes += folderBytes(full);
    } else {
      // lstat: a symbolic link counts as itself, as du counts it.
      bytes += fs.lstatSync(full).blocks * 512;
    }
  }
  return bytes;
}

export function productionInstallSize(projectRoot: string, listed = 10): InstallSize {
  const lock = JSON.parse(fs.readFileSync(path.join(projectRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockedPackage> };
  const sizes: Array<{ name: string; bytes: number }> = [];
  const missing: string[] = [];
  for (const [location, locked] of Object.entries(lock.packages)) {
    if (location === '' || locked.dev || locked.link) continue;
    const folder = path.join(projectRoot, location);
    if (!fs.existsSync(folder)) {
      missing.push(location);
      continue;
    }
    sizes.push({ name: location.slice(location.lastIndexOf('node_modules/') + 'node_modules/'.length), bytes: folderBytes(folder) });
  }
  const byName = new Map<string, number>();
  for (const { name, bytes } of sizes) byName.set(name, (byName.get(name) ?? 0) + bytes);
  return {
    packages: sizes.length,
    bytes: sizes.reduce((sum, { bytes }) => sum + bytes, 0),
    missing,
    largest: [...byName].map(([name, bytes]) => ({ name, bytes })).sort((a, b) => b.bytes - a.bytes).slice(0, listed),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const size = productionInstallSize(path.resolve(import.meta.dirname, '..', '..'));
  const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  console.log(`production node_modules: ${megabytes(size.bytes)} in ${size.packages} packages${size.missing.length ? ` (${size.missing.length} not installed here)` : ''}`);
  for (const { name, bytes } of size.largest) console.log(`  ${megabytes(bytes).padStart(9)}  ${name}`);
}
