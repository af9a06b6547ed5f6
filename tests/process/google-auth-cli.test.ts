/*
 * `npm run auth:gmail` end to end: the real script in its own process, the real OAuth library,
 * the stand-in as Google, and fetch as the person's browser.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { startGoogleHarness, account, type GoogleHarness } from '../support/google-setup.js';
import { childEnvironment } from '../support/server-process.js';

const root = path.resolve(import.meta.dirname, '..', '..');

interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
}

function runCli(t: TestContext, harness: GoogleHarness, args: string[], options: { stdin?: boolean; environment?: Record<string, string> } = {}): Run {
  let output = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/auth-gmail.ts', ...args], {
    cwd: root,
    env: {
      ...childEnvironment(),
      ...harness.standin.environment,
      TOKENS_DIR: harness.tokensDir,
      GOOGLE_CREDENTIALS: harness.credentialsFile,
      GMAIL_AUTH_PORT: '0',
      ...options.environment,
    },
    // CI has no stdin: by default there is none here either.
    stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  t.after(() => {
    if (child.exitCode === null) child.kill();
  });
  return {
    child,
    output: () => output,
    exited,
    async waitFor(pattern, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const match = output.match(pattern);
        if (match) return match;
        if (child.exitCode !== null) break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`no ${pattern} in the output:\n${output}`);
    },
  };
}

const authorizeUrlPattern = /^(http:\/\/127\.0\.0\.1:\d+\/o\/oauth2\/v2\/auth\?\S+)$/m;

function assertPrivateTokenFile(harness: GoogleHarness): Record<string, unknown> {
  const file = path.join(harness.tokensDir, `${account}.json`);
  assert.equal(fs.statSync(file).mode & 0o777, 0o600, 'token file readable by the owner only');
  assert.equal(fs.statSync(harness.tokensDir).mode & 0o777, 0o700, 'tokens folder private');
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
}

test('loopback flow: PKCE S256, state, offline access; the browser lands on 127.0.0.1 and the tokens are saved 0600', async (t) => {
  const harness = await startGoogleHarness(t, { authorize: false });
  const run = runCli(t, harness, []);
  const [, url] = await run.waitFor(authorizeUrlPattern);

  // The "browser": follows Google's redirect to the script's loopback server.
  const landing = await fetch(url!);
  assert.equal(landing.status, 200);
  assert.match(await landing.text(), /Hearth is authorized/);
  assert.equal(await run.exited, 0, run.output());
  assert.match(run.output(), new RegExp(`Authorized ${account}\\. Tokens saved to .*${account}\\.json`));

  const [asked] = harness.standin.authorizations;
  assert.equal(asked!.access_type, 'offline');
  assert.equal(asked!.prompt, 'consent');
  assert.equal(asked!.code_challenge_method, 'S256');
  assert.match(asked!.redirect_uri!, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  assert.deepEqual(asked!.scope!.split(' ').sort(), [
    'https://www.googleapis.com/auth/calendar.events',
    'https://www.googleapis.com/auth/calendar.readonly',
    'https://www.googleapis.com/auth/gmail.compose',
    'https://www.googleapis.com/auth/gmail.modify',
    'https://www.googleapis.com/auth/gmail.readonly',
  ]);
  assert.equal(asked!.include_granted_scopes, 'true', 'incremental: scopes granted before are kept');
  assert.ok(asked!.state && asked!.state.length >= 32, 'an unguessable state');
  const [exchange] = harness.standin.tokenRequests;
  assert.equal(exchange!.grant_type, 'authorization_code');
  assert.equal(crypto.createHash('sha256').update(exchange!.code_verifier!).digest('base64url'), asked!.code_challenge, 'the verifier matches the challenge');

  const saved = assertPrivateTokenFile(harness);
  assert.equal(harness.standin.isRevoked(String(saved.refresh_token)), false, 'a live refresh token was saved');
  assert.match(String(saved.access_token), /^access-/);
  // The saved account works for the tools straight away.
  const gmail = await harness.google.gmail(account);
  assert.equal((await gmail.users.getProfile({ userId: 'me' })).data.emailAddress, account);
});

test('headless: the person pastes the address the browser was sent to; a stale address is refused first', async (t) => {
  const harness = await startGoogleHarness(t, { authorize: false });
  const run = runCli(t, harness, ['--port', '0', account], { stdin: true });
  const [, url] = await run.waitFor(authorizeUrlPattern);
  assert.equal(harness.standin.authorizations.length, 0);

  // A browser on a phone: it gets the redirect but cannot reach the server's 127.0.0.1.
  const consent = await fetch(url!, { redirect: 'manual' });
  assert.equal(consent.status, 302);
  const landedAt = new URL(consent.headers.get('location')!);
  assert.equal(harness.standin.authorizations[0]!.login_hint, account, 'the named account pre-fills Google\'s chooser');

  const stale = new URL(landedAt);
  stale.searchParams.set('state', 'from-an-older-attempt');
  run.child.stdin!.write(`${stale.href}\n`);
  await run.waitFor(/belongs to another attempt/);
  const staleBrowser = await fetch(stale);
  assert.equal(staleBrowser.status, 400, 'the loopback refuses a wrong state too');

  run.child.stdin!.write(`  ${landedAt.href}  \n`);
  assert.equal(await run.exited, 0, run.output());
  assert.match(run.output(), /Got the code from the pasted address/);
  assertPrivateTokenFile(harness);
});

test('--read-only asks only for reading and drafts, as Hearth did before it could act', async (t) => {
  const harness = await startGoogleHarness(t, { authorize: false });
  const run = runCli(t, harness, ['--read-only']);
  const [, url] = await run.waitFor(authorizeUrlPattern);
  assert.equal((await fetch(url!)).status, 200);
  assert.equal(await run.exited, 0, run.output());
  assert.doesNotMatch(run.output(), /not granted/, 'nothing is missing from what was asked');
  assert.deepEqual(harness.standin.authorizations[0]!.scope!.split(' ').sort(), [
    'https://www.googleapis.com/auth/calendar.readonly',
    'https://www.googleapis.com/auth/gmail.compose',
    'https://www.googleapis.com/auth/gmail.readonly',
  ]);
});

test('a cancelled consent screen ends with a clear message and saves nothing', async (t) => {
  const harness = await startGoogleHarness(t, { authorize: false });
  harness.standin.state.denyConsent = true;
  const run = runCli(t, harness, []);
  const [, url] = await run.waitFor(authorizeUrlPattern);
  await fetch(url!);
  assert.equal(await run.exited, 1);
  assert.match(run.output(), /Access was not granted/);
  assert.equal(fs.existsSync(path.join(harness.tokensDir, `${account}.json`)), false);
});

test('a missing OAuth client file explains how to get one', async (t) => {
  const harness = await startGoogleHarness(t, { authorize: false });
  const run = runCli(t, harness, [], { environment: { GOOGLE_CREDENTIALS: path.join(harness.directory, 'nothing-here.json') } });
  assert.equal(await run.exited, 1);
  assert.match(run.output(), /needs a Google OAuth client file at .*nothing-here\.json/);
  assert.match(run.output(), /OAuth client ID → Application type "Desktop app"/);
});

test('--list shows which accounts still work; --remove revokes and deletes', async (t) => {
  const harness = await startGoogleHarness(t, { accounts: [account, 'old@example.org'] });
  harness.standin.revokeGrant('old@example.org');
  const stored = harness.google.tokens.read('old@example.org')!;
  harness.google.tokens.write('old@example.org', { ...stored, expiry_date: Date.now() - 1000 });

  const listing = runCli(t, harness, ['--list']);
  assert.equal(await listing.exited, 1, 'not every account works');
  assert.match(listing.output(), /old@example\.org {2}does NOT work: Google no longer accepts .* Run `npm run auth:gmail -- old@example\.org` to authorize it again\./);
  assert.match(listing.output(), /sam@example\.com {2}works/);

  const refreshToken = harness.google.tokens.read(account)!.refresh_token!;
  const removal = runCli(t, harness, ['--remove', account]);
  assert.equal(await removal.exited, 0, removal.output());
  assert.match(removal.output(), /Revoked Hearth's access to sam@example\.com/);
  assert.equal(harness.standin.isRevoked(refreshToken), true);
  assert.equal(fs.existsSync(path.join(harness.tokensDir, `${account}.json`)), false);

  const unknown = runCli(t, harness, ['--remove', 'nobody@example.com']);
  assert.equal(await unknown.exited, 1);
  assert.match(unknown.output(), /nobody@example\.com is not authorized\. Authorized accounts: old@example\.org\./);

  // Addresses are stored lower-cased; the person may type them any way.
  const mixedCase = runCli(t, harness, ['--remove', 'Old@Example.ORG']);
  assert.equal(await mixedCase.exited, 0, mixedCase.output());
  assert.equal(fs.existsSync(path.join(harness.tokensDir, 'old@example.org.json')), false);
});
