/*
 * npm run set-password: asks for a new password twice (hidden), or reads one line from a pipe,
 * refuses one that is easy to guess (zxcvbn score below 3, with the reason in one line), and
 * stores its bcrypt hash where the server reads it. Then it logs out every session (asked on
 * a terminal, the default when piped; `--keep-sessions` keeps them): whoever knew the old
 * password may be logged in. The running server closes those sessions' open chats within 30 s.
 */
import path from 'node:path';
import readline from 'node:readline';
import dotenv from 'dotenv';
import { passwordHashSetting } from '../src/web/auth/credentials.js';
import { hashPassword } from '../src/web/auth/password.js';
import { createPasswordStrength } from '../src/web/auth/password-strength.js';
import { loadConfig } from '../src/config/config.js';
import { openDatabase } from '../src/storage/database.js';
import { createSqliteSessionStore } from '../src/storage/session-store.js';
import { createSettingsStore } from '../src/storage/settings-store.js';

const minimumLength = 8;
/** bcrypt reads only the first 72 bytes: anything after them would not be part of the password. */
const maximumBytes = 72;

async function readPiped(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
}

function ask(question: string): Promise<string> {
  return new Promise((resolve) => {
    const terminal = readline.createInterface({ input: process.stdin, output: process.stdout, terminal: true });
    terminal.question(question, (answer) => {
      terminal.close();
      resolve(answer);
    });
  });
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
  const keepSessionsFlag = process.argv.slice(2).includes('--keep-sessions');
  let password: string;
  let logOutOthers = !keepSessionsFlag;
  if (process.stdin.isTTY) {
    password = await askHidden('New password: ');
    // Checked before it is typed again: a weak one is refused at once.
    checkPassword(password);
    const again = await askHidden('Type it again: ');
    if (password !== again) throw new Error('The two passwords differ. Nothing was changed.');
    if (!keepSessionsFlag) logOutOthers = !/^n/i.test((await ask('Log out every other session? [Y/n] ')).trim());
  } else {
    password = await readPiped();
    checkPassword(password);
  }

  const database = openDatabase(config.dataDir);
  createSettingsStore(database).set(passwordHashSetting, await hashPassword(password));
  const loggedOut = logOutOthers ? createSqliteSessionStore(database).logOutAll() : 0;
  database.close();
  console.log(
    logOutOthers
      ? `Password changed. ${loggedOut} session${loggedOut === 1 ? ' was' : 's were'} logged out: every browser logs in again with the new password (open chats close within 30 seconds).`
      : 'Password changed. The next login uses it; sessions already logged in stay logged in (--keep-sessions).',
  );
  if (config.passwordHash) {
    console.log('Note: PASSWORD_HASH is set in the environment or .env and wins over this; remove it there to use the new password.');
  }
}

function checkPassword(password: string): void {
  if (password.length < minimumLength) throw new Error(`Use at least ${minimumLength} characters. Nothing was changed.`);
  const bytes = Buffer.byteLength(password, 'utf8');
  if (bytes > maximumBytes) {
    throw new Error(
      `That password is ${bytes} bytes long (UTF-8); bcrypt uses only the first ${maximumBytes}, so the rest would not count. Use a shorter one. Nothing was changed.`,
    );
  }
  // Length alone lets "password1" through: a strength estimator knows common passwords, words,
  // names, keyboard rows and dates, which is what a guesser tries first.
  const weakness = createPasswordStrength().weakness(password);
  if (weakness) throw new Error(`${weakness} Nothing was changed.`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
