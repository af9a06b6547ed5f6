/**
 * What an anonymous client can make the server do: bodies are read only after the login check,
 * the login form takes a few kilobytes, and a request that trickles in is cut off.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { buildTestApp, cookieHeader, csrfTokenFrom, openChatSocket } from '../support/test-app.js';

const deepJson = (bytes: number) => '['.repeat(bytes / 2) + ']'.repeat(bytes / 2);

test('an anonymous request\'s body is never read: refused before parsing', async (t) => {
  const { app } = await buildTestApp(t);
  let bodiesRead = 0;
  app.addHook('preParsing', async (request) => {
    if (request.method === 'POST') bodiesRead += 1;
  });
  for (const url of ['/memory', '/settings/prompt', '/c/1']) {
    const response = await app.inject({
      method: url === '/c/1' ? 'DELETE' : 'POST',
      url,
      headers: { 'content-type': 'application/json' },
      payload: deepJson(1024 * 1024 - 2),
    });
    assert.equal(response.statusCode, 401, url);
  }
  assert.equal(bodiesRead, 0, 'no anonymous body was parsed');
});

test('the login form and unknown routes take small bodies only; logged-in pages still take large ones', async (t) => {
  const { app, login } = await buildTestApp(t);
  const page = await app.inject({ url: '/login' });
  const headers = { cookie: cookieHeader(page.headers['set-cookie']), 'content-type': 'application/x-www-form-urlencoded' };
  const login5k = await app.inject({ method: 'POST', url: '/login', headers, payload: `password=${'a'.repeat(5 * 1024)}&_csrf=${encodeURIComponent(csrfTokenFrom(page.body))}` });
  assert.equal(login5k.statusCode, 413);
  const unknown = await app.inject({ method: 'POST', url: '/no-such-route', headers: { 'content-type': 'application/json' }, payload: deepJson(64 * 1024) });
  assert.equal(unknown.statusCode, 413);

  const cookies = await login();
  const settingsPage = await app.inject({ url: '/settings', headers: { cookie: cookies } });
  const prompt = await app.inject({
    method: 'POST',
    url: '/settings/prompt',
    headers: { cookie: cookieHeader(settingsPage.headers['set-cookie'], cookies), 'content-type': 'application/x-www-form-urlencoded' },
    payload: `template=${'x'.repeat(200 * 1024)}&_csrf=${encodeURIComponent(csrfTokenFrom(settingsPage.body))}`,
  });
  assert.equal(prompt.statusCode, 303, 'a 200 KB prompt template is accepted from the owner');
  assert.equal(prompt.headers.location, '/settings?saved=prompt');
});

/** Opens a raw connection, sends headers promising a body and a few bytes of it, then goes quiet. */
function slowBody(port: number): Promise<{ socket: net.Socket; closed: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write('POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\npassword=');
      let answer = '';
      socket.on('data', (chunk) => (answer += chunk));
      const closed = new Promise<string>((done) => socket.on('close', () => done(answer)));
      resolve({ socket, closed });
    });
    socket.on('error', reject);
  });
}

test('sockets that send their body slowly are closed after the request time-out; WebSockets stay open', async (t) => {
  const { listen, login } = await buildTestApp(t, { dependencies: { requestTimeoutMs: 400 } });
  const baseUrl = await listen();
  const cookies = await login();
  const chat = await openChatSocket(baseUrl, cookies);
  t.after(() => chat.close());
  const port = Number(new URL(baseUrl).port);
  const slow = await Promise.all(Array.from({ length: 20 }, () => slowBody(port)));

  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    Promise.all(slow.map(({ closed }) => closed)),
    new Promise<'still open'>((resolve) => (timer = setTimeout(() => resolve('still open'), 5000))),
  ]);
  clearTimeout(timer);
  for (const { socket } of slow) socket.destroy();
  assert.notEqual(outcome, 'still open', 'the slow sockets were closed');
  assert.match((outcome as string[])[0]!, /^HTTP\/1\.1 408/);

  // The chat socket, open for longer than the request time-out, still works.
  assert.equal(chat.socket.readyState, chat.socket.OPEN);
  chat.send({ type: 'nonsense' });
  await chat.waitFor((message) => String(message.content).includes('Unknown request type'));
});
