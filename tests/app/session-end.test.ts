/**
 * When a session ends (deleted by `npm run set-password` in another process, or expired), the
 * WebSockets it opened stop working: on their next message, and by themselves when idle.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loggedOutCloseCode } from '../../src/web/auth/session-sockets.js';
import { buildTestApp, startChatHarness, type ChatSocket } from '../support/test-app.js';

/** The close code once the socket closes, or 'still open' after `withinMs`. */
function closeCode(chat: ChatSocket, withinMs = 3000): Promise<number | 'still open'> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('still open'), withinMs);
    chat.socket.once('close', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

test('a message on a socket whose session was deleted is refused and the socket closes', async (t) => {
  const { socket, database, standin, store } = await startChatHarness(t);
  const closed = closeCode(socket);
  database.prepare('DELETE FROM sessions').run();
  socket.send({ type: 'send', message: 'Still there?' });
  assert.equal(await closed, loggedOutCloseCode);
  assert.equal(standin.requests.length, 0, 'nothing reached the model');
  assert.equal(store.listConversations(10).length, 0, 'nothing was saved');
});

test('an idle socket closes by itself soon after its session is deleted', async (t) => {
  const { socket, database } = await startChatHarness(t, { dependencies: { socketSessionCheckMs: 200 } });
  const closed = closeCode(socket);
  database.prepare('DELETE FROM sessions').run();
  assert.equal(await closed, loggedOutCloseCode);
});

test('an idle socket closes at its session\'s expiry time', async (t) => {
  // A fixed login length, so opening the socket (a use) cannot move the end.
  const harness = await startChatHarness(t, { environment: { SESSION_TTL_HOURS: '1' } });
  // The session ends in a moment; a socket opened now must not outlive it (the regular check is 30 s away).
  harness.database
    .prepare("UPDATE sessions SET expires_at = ?, data = json_set(data, '$.loggedInAt', ?)")
    .run(Date.now() + 600, Date.now() + 600 - 3_600_000);
  const { openChatSocket } = await import('../support/test-app.js');
  const late = await openChatSocket(harness.baseUrl, harness.cookies);
  t.after(() => late.close());
  assert.equal(await closeCode(late), loggedOutCloseCode);
});

test('a request still in flight when its session is deleted does not bring the session back', async (t) => {
  const { app, login, database } = await buildTestApp(t);
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  // Holds the next page request between reading its session and saving it.
  app.addHook('preHandler', async (request) => {
    if (request.url === '/memory') await held;
  });
  const cookies = await login();
  const page = app.inject({ url: '/memory', headers: { cookie: cookies } });
  await new Promise((resolve) => setTimeout(resolve, 100));
  database.prepare('DELETE FROM sessions').run();
  release();
  assert.equal((await page).statusCode, 200, 'the page that was already being served finishes');
  assert.equal((database.prepare('SELECT COUNT(*) AS count FROM sessions').get() as { count: number }).count, 0);
  const after = await app.inject({ url: '/', headers: { cookie: cookies } });
  assert.equal(after.statusCode, 302, 'the session stays logged out');
});
