import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/*
 * A file written in place can be read half-written, or left so by a crash. These write a
 * temporary file beside it (same folder, so the rename is atomic) and rename it over the file.
 * Mode 0600: everything written this way is personal (memory, prompt, OAuth tokens).
 */

const temporaryNameFor = (file: string) =>
  path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`);

export async function writeFileAtomically(file: string, content: string, mode = 0o600): Promise<void> {
  const temporary = temporaryNameFor(file);
  try {
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    await fs.promises.writeFile(temporary, content, { encoding: 'utf8', mode });
    await fs.promises.rename(temporary, file);
  } catch (error) {
    await fs.promises.rm(temporary, { force: true }).catch(() => undefined);
    throw error;
  }
}

export function writeFileAtomicallySync(file: string, content: string, mode = 0o600): void {
  const temporary = temporaryNameFor(file);
  try {
    fs.writeFileSync(temporary, content, { encoding: 'utf8', mode });
    // writeFileSync's mode applies only to a new file, and the umask may narrow it: set it exactly.
    fs.chmodSync(temporary, mode);
    fs.renameSync(temporary, file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}
