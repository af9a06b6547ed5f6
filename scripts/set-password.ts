/*
 * npm run set-password: asks for a new password twice (hidden), or reads one line from a pipe,
 * and stores its bcrypt hash where the server reads it.
 */
import path from 'node:path';
import readline from 'node:readline';
import dotenv from 'dotenv';
import { passwordHashSetting } from '../src/auth/credentials.js';
import { hashPassword } from '../src/auth/password.js';
import { loadConfig } from '../src/config/config.js';
import { openDatabase } from '../src/storage/database.js';
import { createSettingsStore } from '../src/storage/settings-store.js';

const minimumLength = 8;

async function readPiped(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
}

function askHidden(question: string): Promise<string> {
  return new Promise((resolve) => {
    const terminal = readline.createInterface({ input: process.stdin, output: process.stdout, terminal: true });
    // Echo nothing while the password is typed.
    const output = terminal as unknown as { _writeToOutput: (text: string) => void };
    process.stdout.write(question);
    output._writeToOutput = () => {};
    terminal.question('', (answer) => {
      terminal.close();
      process.stdout.write('\n');
      resolve(answer);
    });
  });
}

async function main(): Promise<void> {
  dotenv.config({ path: path.join(process.cwd(), '.env'), quiet: true });
  const config = loadConfig(process.env);
  let password: string;
  if (process.stdin.isTTY) {
    password = await askHidden('New password: ');
    const again = await askHidden('Type it again: ');
    if (password !== again) throw new Error('The two passwords differ. Nothing was changed.');
  } else {
    password = await readPiped();
  }
  if (password.length < minimumLength) throw new Error(`Use at least ${minimumLength} characters. Nothing was changed.`);

  const database = openDatabase(config.dataDir);
  createSettingsStore(database).set(passwordHashSetting, await hashPassword(password));
  database.close();
  console.log('Password changed. The next login uses it; sessions already logged in stay logged in.');
  if (config.passwordHash) {
    console.log('Note: PASSWORD_HASH is set in the environment or .env and wins over this; remove it there to use the new password.');
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
