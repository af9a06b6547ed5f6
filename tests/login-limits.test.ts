/**
 * Password guessing: only failures count, per address, kept across restarts; bcrypt work in flight
 * is capped so a flood from many addresses neither starves the chat nor locks out the owner.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test, type TestContext } from 'node:test';
import bcrypt from 'bcrypt';
import { buildApp } from '../src/app.js';
import { createChatModel } from '../src/llm/chat-model.js';
import { buildTestApp, cookieHeader, csrfTokenFrom, openChatSocket, testPassword, type TestApp } from './support/test-app.js';

type App = TestApp['app'];

/** One login attempt through the form, claiming `address` (the app trusts 127.0.0.1 as its proxy). */
async function attempt(app: App, password: string, address?: string): Promise<number> {
  const headers: Record<string, string> = address ? { 'x-forwarded-for': address } : {};
  const page = await app.inject({ url: '/login', headers });
  const response = await app.inject({
    method: 'POST',
    url: '/login',
    headers: { ...headers, cookie: cookieHeader(page.headers['set-cookie']) },
    payload: { password, _csrf: csrfTokenFrom(page.body) },
  });
  return response.statusCode;
}

const behindProxy = { environment: { TRUST_PROXY: '127.0.0.1' } };

test('successful logins never count against the limit', async (t) => {
  const { app } = await buildTestApp(t, { dependencies: { loginAttempts: 3 } });
  const statuses: number[] = [];
  for (let index = 0; index < 8; index += 1) statuses.push(await attempt(app, testPassword));
  assert.deepEqual(statuses, Array(8).fill(303));
  // Two typos in between do not lock the owner out either: a right password forgets them.
  assert.equal(await attempt(app, 'typo one'), 401);
  assert.equal(await attempt(app, 'typo two'), 401);
  assert.equal(await attempt(app, testPassword), 303);
  assert.equal(await attempt(app, 'typo three'), 401);
  assert.equal(await attempt(app, 'typo four'), 401);
  assert.equal(await attempt(app, testPassword), 303);
});

test('an address that failed too often waits; the owner still logs in from another address', async (t) => {
  const { app } = await buildTestApp(t, { ...behindProxy, dependencies: { loginAttempts: 3 } });
  for (let index = 0; index < 3; index += 1) assert.equal(await attempt(app, `guess ${index}`, '10.0.0.66'), 401);
  assert.equal(await attempt(app, 'guess 4', '10.0.0.66'), 429);
  assert.equal(await attempt(app, testPassword, '10.0.0.66'), 429, 'even the right password waits at that address');
  assert.equal(await attempt(app, testPassword, '10.0.0.7'), 303, 'the owner at another address gets in');
});

test('failure counts are kept in SQLite: a restart does not reset them', async (t) => {
  const first = await buildTestApp(t, { ...behindProxy, dependencies: { loginAttempts: 3 } });
  for (let index = 0; index < 3; index += 1) assert.equal(await attempt(first.app, `guess ${index}`, '10.0.0.66'), 401);
  await first.app.close();
  const second = await buildApp({
    config: first.config,
    database: first.database,
    chatModel: createChatModel({ host: first.standin.url }),
    credentials: { passwordHash: bcrypt.hashSync(testPassword, 4), secretKey: 'a-test-secret-that-is-long-enough-0123456789' },
    loginAttempts: 3,
  });
  t.after(() => second.close());
  assert.equal(await attempt(second, 'guess after restart', '10.0.0.66'), 429);
  assert.equal(await attempt(second, testPassword, '10.0.0.8'), 303);
});

function captureLog(t: TestContext): { lines: () => Array<Record<string, unknown>>; logger: object } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  t.after(() => stream.destroy());
  return { lines: () => lines.flatMap((line) => line.split('\n').filter(Boolean).map((text) => JSON.parse(text) as Record<string, unknown>)), logger: { level: 'warn', stream } };
}

test('behind a proxy without TRUST_PROXY the log says so, once', async (t) => {
  const log = captureLog(t);
  const { app } = await buildTestApp(t, { dependencies: { logger: log.logger } });
  for (let index = 0; index < 3; index += 1) await app.inject({ url: '/login', headers: { 'x-forwarded-for': `10.0.0.${index + 1}` } });
  const notices = log.lines().filter((line) => /TRUST_PROXY is not set/.test(String(line.msg)));
  assert.equal(notices.length, 1);

  const trusted = captureLog(t);
  const { app: behind } = await buildTestApp(t, { ...behindProxy, dependencies: { logger: trusted.logger } });
  await behind.inject({ url: '/login', headers: { 'x-forwarded-for': '10.0.0.1' } });
  assert.equal(trusted.lines().filter((line) => /TRUST_PROXY/.test(String(line.msg))).length, 0, 'no notice when the proxy is trusted');
});

test('each failure is logged with the address and user agent', async (t) => {
  const log = captureLog(t);
  const { app } = await buildTestApp(t, { ...behindProxy, dependencies: { logger: log.logger } });
  const page = await app.inject({ url: '/login' });
  await app.inject({
    method: 'POST',
    url: '/login',
    headers: { cookie: cookieHeader(page.headers['set-cookie']), 'x-forwarded-for': '10.0.0.42', 'user-agent': 'guesser/1.0' },
    payload: { password: 'nope', _csrf: csrfTokenFrom(page.body) },
  });
  const failure = log.lines().find((line) => line.msg === 'login failed: wrong password');
  assert.equal(failure?.ip, '10.0.0.42');
  assert.equal(failure?.userAgent, 'guesser/1.0');
});

test('40 addresses guessing within their budgets: bcrypt work is capped, a chat reply stays fast, the owner gets in', async (t) => {
  // A realistic cost, so a flood of compares really occupies the thread pool.
  const passwordHash = bcrypt.hashSync(testPassword, 11);
  const harness = await buildTestApp(t, {
    ...behindProxy,
    dependencies: { credentials: { passwordHash, secretKey: 'a-test-secret-that-is-long-enough-0123456789' } },
  });
  const baseUrl = await harness.listen();
  const cookies = await harness.login();
  const socket = await openChatSocket(baseUrl, cookies);
  t.after(() => socket.close());
  harness.standin.setHandler(() => ({ content: 'Hello' }));

  const guess = async (address: string, index: number) => {
    const headers = { 'x-forwarded-for': address };
    const page = await fetch(`${baseUrl}/login`, { headers });
    const response = await fetch(`${baseUrl}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...headers, cookie: cookieHeader(page.headers.getSetCookie()), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ password: `guess ${index}`, _csrf: csrfTokenFrom(await page.text()) }),
    });
    await response.arrayBuffer();
    return response.status;
  };
  const flood = Promise.all(
    Array.from({ length: 40 }, (_, address) => Promise.all(Array.from({ length: 10 }, (_, index) => guess(`10.66.0.${address + 1}`, index)))),
  );
  const floodEnded = flood.then(() => performance.now());
  await new Promise((resolve) => setTimeout(resolve, 300));

  const timed = async <T>(work: Promise<T>) => {
    const started = performance.now();
    const value = await work;
    return { value, seconds: (performance.now() - started) / 1000, endedAt: performance.now() };
  };
  socket.send({ type: 'send', message: 'Say one word' });
  const [reply, owner] = await Promise.all([
    timed(socket.waitFor((message) => message.event === 'reply-finished', 60_000)),
    timed(attempt(harness.app, testPassword, '10.200.0.1')),
  ]);
  const replySeconds = reply.seconds;
  const ownerSeconds = owner.seconds;
  const statuses = (await flood).flat();
  const floodSeconds = (await floodEnded) - reply.endedAt;

  assert.equal(owner.value, 303, 'the owner logs in from an address that has not failed');
  assert.equal(statuses.filter((status) => status === 303).length, 0);
  assert.ok(statuses.filter((status) => status === 429).length > 0, 'some guesses were turned away without bcrypt work');
  // The flood, the server and this client share one process here, so absolute times swing with the
  // machine's load (the bench's login-flood.ts measures them apart: 29 ms). What must hold: the
  // reply is not queued behind the guesses' bcrypt work, so it ends while they are still answered.
  assert.ok(floodSeconds > 0, `the one-word reply (${replySeconds.toFixed(2)} s) ended ${(-floodSeconds).toFixed(2)} s after the last guess was answered`);
  t.diagnostic(`reply ${replySeconds.toFixed(2)} s (the flood went on ${Math.round(floodSeconds)} ms longer), owner login ${ownerSeconds.toFixed(2)} s; guesses: ${statuses.filter((s) => s === 401).length} checked, ${statuses.filter((s) => s === 429).length} refused`);
});
