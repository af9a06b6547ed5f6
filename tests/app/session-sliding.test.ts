/**
 * A login slides: it stays valid while it is used (each page request or socket message, at most
 * once a minute), and ends after SESSION_IDLE_DAYS without use; SESSION_TTL_HOURS, when set,
 * still ends it a fixed time after login. When it ends, an open chat is told so in a frame.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loggedOutCloseCode } from '../../src/web/auth/session-sockets.js';
import { buildTestApp, cookieHeader, csrfTokenFrom, openChatSocket, startChatHarness, type TestApp } from '../support/test-app.js';

const day = 86_400_000;

interface SessionRow {
  expires_at: number;
  data: string;
}

function loggedInRow(harness: Pick<TestApp, 'database'>): SessionRow {
  return harness.database.prepare('SELECT expires_at, data FROM sessions WHERE authenticated = 1').get() as SessionRow;
}

/** As if the login was last used long ago: it ends in `inMs`, in the store and in its own cookie copy. */
function endSoon(harness: Pick<TestApp, 'database'>, inMs: number, loggedInAgoMs?: number): number {
  const until = Date.now() + inMs;
  harness.database
    .prepare("UPDATE sessions SET expires_at = ?, data = json_set(data, '$.cookie.expires', ?) WHERE authenticated = 1")
    .run(until, new Date(until).toISOString());
  if (loggedInAgoMs !== undefined) {
    harness.database.prepare("UPDATE sessions SET data = json_set(data, '$.loggedInAt', ?) WHERE authenticated = 1").run(Date.now() - loggedInAgoMs);
  }
  return until;
}

function cookieExpiry(setCookie: string | string[] | undefined): number | undefined {
  const line = [setCookie ?? []].flat().find((value) => value.startsWith('hearth_session='));
  const expires = line && /Expires=([^;]+)/i.exec(line)?.[1];
  return expires ? Date.parse(expires) : undefined;
}

test('a login that is used stays valid: a page request near its end moves it 30 days on, cookie included', async (t) => {
  const harness = await buildTestApp(t);
  const cookies = await harness.login();
  endSoon(harness, 5 * 60_000);
  const page = await harness.app.inject({ url: '/', headers: { cookie: cookies } });
  assert.equal(page.statusCode, 200);
  const row = loggedInRow(harness);
  assert.ok(row.expires_at > Date.now() + 29 * day, `the login now ends in ${Math.round((row.expires_at - Date.now()) / day)} days`);
  const cookieEnd = cookieExpiry(page.headers['set-cookie']);
  assert.ok(cookieEnd !== undefined && cookieEnd > Date.now() + 29 * day, 'the browser is told to keep the cookie as long');
});

test('GET /session from a logged-in page counts as a use: a page living on its socket refreshes its cookie with it', async (t) => {
  const harness = await buildTestApp(t);
  const cookies = await harness.login();
  endSoon(harness, 5 * 60_000);
  const answer = await harness.app.inject({ url: '/session', headers: { cookie: cookies } });
  assert.deepEqual(answer.json(), { loggedIn: true });
  assert.ok(loggedInRow(harness).expires_at > Date.now() + 29 * day);
  const cookieEnd = cookieExpiry(answer.headers['set-cookie']);
  assert.ok(cookieEnd !== undefined && cookieEnd > Date.now() + 29 * day);
});

test('a login is extended at most once a minute: a second request writes nothing and sends no cookie', async (t) => {
  const harness = await buildTestApp(t);
  let cookies = await harness.login();
  // The first page after login makes the session's CSRF secret, which is a change of its own.
  const first = await harness.app.inject({ url: '/memory', headers: { cookie: cookies } });
  cookies = cookieHeader(first.headers['set-cookie'], cookies);
  const before = loggedInRow(harness);
  const page = await harness.app.inject({ url: '/memory', headers: { cookie: cookies } });
  assert.equal(page.statusCode, 200);
  assert.equal(cookieExpiry(page.headers['set-cookie']), undefined);
  assert.equal(loggedInRow(harness).expires_at, before.expires_at);
});

test('a login unused for longer than SESSION_IDLE_DAYS has ended', async (t) => {
  const harness = await buildTestApp(t, { environment: { SESSION_IDLE_DAYS: '7' } });
  const cookies = await harness.login();
  const row = loggedInRow(harness);
  assert.ok(row.expires_at <= Date.now() + 7 * day && row.expires_at > Date.now() + 6 * day, 'a new login lasts the idle limit');
  harness.database.prepare('UPDATE sessions SET expires_at = ? WHERE authenticated = 1').run(Date.now() - 1000);
  const page = await harness.app.inject({ url: '/', headers: { cookie: cookies } });
  assert.equal(page.statusCode, 302);
  assert.equal((await harness.app.inject({ url: '/session', headers: { cookie: cookies } })).json().loggedIn, false);
});

test('with SESSION_TTL_HOURS set, use does not stretch a login past that many hours from login', async (t) => {
  const harness = await buildTestApp(t, { environment: { SESSION_TTL_HOURS: '24' } });
  const cookies = await harness.login();
  const row = loggedInRow(harness);
  assert.ok(row.expires_at <= Date.now() + day && row.expires_at > Date.now() + day - 60_000, 'a new login lasts 24 hours');
  // Logged in 23 h 55 min ago: five minutes are left, and a request does not add to them.
  const until = endSoon(harness, 5 * 60_000, day - 5 * 60_000);
  const page = await harness.app.inject({ url: '/', headers: { cookie: cookies } });
  assert.equal(page.statusCode, 200);
  assert.equal(loggedInRow(harness).expires_at, until);
});

test('a message on the chat socket extends the login, in the store and in the cookie copy it keeps', async (t) => {
  const harness = await startChatHarness(t);
  endSoon(harness, 5 * 60_000);
  harness.socket.send({ type: 'stop' });
  // The stop command answers nothing: wait until the store has moved.
  const deadline = Date.now() + 5000;
  while (loggedInRow(harness).expires_at < Date.now() + day && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  const row = loggedInRow(harness);
  assert.ok(row.expires_at > Date.now() + 29 * day);
  const data = JSON.parse(row.data) as { cookie: { expires: string } };
  assert.equal(Date.parse(data.cookie.expires), row.expires_at, 'the next page request will not find it expired');
  const page = await harness.app.inject({ url: '/', headers: { cookie: harness.cookies } });
  assert.equal(page.statusCode, 200);
});

test('a socket whose login ended is told so in a session-ended frame before it closes', async (t) => {
  const harness = await startChatHarness(t, { dependencies: { socketSessionCheckMs: 200 } });
  const closed = new Promise<number>((resolve) => harness.socket.socket.once('close', (code) => resolve(code)));
  harness.database.prepare('DELETE FROM sessions').run();
  const frame = await harness.socket.waitFor((message) => message.event === 'session-ended');
  assert.equal(frame.reason, 'expired');
  assert.match(String(frame.message), /Enter the password/);
  assert.equal(frame.login, '/login');
  assert.equal(await closed, loggedOutCloseCode);
});

test('logging out tells this browser\'s other open chats why their socket closes', async (t) => {
  const harness = await startChatHarness(t);
  const page = await harness.app.inject({ url: '/', headers: { cookie: harness.cookies } });
  const logout = await harness.app.inject({
    method: 'POST',
    url: '/logout',
    headers: { cookie: cookieHeader(page.headers['set-cookie'], harness.cookies) },
    payload: { _csrf: csrfTokenFrom(page.body) },
  });
  assert.equal(logout.statusCode, 303);
  const frame = await harness.socket.waitFor((message) => message.event === 'session-ended');
  assert.equal(frame.reason, 'logged-out');
});

test('GET /session says whether this browser is logged in, so a page whose socket cannot open knows why', async (t) => {
  const harness = await buildTestApp(t);
  const anonymous = await harness.app.inject({ url: '/session' });
  assert.equal(anonymous.statusCode, 200);
  assert.deepEqual(anonymous.json(), { loggedIn: false });
  assert.equal(anonymous.headers['cache-control'], 'no-store');
  const cookies = await harness.login();
  assert.deepEqual((await harness.app.inject({ url: '/session', headers: { cookie: cookies } })).json(), { loggedIn: true });
  const baseUrl = await harness.listen();
  harness.database.prepare('DELETE FROM sessions').run();
  await assert.rejects(openChatSocket(baseUrl, cookies), /upgrade refused: 401/);
  assert.deepEqual((await harness.app.inject({ url: '/session', headers: { cookie: cookies } })).json(), { loggedIn: false });
});
