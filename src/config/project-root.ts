import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder holding package.json: the same from src/ (tsx) and dist/src/ (compiled). */
function findProjectRoot(): string {
  let folder = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(folder, 'package.json'))) {
    const parent = path.dirname(folder);
    if (parent === folder) throw new Error('package.json not found above ' + fileURLToPath(import.meta.url));
    folder = parent;
  }
  return folder;
}

export const projectRoot = findProjectRoot();
