import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { createGoogleServices } from '../../../src/providers/google/google-services.js';
import { ToolError } from '../../../src/engine/tools/tool.js';
import CreateDraftTool from '../../../tools/create-draft.js';
import FindFreeTimeTool from '../../../tools/find-free-time.js';
import ListEmailAccountsTool from '../../../tools/list-email-accounts.js';
import ListEventsTool from '../../../tools/list-events.js';
import ReadEmailTool from '../../../tools/read-email.js';
import SearchEmailsTool from '../../../tools/search-emails.js';
import { account, startGoogleHarness, timeZone } from '../../support/google-setup.js';
import { decodeHeaderWords } from '../../support/google-standin.js';

const rejectsWith = (promise: Promise<unknown>, pattern: RegExp) =>
  assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof ToolError, `a ToolError the model can act on, got ${String(error)}`);
    assert.match(error.message, pattern);
    return true;
  });

test('with no account authorized, the tools say how to add one', async (t) => {
  const harness = await startGoogleHarness(t, { authorize: false });
  assert.match(await harness.run(harness.tool(ListEmailAccountsTool), ''), /No Google account is authorized yet.*`npm run auth:gmail`/);
  await rejectsWith(harness.run(harness.tool(SearchEmailsTool), 'from:school'), /No Google account is authorized yet\. Ask the person to run `npm run auth:gmail`/);
  await rejectsWith(harness.run(harness.tool(ListEventsTool), 'today'), /npm run auth:gmail/);
});

test('search: short lines with id, date, sender and subject; no results said plainly', async (t) => {
  const harness = await startGoogleHarness(t);
  const search = harness.tool(SearchEmailsTool);
  const found = await harness.run(search, 'from:school newer_than:7d');
  assert.equal(found, ['1 message for "from:school newer_than:7d", newest first:', '18c2f0a1b2c3d4e5 | Fri 20 Nov 2026 08:15 | School Office <office@school.example> | Trip on Friday (unread)'].join('\n'));
  assert.equal(harness.standin.gmailQueries.at(-1), 'from:school newer_than:7d', 'the Gmail query went through as written');
  assert.equal(search.summarize(found), '1 result', 'its card counts what it found');

  const none = await harness.run(search, 'from:nobody@nowhere.example');
  assert.equal(none, 'No messages match "from:nobody@nowhere.example".');
  assert.equal(search.summarize(none), 'no results');

  const all = await harness.run(search, '{"query": "", "max": 2}');
  assert.match(all, /^2 messages for "in:inbox", newest first: More match: narrow the query to see others\.\n18c2f0a1b2c3d4e5 \|.*\n18c2f0a1b2c3d4e6 \| Thu 19 Nov 2026 11:00 \| Garden News/);
});

test('search with several accounts: a prefix in either form picks one, an unknown one lists the known', async (t) => {
  const harness = await startGoogleHarness(t, { accounts: [account, 'work@example.org'] });
  const search = harness.tool(SearchEmailsTool);
  assert.match(await harness.run(search, `${account}: subject:trip`), /^1 message for "subject:trip" in sam@example\.com/);
  assert.match(await harness.run(search, 'work@example.org subject:trip'), /^No messages match "subject:trip" in work@example\.org\.$/);
  const both = await harness.run(search, 'subject:trip');
  assert.match(both, /in sam@example\.com[\s\S]*in work@example\.org/, 'no prefix: every account is searched, each labelled');
  await rejectsWith(harness.run(search, 'boss@example.net: hello'), /"boss@example\.net" is not an authorized account\. Authorized accounts: sam@example\.com, work@example\.org\./);
  const accounts = harness.tool(ListEmailAccountsTool);
  const listed = await harness.run(accounts, '');
  assert.match(listed, /- sam@example\.com\n- work@example\.org/);
  assert.equal(accounts.summarize(listed), '2 accounts');
  assert.equal(search.summarize(both), '1 result', 'the card adds up every account\'s results');
});

test('read: plain part preferred, HTML-only turned into clean text, other charsets decoded, attachments named', async (t) => {
  const harness = await startGoogleHarness(t);
  const read = harness.tool(ReadEmailTool);

  const trip = await harness.run(read, '18c2f0a1b2c3d4e5');
  assert.match(trip, /^Account: sam@example\.com\nId: 18c2f0a1b2c3d4e5\nDate: Fri 20 Nov 2026 08:15\nFrom: School Office <office@school\.example>\nTo: sam@example\.com\nSubject: Trip on Friday\n\nDear parents,\n\nThe class trip is on Friday\./);
  assert.doesNotMatch(trip, /<p>|<b>/, 'the plain part, not the HTML one');
  assert.equal(read.summarize(trip), '“Trip on Friday”', 'its card names the email');

  const garden = await harness.run(read, 'id: 18c2f0a1b2c3d4e6');
  assert.match(garden, /\n\nWinter tips\n\nCover your roses & water less\.\nMulch <now>\.\n\n- Tulips\n- Garlic\n\nRead more tips \(https:\/\/garden\.example\/tips\) — été ☺$/);
  assert.doesNotMatch(garden, /alert|color: red|preheader/, 'no script, style or hidden text');

  const invoice = await harness.run(read, `${account} 18c2f0a1b2c3d4e7`);
  assert.match(invoice, /Attachments \(not shown\): invoice\.pdf\n\nMerci beaucoup, à bientôt\. Prix: 12 EUR$/);
});

test('read: a long body is cut to EMAIL_BODY_MAX_CHARS with a note; an unknown id is "not found"', async (t) => {
  const harness = await startGoogleHarness(t, { environment: { EMAIL_BODY_MAX_CHARS: '200' } });
  harness.standin.accounts.get(account)!.messages.push({ id: 'longmessage01', from: 'a@b.example', to: account, subject: 'Long', date: '2026-11-21T10:00:00Z', text: 'word '.repeat(300) });
  const long = await harness.run(harness.tool(ReadEmailTool), 'longmessage01');
  assert.match(long, /\n\n(word ){39}word\n\[Body cut here: 1,300 more characters not shown\.\]$/);

  await rejectsWith(harness.run(harness.tool(ReadEmailTool), '18c2f0a1ffffffff'), /^No message with id 18c2f0a1ffffffff in sam@example\.com\. Use search_emails to find the right id\.$/);
  await rejectsWith(harness.run(harness.tool(ReadEmailTool), '../../drafts'), /is not a message id/);
});

test('an expired access token is refreshed and written back, keeping the refresh token, owner-only', async (t) => {
  const harness = await startGoogleHarness(t);
  const before = harness.google.tokens.read(account)!;
  harness.google.tokens.write(account, { ...before, expiry_date: Date.now() - 60_000 });

  assert.match(await harness.run(harness.tool(SearchEmailsTool), 'subject:trip'), /Trip on Friday/);
  const refreshes = harness.standin.tokenRequests.filter((request) => request.grant_type === 'refresh_token');
  assert.equal(refreshes.length, 1);
  assert.equal(refreshes[0]!.refresh_token, before.refresh_token);

  const after = JSON.parse(fs.readFileSync(harness.google.tokens.fileFor(account), 'utf8')) as Record<string, unknown>;
  assert.notEqual(after.access_token, before.access_token, 'the new access token was saved');
  assert.ok(Number(after.expiry_date) > Date.now() + 3_000_000, 'with its new expiry');
  assert.equal(after.refresh_token, before.refresh_token, 'the refresh token was kept');
  assert.equal(after.scope, before.scope);
  assert.equal(fs.statSync(harness.google.tokens.fileFor(account)).mode & 0o777, 0o600);
  assert.equal(fs.statSync(harness.tokensDir).mode & 0o777, 0o700);

  // A second services object (a restarted server) uses the saved token without refreshing.
  const restarted = createGoogleServices({ tokensDir: harness.tokensDir, credentialsFile: harness.credentialsFile, rootUrl: harness.standin.rootUrl, oauthEndpoints: harness.standin.oauthEndpoints, timeZone });
  const gmail = await restarted.gmail(account);
  await gmail.users.getProfile({ userId: 'me' });
  assert.equal(harness.standin.tokenRequests.filter((request) => request.grant_type === 'refresh_token').length, 1);
});

test('a revoked grant (invalid_grant) tells the person the exact command to re-authorize', async (t) => {
  const harness = await startGoogleHarness(t);
  const stored = harness.google.tokens.read(account)!;
  harness.google.tokens.write(account, { ...stored, expiry_date: Date.now() - 60_000 });
  harness.standin.revokeGrant(account);
  const expected = /^Google no longer accepts Hearth's authorization for sam@example\.com \(it expired or was revoked\)\. Ask the person to run `npm run auth:gmail -- sam@example\.com` on the Hearth computer/;
  await rejectsWith(harness.run(harness.tool(SearchEmailsTool), 'subject:trip'), expected);
  assert.ok(harness.standin.tokenRequests.some((request) => request.grant_type === 'refresh_token'), 'it did try to refresh');
  assert.equal(harness.google.tokens.read(account)!.refresh_token, stored.refresh_token, 'the file is left for the CLI to replace');
  assert.deepEqual(harness.google.accountStates(), [{ account, state: 'needs-reauthorization' }], 'the tools page says so');

  // The person re-authorizes (the CLI writes a new file): the running server picks it up.
  harness.google.tokens.write(account, harness.standin.issueTokens(account));
  assert.deepEqual(harness.google.accountStates(), [{ account, state: 'connected' }]);
  assert.match(await harness.run(harness.tool(SearchEmailsTool), 'subject:trip'), /Trip on Friday/);
});

test('a grant revoked while its access token still looks valid: one refresh is tried, then the same message', async (t) => {
  const harness = await startGoogleHarness(t);
  assert.match(await harness.run(harness.tool(SearchEmailsTool), 'subject:trip'), /Trip on Friday/);
  harness.standin.revokeGrant(account);
  await rejectsWith(harness.run(harness.tool(ReadEmailTool), '18c2f0a1b2c3d4e5'), /no longer accepts Hearth's authorization .*`npm run auth:gmail -- sam@example\.com`/);
});

test('quota and network failures become messages the person can act on', async (t) => {
  const harness = await startGoogleHarness(t);
  harness.standin.state.apiFailure = { status: 429, reason: 'rateLimitExceeded', message: 'Quota exceeded for quota metric' };
  await rejectsWith(harness.run(harness.tool(SearchEmailsTool), 'subject:trip'), /^Gmail usage limit reached for sam@example\.com .*Wait a minute and try again/);
  harness.standin.state.apiFailure = { status: 403, reason: 'userRateLimitExceeded', message: 'User-rate limit exceeded' };
  await rejectsWith(harness.run(harness.tool(ListEventsTool), 'today'), /^Google Calendar usage limit reached/);
  harness.standin.state.apiFailure = undefined;

  const unreachable = createGoogleServices({ tokensDir: harness.tokensDir, credentialsFile: harness.credentialsFile, rootUrl: 'http://127.0.0.1:9/', oauthEndpoints: harness.standin.oauthEndpoints, timeZone });
  const search = new SearchEmailsTool({ ...harness.services, google: unreachable });
  await rejectsWith(harness.run(search, 'subject:trip'), /^Could not reach Google \(ECONNREFUSED\)\. Check the Hearth computer's internet connection/);
});

test('a new draft and a threaded reply: Re: subject, threadId, In-Reply-To and References; never sent', async (t) => {
  const harness = await startGoogleHarness(t);
  const draft = harness.tool(CreateDraftTool);
  assert.equal(draft.actsOnWorld, true, 'the engine asks the person first');

  const created = await harness.run(draft, 'to: Anna <anna@example.com>\nsubject: Saturday\nbody: Hi Anna,\nNote: bring boots.\nSam');
  assert.match(created, /^Draft saved in sam@example\.com \(draft id r-draft-1\); it was NOT sent\. To: Anna <anna@example\.com> \| Subject: Saturday\./);
  assert.equal(draft.summarize(created), 'to Anna <anna@example.com>, not sent');
  const [fresh] = harness.standin.drafts;
  assert.equal(fresh!.threadId, undefined);
  assert.equal(fresh!.headers.to, 'Anna <anna@example.com>');
  assert.equal(fresh!.headers.subject, 'Saturday');
  assert.equal(fresh!.body, 'Hi Anna,\nNote: bring boots.\nSam', 'a "Note:" line stays in the body');

  const reply = await harness.run(draft, "reply_to: 18c2f0a1b2c3d4e5\nbody: Thank you, we'll come!");
  assert.match(reply, /as a reply in the thread of message 18c2f0a1b2c3d4e5 .*To: School Office <office@school\.example> \| Subject: Re: Trip on Friday/);
  const threaded = harness.standin.drafts[1]!;
  assert.equal(threaded.threadId, 'thread-trip');
  assert.equal(threaded.headers['in-reply-to'], '<trip-2@school.example>');
  assert.equal(threaded.headers.references, '<trip-1@school.example> <trip-2@school.example>');
  assert.equal(decodeHeaderWords(threaded.headers.subject!), 'Re: Trip on Friday');
  assert.equal(threaded.body, "Thank you, we'll come!");
  assert.ok(!harness.standin.apiRequests.some((request) => /send/.test(request.path)), 'nothing was sent');

  await rejectsWith(harness.run(draft, 'to: anna@example.com\nsubject: x'), /Give the draft a body/);
  await rejectsWith(harness.run(draft, 'reply_to: 18c2f0a1ffffffff\nbody: hi'), /No message with id 18c2f0a1ffffffff/);
  assert.equal(harness.standin.drafts.length, 2);
});

test('calendar: events of a day or range in the local zone, all-day and cancelled handled; free time around them', async (t) => {
  const harness = await startGoogleHarness(t);
  harness.standin.accounts.get(account)!.events.push(
    { summary: 'Dentist', location: 'Main St 4', start: { dateTime: '2026-11-23T09:00:00Z' }, end: { dateTime: '2026-11-23T10:00:00Z' } },
    { summary: 'Standup', start: { dateTime: '2026-11-23T15:30:00Z' }, end: { dateTime: '2026-11-23T16:00:00Z' } },
    { summary: 'Cancelled lunch', status: 'cancelled', start: { dateTime: '2026-11-23T11:00:00Z' }, end: { dateTime: '2026-11-23T12:00:00Z' } },
    { summary: 'School holiday', start: { date: '2026-11-24' }, end: { date: '2026-11-26' }, transparency: 'transparent' },
    { summary: 'Football', start: { dateTime: '2026-11-25T17:00:00Z' }, end: { dateTime: '2026-11-25T18:30:00Z' } },
  );
  const events = harness.tool(ListEventsTool);
  assert.equal(
    await harness.run(events, 'today'),
    ['Events Mon 23 Nov 2026 (times in Europe/Paris) in sam@example.com:', 'Mon 23 Nov 2026', '  10:00–11:00 Dentist (Main St 4) (id event-0)', '  16:30–17:00 Standup (id event-2)'].join('\n'),
  );
  assert.equal(
    await harness.run(events, 'from: 2026-11-24\nto: 2026-11-25'),
    ['Events Tue 24 Nov 2026 – Wed 25 Nov 2026 (times in Europe/Paris) in sam@example.com:', 'Tue 24 Nov 2026', '  all day, until Wed 25 Nov 2026: School holiday (id event-0)', 'Wed 25 Nov 2026', '  18:00–19:30 Football (id event-1)'].join('\n'),
  );
  assert.match(await harness.run(events, 'sunday'), /Sun 29 Nov 2026 .*\nNo events\.$/);

  assert.equal(events.summarize(await harness.run(events, 'from: 2026-11-24\nto: 2026-11-25')), '2 events', 'its card counts the events');
  assert.equal(events.summarize(await harness.run(events, 'sunday')), 'no events');

  const freeTime = harness.tool(FindFreeTimeTool);
  const free = await harness.run(freeTime, 'next 3 days for 1h between 9:00 and 18:00');
  assert.equal(freeTime.summarize(free), '5 free slots', 'its card counts the free slots');
  assert.equal(
    free,
    [
      'Free time of at least 60 min between 09:00 and 18:00, Mon 23 Nov 2026 – Wed 25 Nov 2026 (Europe/Paris), from sam@example.com:',
      'Mon 23 Nov 2026: 09:00–10:00, 11:00–16:30, 17:00–18:00',
      'Tue 24 Nov 2026: 09:00–18:00',
      'Wed 25 Nov 2026: 09:00–18:00',
    ].join('\n'),
  );
  assert.match(await harness.run(harness.tool(FindFreeTimeTool), 'today for 7 hours'), /Mon 23 Nov 2026: none/);
});

test('only the Gmail and Calendar clients were loaded, never the whole googleapis package', () => {
  const loaded = Object.keys(createRequire(import.meta.url).cache);
  assert.ok(loaded.some((file) => file.endsWith('/@googleapis/gmail/build/v1.js')));
  assert.ok(loaded.some((file) => file.endsWith('/@googleapis/calendar/build/v3.js')));
  assert.deepEqual(loaded.filter((file) => file.includes('/node_modules/googleapis/')), [], 'not the googleapis package with its 300 APIs');
});
