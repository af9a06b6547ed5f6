import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp, cookieHeader, csrfTokenFrom, openChatSocket, restartTestApp, testPassword } from '../support/test-app.js';

test('pages, APIs and the socket need a login', async (t) => {
  const { app, listen } = await buildTestApp(t);
  const page = await app.inject({ method: 'GET', url: '/' });
  assert.equal(page.statusCode, 302);
  assert.equal(page.headers.location, '/login');
  const history = await app.inject({ method: 'GET', url: '/history', headers: { 'hx-request': 'true' } });
  assert.equal(history.statusCode, 401);
  assert.equal(history.headers['hx-redirect'], '/login');
  const conversation = await app.inject({ method: 'GET', url: '/c/1' });
  assert.equal(conversation.headers.location, '/login?next=%2Fc%2F1');
  const baseUrl = await listen();
  await assert.rejects(openChatSocket(baseUrl, ''), /upgrade refused: 401/);
});

test('the login page is served with strict security headers', async (t) => {
  const { app } = await buildTestApp(t);
  const response = await app.inject({ method: 'GET', url: '/login' });
  assert.equal(response.statusCode, 200);
  assert.match(response.body, /<form id="login-form"/);
  const policy = String(response.headers['content-security-policy']);
  assert.match(policy, /script-src 'self'(;|$)/);
  assert.match(policy, /frame-ancestors 'none'/);
  assert.equal(response.headers['x-content-type-options'], 'nosniff');
  assert.equal(response.headers['referrer-policy'], 'same-origin');
});

test('a wrong password is refused with a message; the right one gives a new session', async (t) => {
  const { app } = await buildTestApp(t);
  const page = await app.inject({ method: 'GET', url: '/login' });
  const cookies = cookieHeader(page.headers['set-cookie']);
  const token = csrfTokenFrom(page.body);
  const wrong = await app.inject({ method: 'POST', url: '/login', headers: { cookie: cookies }, payload: { password: 'nope', _csrf: token } });
  assert.equal(wrong.statusCode, 401);
  assert.match(wrong.body, /class="login-error"/);

  // A session id planted before login must not survive it (session fixation).
  const planted = 'hearth_session=planted-session-id';
  const right = await app.inject({
    method: 'POST',
    url: '/login',
    headers: { cookie: `${cookies}; ${planted}` },
    payload: { password: testPassword, _csrf: token, next: '/c/5' },
  });
  assert.equal(right.statusCode, 303);
  assert.equal(right.headers.location, '/c/5');
  const sessionCookie = [right.headers['set-cookie']].flat().find((line) => line?.startsWith('hearth_session='))!;
  assert.ok(sessionCookie, 'a session cookie is set');
  assert.doesNotMatch(sessionCookie, /planted-session-id/);
  assert.match(sessionCookie, /HttpOnly/i);
  assert.match(sessionCookie, /SameSite=Lax/i);
});

test('login refuses a post without the CSRF token (cross-site form)', async (t) => {
  const { app } = await buildTestApp(t);
  const response = await app.inject({ method: 'POST', url: '/login', payload: { password: testPassword } });
  assert.equal(response.statusCode, 403);
  assert.match(response.body, /expired|another site/);
});

test('an open redirect through ?next is not followed', async (t) => {
  const { app } = await buildTestApp(t);
  const page = await app.inject({ method: 'GET', url: '/login' });
  const response = await app.inject({
    method: 'POST',
    url: '/login',
    headers: { cookie: cookieHeader(page.headers['set-cookie']) },
    payload: { password: testPassword, _csrf: csrfTokenFrom(page.body), next: '//evil.example/' },
  });
  assert.equal(response.headers.location, '/');
});

test('failed logins are limited per address, before bcrypt runs', async (t) => {
  const { app } = await buildTestApp(t, { dependencies: { loginAttempts: 5, loginWindowMs: 60_000 } });
  const page = await app.inject({ method: 'GET', url: '/login' });
  const cookies = cookieHeader(page.headers['set-cookie']);
  const token = csrfTokenFrom(page.body);
  const statuses: number[] = [];
  const started = performance.now();
  for (let attempt = 0; attempt < 40; attempt += 1) {
    const response = await app.inject({ method: 'POST', url: '/login', headers: { cookie: cookies }, payload: { password: `guess-${attempt}`, _csrf: token } });
    statuses.push(response.statusCode);
  }
  assert.deepEqual(statuses.slice(0, 5), [401, 401, 401, 401, 401]);
  assert.ok(statuses.slice(5).every((status) => status === 429), `later attempts are refused: ${statuses.join(',')}`);
  const refused = await app.inject({ method: 'POST', url: '/login', headers: { cookie: cookies }, payload: { password: testPassword, _csrf: token } });
  assert.equal(refused.statusCode, 429, 'even the right password waits out the limit');
  assert.match(refused.body, /Too many login attempts/);
  assert.ok(performance.now() - started < 5000);
});

test('the WebSocket refuses a foreign Origin even with a valid session', async (t) => {
  const { login, listen } = await buildTestApp(t);
  const cookies = await login();
  const baseUrl = await listen();
  await assert.rejects(openChatSocket(baseUrl, cookies, '', 'http://evil.example'), /upgrade refused: 403/);
  const socket = await openChatSocket(baseUrl, cookies);
  await socket.close();
});

test('logout ends the session', async (t) => {
  const { app, login } = await buildTestApp(t);
  const cookies = await login();
  const chat = await app.inject({ method: 'GET', url: '/', headers: { cookie: cookies } });
  assert.equal(chat.statusCode, 200);
  const logout = await app.inject({
    method: 'POST',
    url: '/logout',
    headers: { cookie: cookieHeader(chat.headers['set-cookie'], cookies) },
    payload: { _csrf: csrfTokenFrom(chat.body) },
  });
  assert.equal(logout.statusCode, 303);
  const after = await app.inject({ method: 'GET', url: '/', headers: { cookie: cookies } });
  assert.equal(after.statusCode, 302);
});

test('a session survives a server restart (sessions are in SQLite)', async (t) => {
  const first = await buildTestApp(t);
  const cookies = await first.login();
  const rows = first.database.prepare('SELECT COUNT(*) AS count FROM sessions').get() as { count: number };
  assert.equal(rows.count, 1);
  await first.app.close();
  const second = await restartTestApp(t, first);
  const page = await second.inject({ method: 'GET', url: '/', headers: { cookie: cookies } });
  assert.equal(page.statusCode, 200);
});

test('a "next" path with characters outside Latin-1 is followed after login, percent-encoded', async (t) => {
  const { app } = await buildTestApp(t);
  for (const [next, location] of [
    ['/c/1?q=日本語', '/c/1?q=%E6%97%A5%E6%9C%AC%E8%AA%9E'],
    ['/memory#ü€', '/memory#%C3%BC%E2%82%AC'],
    ['/c/1?q=%E2%82%AC', '/c/1?q=%E2%82%AC'],
  ] as const) {
    const page = await app.inject({ method: 'GET', url: `/login?next=${encodeURIComponent(next)}` });
    assert.equal(page.statusCode, 200);
    const response = await app.inject({
      method: 'POST',
      url: '/login',
      headers: { cookie: cookieHeader(page.headers['set-cookie']) },
      payload: { password: testPassword, _csrf: csrfTokenFrom(page.body), next },
    });
    assert.equal(response.statusCode, 303, `${next}: ${response.body.slice(0, 200)}`);
    assert.equal(response.headers.location, location);
  }
});

test('private pages and the login page tell the browser not to store them', async (t) => {
  const { app, login } = await buildTestApp(t);
  const cookies = await login();
  for (const url of ['/', '/c/1', '/memory', '/history']) {
    const response = await app.inject({ url, headers: { cookie: cookies } });
    assert.equal(response.headers['cache-control'], 'no-store', `${url} (${response.statusCode})`);
  }
  const anonymous = await app.inject({ url: '/login' });
  assert.equal(anonymous.headers['cache-control'], 'no-store', '/login');
  const redirected = await app.inject({ url: '/memory' });
  assert.equal(redirected.headers['cache-control'], 'no-store', 'the redirect to /login');
  const stylesheet = await app.inject({ url: '/static/app.css' });
  assert.notEqual(stylesheet.headers['cache-control'], 'no-store', 'static files may still be cached');
});
