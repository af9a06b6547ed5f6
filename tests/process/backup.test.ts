import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { startOllamaStandin } from '../support/ollama-standin.js';
import { freePort } from '../support/free-port.js';
import { childEnvironment, logIn, root, startServer, waitForOutput } from '../support/server-process.js';
import { openChatSocket } from '../support/test-app.js';

function runScript(script: string, args: string[], environment: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: root,
      env: { ...childEnvironment(), ...environment },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

const query = <T>(file: string, sql: string): T[] => {
  const database = new Database(file, { readonly: true });
  try {
    return database.prepare(sql).all() as T[];
  } finally {
    database.close();
  }
};

test('round trip: a backup taken while a reply streams restores conversations, memory, the system prompt and (when asked) tokens', async (t) => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-backup-'));
  const standin = await startOllamaStandin();
  const port = await freePort();
  t.after(async () => {
    await standin.close();
    fs.rmSync(home, { recursive: true, force: true });
  });
  const dataDir = path.join(home, 'data');
  const tokensDir = path.join(home, 'tokens');
  fs.mkdirSync(tokensDir);
  fs.writeFileSync(path.join(home, 'memory.md'), '- The user keeps bees.\n');
  fs.writeFileSync(path.join(home, 'prompt.md'), 'You are a careful helper.\n');
  fs.writeFileSync(path.join(tokensDir, 'me@example.com.json'), '{"refresh_token":"secret"}', { mode: 0o600 });
  const environment = {
    PORT: String(port),
    DATA_DIR: dataDir,
    OLLAMA_HOST: standin.url,
    MEMORY_FILE: path.join(home, 'memory.md'),
    SYSTEM_PROMPT_FILE: path.join(home, 'prompt.md'),
    TOKENS_DIR: tokensDir,
    BACKUP_DIR: path.join(home, 'backups'),
    PASSWORD_HASH: (await import('bcrypt')).default.hashSync('backup password', 4),
    SECRET_KEY: 'z'.repeat(40),
  };
  const server = startServer(environment);
  t.after(() => server.child.kill('SIGKILL'));
  await waitForOutput(server, /Hearth is running/);
  const baseUrl = `http://127.0.0.1:${port}`;
  const { cookies } = await logIn(baseUrl, 'backup password');

  const socket = await openChatSocket(baseUrl, cookies);
  standin.enqueue({ content: 'The finished answer about bees.' });
  socket.send({ type: 'send', message: 'First question' });
  // The finished reply replaces its element whole.
  await socket.waitFor((message) => message.target === '#message-2' && String(message.content).includes('data-status="complete"'), 10_000);
  // A second reply streams slowly while the backup runs.
  standin.enqueue({ content: Array.from({ length: 80 }, (_, index) => `bee${index}`).join(' '), chunkDelayMs: 50 });
  socket.send({ type: 'send', message: 'Second question' });
  await socket.waitFor((message) => String(message.text).includes('bee25'), 10_000);

  const backup = await runScript('scripts/backup.ts', ['--tokens'], environment);
  assert.equal(backup.code, 0, backup.output);
  const file = /Backup written: (\S+)/.exec(backup.output)?.[1];
  assert.ok(file && fs.existsSync(file), backup.output);
  assert.match(path.basename(file), /^hearth-backup-\d{4}-\d{2}-\d{2}-\d{6}\.sqlite$/);
  assert.equal(path.dirname(file), path.join(home, 'backups'), 'written to BACKUP_DIR');
  assert.equal(fs.statSync(file).mode & 0o777, 0o600, 'only the owner can read a backup');

  // While the server runs, restore refuses.
  const refused = await runScript('scripts/restore.ts', [file, '--yes'], environment);
  assert.equal(refused.code, 1);
  assert.match(refused.output, new RegExp(`Hearth seems to be running: something listens on port ${port}`));

  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);
  socket.socket.terminate();

  // Things change after the backup...
  fs.writeFileSync(path.join(home, 'memory.md'), '- Overwritten.\n');
  fs.rmSync(path.join(home, 'prompt.md'));
  fs.rmSync(path.join(tokensDir, 'me@example.com.json'));
  const live = new Database(path.join(dataDir, 'hearth.sqlite'));
  live.exec('DELETE FROM conversations');
  live.close();

  // ...without a terminal and without --yes nothing happens...
  const unconfirmed = await runScript('scripts/restore.ts', [file], environment);
  assert.equal(unconfirmed.code, 1);
  assert.match(unconfirmed.output, /Add --yes/);
  assert.equal(query<{ count: number }>(path.join(dataDir, 'hearth.sqlite'), 'SELECT count(*) AS count FROM conversations')[0]!.count, 0);

  // ...and --yes puts everything back, keeping what it replaced aside.
  const restored = await runScript('scripts/restore.ts', [file, '--yes'], environment);
  assert.equal(restored.code, 0, restored.output);
  assert.equal(fs.readFileSync(path.join(home, 'memory.md'), 'utf8'), '- The user keeps bees.\n');
  assert.equal(fs.readFileSync(path.join(home, 'prompt.md'), 'utf8'), 'You are a careful helper.\n');
  assert.equal(fs.readFileSync(path.join(tokensDir, 'me@example.com.json'), 'utf8'), '{"refresh_token":"secret"}');
  const aside = fs.readdirSync(dataDir).find((name) => name.startsWith('replaced-by-restore-'));
  assert.ok(aside, 'the replaced files are kept');
  assert.equal(fs.readFileSync(path.join(dataDir, aside, 'memory.md'), 'utf8'), '- Overwritten.\n');

  const database = path.join(dataDir, 'hearth.sqlite');
  assert.deepEqual(query(database, "SELECT name FROM sqlite_master WHERE name LIKE 'backup_%'"), [], 'the backup tables are not in the restored database');
  const messages = query<{ role: string; content: string; status: string }>(database, 'SELECT role, content, status FROM messages ORDER BY id');
  assert.deepEqual(messages.slice(0, 3).map((message) => message.content), ['First question', 'The finished answer about bees.', 'Second question']);
  assert.match(messages[3]!.content, /^bee0 bee1 bee2/, 'the reply streaming during the backup is there as far as it was saved');

  // The restored data serves: the server starts on it and shows the conversation.
  const again = startServer(environment);
  t.after(() => again.child.kill('SIGKILL'));
  await waitForOutput(again, /Hearth is running/);
  const page = await fetch(`${baseUrl}/c/1`, { headers: { cookie: (await logIn(baseUrl, 'backup password')).cookies } });
  assert.equal(page.status, 200);
  assert.match(await page.text(), /The finished answer about bees\./);
  again.child.kill('SIGTERM');
  await again.exited;
});
