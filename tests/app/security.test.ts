/**
 * Attacks and faults from docs/security.md, each against the real app: headers, traversal, oversized
 * input and Ollama dying. The two that load the server for seconds (1,000 password guesses during a
 * live chat, 10,000 fuzzed WebSocket frames) are in tests/process/attack-load.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { projectRoot } from '../../src/config/project-root.js';
import { buildTestApp, cookieHeader, csrfTokenFrom, startChatHarness } from '../support/test-app.js';

test('every kind of response carries the security headers', async (t) => {
  const { app, login } = await buildTestApp(t);
  const cookies = await login();
  const responses = await Promise.all([
    app.inject({ url: '/login' }),
    app.inject({ url: '/', headers: { cookie: cookies } }),
    app.inject({ url: '/static/app.css' }),
    app.inject({ url: '/static/vendor/htmx.min.js' }),
    app.inject({ url: '/healthz' }),
    app.inject({ url: '/no-such-page', headers: { accept: 'text/html' } }),
    app.inject({ url: '/no-such-api' }),
    app.inject({ method: 'POST', url: '/login', payload: {} }),
  ]);
  for (const response of responses) {
    const where = `${response.statusCode} ${response.raw.req.url}`;
    assert.match(String(response.headers['content-security-policy']), /default-src 'self';script-src 'self';style-src 'self'/, where);
    assert.match(String(response.headers['content-security-policy']), /frame-ancestors 'none'/, where);
    assert.doesNotMatch(String(response.headers['content-security-policy']), /unsafe-inline|unsafe-eval/, where);
    assert.equal(response.headers['x-content-type-options'], 'nosniff', where);
    assert.equal(response.headers['x-frame-options'], 'SAMEORIGIN', where);
    assert.equal(response.headers['referrer-policy'], 'same-origin', where);
  }
});

test('no page has an inline script or inline event handler (the CSP would block it anyway)', async (t) => {
  const { app, login } = await buildTestApp(t);
  const cookies = await login();
  for (const url of ['/login', '/', '/memory']) {
    const response = await app.inject({ url, headers: { cookie: cookies } });
    assert.doesNotMatch(response.body, /<script(?![^>]*\bsrc=)[^>]*>/i, url);
    assert.doesNotMatch(response.body, /\son[a-z]+=/i, url);
    assert.doesNotMatch(response.body, /hx-on|javascript:/i, url);
  }
});

test('cookies are Secure when a trusted proxy says the request came over HTTPS', async (t) => {
  const { app } = await buildTestApp(t, { environment: { TRUST_PROXY: '127.0.0.1' } });
  const page = await app.inject({ url: '/login', headers: { 'x-forwarded-proto': 'https' } });
  const cookies = cookieHeader(page.headers['set-cookie']);
  const login = await app.inject({
    method: 'POST',
    url: '/login',
    headers: { cookie: cookies, 'x-forwarded-proto': 'https' },
    payload: { password: 'correct horse battery staple', _csrf: csrfTokenFrom(page.body) },
  });
  const session = [login.headers['set-cookie']].flat().find((line) => line?.startsWith('hearth_session='))!;
  assert.match(session, /; Secure/i);
  assert.match(session, /HttpOnly/i);
  assert.match(String(login.headers['strict-transport-security'] ?? ''), /max-age/);
});

test('path traversal against static files and file-reading routes finds nothing', async (t) => {
  const { app, login } = await buildTestApp(t);
  const cookies = await login();
  const attempts = [
    '/static/../package.json',
    '/static/..%2fpackage.json',
    '/static/%2e%2e/%2e%2e/etc/passwd',
    '/static/..%5c..%5cpackage.json',
    '/static/vendor/../../../package.json',
    '/static/vendor/htmx.js',
    '/static/vendor/ext/hx-sse.js',
    '/static/.gitignore',
    '/static//etc/passwd',
    '/c/..%2f..%2fetc%2fpasswd',
    '/memory/versions/..%2f1/restore',
    '/static/%00app.css',
  ];
  for (const url of attempts) {
    const response = await app.inject({ url, headers: { cookie: cookies } });
    assert.ok([400, 403, 404].includes(response.statusCode), `${url} → ${response.statusCode}`);
    assert.doesNotMatch(response.body, /"name": "hearth"|root:x:0/, url);
  }
});

test('oversized bodies are refused and the server stays up', async (t) => {
  const { app } = await buildTestApp(t);
  const page = await app.inject({ url: '/login' });
  const response = await app.inject({
    method: 'POST',
    url: '/login',
    headers: { cookie: cookieHeader(page.headers['set-cookie']), 'content-type': 'application/x-www-form-urlencoded' },
    payload: `password=${'a'.repeat(2 * 1024 * 1024)}`,
  });
  assert.equal(response.statusCode, 413);
  assert.equal((await app.inject({ url: '/healthz' })).statusCode, 200);
});

test('/healthz without a login says only that the server is up, not whether the owner is chatting', async (t) => {
  const { app, cookies, socket, standin } = await startChatHarness(t);
  standin.enqueue({ tokens: 200, tokenText: 'tick ', tokensPerSecond: 50 });
  socket.send({ type: 'send', message: 'Write slowly' });
  await socket.waitFor((message) => message.event === 'append' && String(message.text).includes('tick'));

  const anonymous = await app.inject({ url: '/healthz' });
  assert.equal(anonymous.statusCode, 200);
  assert.deepEqual(anonymous.json(), { status: 'ok' }, 'no activeReplies, no model servers');
  const owner = (await app.inject({ url: '/healthz', headers: { cookie: cookies } })).json() as Record<string, unknown>;
  assert.equal(owner.status, 'ok');
  assert.equal(owner.activeReplies, 1, 'the owner still sees the reply being written');
  assert.deepEqual(owner.backends, [{ id: 'ollama', name: 'Ollama', kind: 'ollama', status: 'reachable' }]);
});

test('Ollama killed mid-reply: the partial text is kept, the chat says what happened, the server serves on', async (t) => {
  const { cookies, socket, standin, store, app } = await startChatHarness(t);
  standin.enqueue({ content: 'one two three four five six seven eight nine ten', chunkDelayMs: 80 });
  socket.send({ type: 'send', message: 'Count slowly' });
  // Streamed text arrives as data frames (`{"event":"append","text"}`), not as HTML content.
  await socket.waitFor((message) => message.event === 'append' && message.target === '#message-2-tail' && String(message.text).includes('three'));
  await standin.close();
  const final = await socket.waitFor((message) => message.target === '#message-2' && String(message.content).includes('chat-error'));
  assert.match(String(final.content), /connection to Ollama .* dropped/);
  const saved = store.getMessage(2)!;
  assert.equal(saved.status, 'failed');
  assert.match(saved.content, /^one two three/);
  assert.equal(store.getMessage(1)!.content, 'Count slowly');
  assert.equal((await app.inject({ url: '/', headers: { cookie: cookies } })).statusCode, 200);
});

test('with TLS_CERT and TLS_KEY the server speaks HTTPS, cookies are Secure and HSTS is sent', async (t) => {
  const https = await import('node:https');
  const path = await import('node:path');
  const folder = path.join(projectRoot, 'tests', 'support', 'tls');
  const { app } = await buildTestApp(t, {
    environment: { TLS_CERT: path.join(folder, 'test-cert.pem'), TLS_KEY: path.join(folder, 'test-key.pem') },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as import('node:net').AddressInfo).port;
  const response = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
    https.get({ host: '127.0.0.1', port, path: '/login', rejectUnauthorized: false }, resolve).on('error', reject);
  });
  response.resume();
  assert.equal(response.statusCode, 200);
  assert.match(String(response.headers['strict-transport-security']), /max-age=\d+/);
  const sessionCookie = [response.headers['set-cookie']].flat().find((line) => line?.startsWith('hearth_session='));
  assert.match(String(sessionCookie), /; Secure/i);
  assert.match(String(response.headers['content-security-policy']), /upgrade-insecure-requests/);
});
