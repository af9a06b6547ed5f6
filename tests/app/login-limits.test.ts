/**
 * Password guessing: only failures count, per address, kept across restarts; bcrypt work in flight
 * is capped so a flood from many addresses neither starves the chat nor locks out the owner.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test, type TestContext } from 'node:test';
import bcrypt from 'bcrypt';
import { buildTestApp, cookieHeader, csrfTokenFrom, loginAttempt, restartTestApp, testPassword, type TestApp } from '../support/test-app.js';

type App = TestApp['app'];

const behindProxy = { environment: { TRUST_PROXY: '127.0.0.1' } };

/** A browser: its own cookie jar (session and device cookies) and address, kept across requests. */
class Browser {
  jar = '';
  constructor(
    private readonly app: App,
    readonly address: string,
  ) {}

  get headers(): Record<string, string> {
    return { 'x-forwarded-for': this.address, ...(this.jar ? { cookie: this.jar } : {}) };
  }

  /** Opens the login form and posts a password; the status, and the error shown, if any. */
  async logIn(password: string): Promise<{ status: number; error?: string }> {
    const page = await this.app.inject({ url: '/login', headers: this.headers });
    this.jar = cookieHeader(page.headers['set-cookie'], this.jar);
    const response = await this.app.inject({ method: 'POST', url: '/login', headers: this.headers, payload: { password, _csrf: csrfTokenFrom(page.body) } });
    this.jar = cookieHeader(response.headers['set-cookie'], this.jar);
    return { status: response.statusCode, error: /class="login-error"[^>]*>([^<]*)</.exec(response.body)?.[1]?.trim() };
  }

  /** Keeps only the device cookie, as after logging out or the session ending. */
  forgetSession(): void {
    this.jar = this.jar.split('; ').filter((pair) => pair.startsWith('hearth_device=')).join('; ');
  }

  cookie(name: string): string | undefined {
    return this.jar.split('; ').find((pair) => pair.startsWith(`${name}=`))?.slice(name.length + 1);
  }
}

/** A password hash whose reads are counted: the server reads it only to run bcrypt on a guess. */
function countedCredentials(): { credentials: { passwordHash: string; secretKey: string }; bcryptChecks: () => number } {
  const hash = bcrypt.hashSync(testPassword, 4);
  let reads = 0;
  return {
    credentials: {
      get passwordHash() {
        reads += 1;
        return hash;
      },
      secretKey: 'a-test-secret-that-is-long-enough-0123456789',
    },
    bcryptChecks: () => reads,
  };
}

test('30 addresses x 11 guesses: 30 bcrypt checks, then untrusted guesses are refused unchecked; the owner\'s browsers and sessions carry on', async (t) => {
  const counted = countedCredentials();
  const { app } = await buildTestApp(t, { ...behindProxy, dependencies: { credentials: counted.credentials } });
  // The owner: a laptop that stays logged in, and a phone that logged in once and whose session
  // has since ended (it keeps only its device cookie).
  const laptop = new Browser(app, '10.0.0.5');
  const phone = new Browser(app, '10.0.0.6');
  assert.equal((await laptop.logIn(testPassword)).status, 303);
  assert.equal((await phone.logIn(testPassword)).status, 303);
  phone.forgetSession();
  const checksBefore = counted.bcryptChecks();

  const statuses: number[] = [];
  for (let address = 1; address <= 30; address += 1) {
    for (let guess = 0; guess < 11; guess += 1) statuses.push(await loginAttempt(app, `guess ${address}-${guess}`, `10.66.0.${address}`));
  }
  const floodChecks = counted.bcryptChecks() - checksBefore;
  t.diagnostic(`30 addresses x 11 guesses: ${floodChecks} bcrypt checks, ${statuses.filter((status) => status === 429).length} refused without one`);
  assert.equal(floodChecks, 30, 'only the shared budget of 30 wrong passwords reached bcrypt');
  assert.equal(statuses.filter((status) => status === 401).length, 30);
  assert.equal(statuses.filter((status) => status === 429).length, 300);

  // Any further untrusted guess, from a new address or with a forged device cookie, is refused unchecked.
  const stranger = new Browser(app, '10.99.0.1');
  const refused = await stranger.logIn('another guess');
  assert.equal(refused.status, 429);
  assert.match(refused.error ?? '', /Too many wrong passwords have been tried here lately\. Try again in \d+ minutes?, or log in from a browser that has logged in here before\./);
  const forger = new Browser(app, '10.99.0.2');
  // The session cookie is signed with the same secret: it must not pass for a device cookie.
  forger.jar = `hearth_device=${laptop.cookie('hearth_session')!}`;
  assert.equal((await forger.logIn('a guess with a borrowed signature')).status, 429);
  forger.jar = 'hearth_device=device%3AAAAAAAAAAAAAAAAAAAAAAA';
  assert.equal((await forger.logIn('a guess with an unsigned cookie')).status, 429);
  assert.equal(counted.bcryptChecks() - checksBefore, 30, 'none of them was checked');
  // A browser that never logged in waits too, even with the right password: the price of the budget.
  assert.equal((await new Browser(app, '10.0.0.7').logIn(testPassword)).status, 429);

  // The phone's device cookie vouches for it: it logs in at once.
  assert.equal((await phone.logIn(testPassword)).status, 303);
  assert.equal((await app.inject({ url: '/', headers: phone.headers })).statusCode, 200);
  // The laptop's session was never touched.
  assert.equal((await app.inject({ url: '/', headers: laptop.headers })).statusCode, 200);
});

test('the device cookie is signed, httpOnly, SameSite=Strict, for the login form only, a year long', async (t) => {
  const { app } = await buildTestApp(t, behindProxy);
  const page = await app.inject({ url: '/login' });
  const response = await app.inject({
    method: 'POST',
    url: '/login',
    headers: { cookie: cookieHeader(page.headers['set-cookie']), 'x-forwarded-proto': 'https' },
    payload: { password: testPassword, _csrf: csrfTokenFrom(page.body) },
  });
  const device = [response.headers['set-cookie']].flat().find((line) => line?.startsWith('hearth_device='));
  assert.ok(device, 'a right password sets the device cookie');
  assert.match(device, /^hearth_device=device%3A[\w-]{22}\.[\w%-]+;/, 'an id and its HMAC signature');
  assert.match(device, /; Max-Age=31536000/);
  assert.match(device, /; Path=\/login/);
  assert.match(device, /; HttpOnly/);
  assert.match(device, /; Secure/);
  assert.match(device, /; SameSite=Strict/);
});

test('a browser with a device cookie has its own budget: a copied cookie buys 10 guesses, not the owner\'s other browsers', async (t) => {
  const counted = countedCredentials();
  const { app } = await buildTestApp(t, { ...behindProxy, dependencies: { credentials: counted.credentials } });
  const stolen = new Browser(app, '10.0.0.5');
  const owner = new Browser(app, '10.0.0.6');
  assert.equal((await stolen.logIn(testPassword)).status, 303);
  assert.equal((await owner.logIn(testPassword)).status, 303);
  stolen.forgetSession();
  owner.forgetSession();
  const statuses: number[] = [];
  for (let guess = 0; guess < 12; guess += 1) statuses.push((await stolen.logIn(`guess ${guess}`)).status);
  assert.deepEqual(statuses, [...Array(10).fill(401), 429, 429]);
  const refused = await stolen.logIn(testPassword);
  assert.equal(refused.status, 429, 'even the right password waits in that browser');
  assert.match(refused.error ?? '', /Too many wrong passwords from this browser/);
  assert.equal((await owner.logIn(testPassword)).status, 303, "the owner's other browser is not affected");
  assert.equal(await loginAttempt(app, testPassword, '10.0.0.9'), 303, 'nor are untrusted browsers: these guesses did not spend their budget');
});

test('the budget shared by untrusted browsers is kept in SQLite: a restart does not reset it', async (t) => {
  const first = await buildTestApp(t, { ...behindProxy, dependencies: { untrustedLoginAttempts: 3 } });
  for (let index = 0; index < 3; index += 1) assert.equal(await loginAttempt(first.app, `guess ${index}`, `10.0.0.${index + 60}`), 401);
  await first.app.close();
  const second = await restartTestApp(t, first, { untrustedLoginAttempts: 3 });
  assert.equal(await loginAttempt(second, 'guess after restart', '10.0.0.70'), 429);
});

test('successful logins never count against the limit', async (t) => {
  const { app } = await buildTestApp(t, { dependencies: { loginAttempts: 3 } });
  const statuses: number[] = [];
  for (let index = 0; index < 8; index += 1) statuses.push(await loginAttempt(app, testPassword));
  assert.deepEqual(statuses, Array(8).fill(303));
  // Two typos in between do not lock the owner out either: a right password forgets them.
  assert.equal(await loginAttempt(app, 'typo one'), 401);
  assert.equal(await loginAttempt(app, 'typo two'), 401);
  assert.equal(await loginAttempt(app, testPassword), 303);
  assert.equal(await loginAttempt(app, 'typo three'), 401);
  assert.equal(await loginAttempt(app, 'typo four'), 401);
  assert.equal(await loginAttempt(app, testPassword), 303);
});

test('an address that failed too often waits; the owner still logs in from another address', async (t) => {
  const { app } = await buildTestApp(t, { ...behindProxy, dependencies: { loginAttempts: 3 } });
  for (let index = 0; index < 3; index += 1) assert.equal(await loginAttempt(app, `guess ${index}`, '10.0.0.66'), 401);
  assert.equal(await loginAttempt(app, 'guess 4', '10.0.0.66'), 429);
  assert.equal(await loginAttempt(app, testPassword, '10.0.0.66'), 429, 'even the right password waits at that address');
  assert.equal(await loginAttempt(app, testPassword, '10.0.0.7'), 303, 'the owner at another address gets in');
});

test('failure counts are kept in SQLite: a restart does not reset them', async (t) => {
  const first = await buildTestApp(t, { ...behindProxy, dependencies: { loginAttempts: 3 } });
  for (let index = 0; index < 3; index += 1) assert.equal(await loginAttempt(first.app, `guess ${index}`, '10.0.0.66'), 401);
  await first.app.close();
  const second = await restartTestApp(t, first, { loginAttempts: 3 });
  assert.equal(await loginAttempt(second, 'guess after restart', '10.0.0.66'), 429);
  assert.equal(await loginAttempt(second, testPassword, '10.0.0.8'), 303);
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
