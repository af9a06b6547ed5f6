import assert from 'node:assert/strict';
import { test } from 'node:test';
import { splitAccountPrefix } from '../../../../src/providers/google/account-prefix.js';
import { addDays, formatDay, freeSlots, parseDay, parseDayRange, parseDuration, zonedTime } from '../../../../src/providers/google/calendar-days.js';
import { buildMimeMessage, encodeHeaderWords, replySubject } from '../../../../src/providers/google/draft-message.js';
import { attachmentNames, decodeBase64Url, messageBodyText, type MessagePart } from '../../../../src/providers/google/gmail-message.js';
import { htmlToText } from '../../../../src/providers/google/html-to-text.js';
import { decodeHeaderWords, parseMime } from '../../../support/google-standin.js';

const part = (mimeType: string, text: string, headers: Record<string, string> = {}, filename = ''): MessagePart => ({
  mimeType,
  filename,
  headers: Object.entries({ 'Content-Type': `${mimeType}; charset="utf-8"`, ...headers }).map(([name, value]) => ({ name, value })),
  body: { data: Buffer.from(text).toString('base64url'), size: text.length },
});

test('base64url bodies decode, with or without padding and with URL-safe characters', () => {
  const text = 'Ünïcode ✓ ~~~ ??? >>>';
  const encoded = Buffer.from(text).toString('base64url');
  assert.match(encoded, /[-_]/, 'the sample really uses the URL-safe alphabet');
  assert.equal(decodeBase64Url(encoded).toString('utf8'), text);
  assert.equal(decodeBase64Url(`${Buffer.from('ab').toString('base64url')}==`).toString('utf8'), 'ab');
});

test('multipart/alternative prefers the plain part; HTML-only becomes text; attachments are named, not read', () => {
  const alternative: MessagePart = { mimeType: 'multipart/alternative', parts: [part('text/plain', 'Plain words'), part('text/html', '<p>HTML words</p>')] };
  assert.equal(messageBodyText(alternative), 'Plain words');

  const emptyPlain: MessagePart = { mimeType: 'multipart/alternative', parts: [part('text/plain', '  '), part('text/html', '<p>Only <b>HTML</b></p>')] };
  assert.equal(messageBodyText(emptyPlain), 'Only HTML');

  const mixed: MessagePart = {
    mimeType: 'multipart/mixed',
    parts: [
      { mimeType: 'multipart/related', parts: [{ mimeType: 'multipart/alternative', parts: [part('text/plain', 'Nested plain'), part('text/html', '<p>x</p>')] }] },
      part('text/plain', 'secret attachment text', { 'Content-Disposition': 'attachment; filename="notes.txt"' }, 'notes.txt'),
    ],
  };
  assert.equal(messageBodyText(mixed), 'Nested plain');
  assert.deepEqual(attachmentNames(mixed), ['notes.txt']);
});

test('a part in another charset is decoded in that charset', () => {
  const latin: MessagePart = {
    mimeType: 'text/plain',
    headers: [{ name: 'Content-Type', value: 'text/plain; charset=ISO-8859-1' }],
    body: { data: Buffer.from('à bientôt', 'latin1').toString('base64url') },
  };
  assert.equal(messageBodyText(latin), 'à bientôt');
});

test('HTML to text: scripts, styles and hidden text dropped; blocks, breaks, lists, links and entities kept readable', () => {
  const html = `<html><head><style>.x{color:red}</style><title>T</title></head><body>
    <span style="display: none">hidden preheader</span>
    <script type="text/javascript">document.write("evil")</script>
    <h1>Hello&nbsp;there</h1>
    <p>Line one<br/>Line    two &amp; more &lt;tags&gt; &quot;quoted&quot; &#39;single&#39; &#x2764; &eacute;</p>
    <ul><li>First</li><li>Second</li></ul>
    <table><tr><td>Cell A</td><td>Cell B</td></tr></table>
    <p><a href="https://example.org/x">the link</a> and <a href="https://example.org/y">https://example.org/y</a></p>
    <!-- a comment -->
    &zwnj;&nbsp;&#8203;
  </body></html>`;
  assert.equal(
    htmlToText(html),
    ['Hello there', '', 'Line one', 'Line two & more <tags> "quoted" \'single\' ❤ é', '', '- First', '- Second', '', 'Cell A Cell B', '', 'the link (https://example.org/x) and https://example.org/y'].join('\n'),
  );
  assert.equal(htmlToText('<p>a &amp;lt; b</p>'), 'a &lt; b', 'entities are decoded once, not twice');
  assert.equal(htmlToText('before<script>never closed'), 'before');
});

test('draft MIME: encoded subject and names, threading headers, base64 body, and no header injection', () => {
  const mime = buildMimeMessage(
    { to: 'Zoë Ünal <zoe@example.com>, bob@example.com', subject: 'Café plans\r\nBcc: attacker@example.com', body: 'Hi!\nSee you.', inReplyTo: '<a@x>', references: '<z@x> <a@x>' },
    new Date('2026-11-23T08:00:00Z'),
  );
  const { headers, body } = parseMime(mime);
  assert.equal(headers.bcc, undefined, 'a line break in the subject did not add a header');
  assert.equal(decodeHeaderWords(headers.subject!), 'Café plans Bcc: attacker@example.com');
  assert.match(headers.to!, /^=\?UTF-8\?B\?[^?]+\?= <zoe@example\.com>, bob@example\.com$/);
  assert.equal(decodeHeaderWords(headers.to!), 'Zoë Ünal <zoe@example.com>, bob@example.com');
  assert.equal(headers['in-reply-to'], '<a@x>');
  assert.equal(headers.references, '<z@x> <a@x>');
  assert.equal(body, 'Hi!\nSee you.');
  for (const word of encodeHeaderWords('é'.repeat(100)).split(' ')) assert.ok(word.length <= 75, 'encoded words stay within 75 characters');
  assert.equal(replySubject('RE: Trip'), 'RE: Trip');
  assert.equal(replySubject('Trip'), 'Re: Trip');
});

test('an account prefix is recognised in both forms, and only known accounts are taken from a plain query', () => {
  const accounts = ['me@example.com', 'work@example.org'];
  assert.deepEqual(splitAccountPrefix('me@example.com: from:school', accounts), { account: 'me@example.com', rest: 'from:school' });
  assert.deepEqual(splitAccountPrefix('WORK@example.org subject:invoice', accounts), { account: 'work@example.org', rest: 'subject:invoice' });
  assert.deepEqual(splitAccountPrefix('bob@friends.net', accounts), { rest: 'bob@friends.net' }, 'a search for mail mentioning Bob');
  assert.deepEqual(splitAccountPrefix('other@x.com: hello', accounts), { account: 'other@x.com', rest: 'hello' }, 'an explicit but unknown account is kept, to be reported');
  assert.deepEqual(splitAccountPrefix('from:bob@friends.net', accounts), { rest: 'from:bob@friends.net' });
});

test('days: words, weekdays, dates and ranges; day boundaries follow the time zone and its DST change', () => {
  const monday = { year: 2026, month: 11, day: 23 };
  assert.deepEqual(parseDay('tomorrow', monday), { year: 2026, month: 11, day: 24 });
  assert.deepEqual(parseDay('friday', monday), { year: 2026, month: 11, day: 27 });
  assert.deepEqual(parseDay('monday', monday), monday);
  assert.deepEqual(parseDay('next monday', monday), { year: 2026, month: 11, day: 30 });
  assert.deepEqual(parseDay('3 Dec', monday), { year: 2026, month: 12, day: 3 });
  assert.deepEqual(parseDay('December 3, 2027', monday), { year: 2027, month: 12, day: 3 });
  assert.equal(parseDay('2026-02-30', monday), undefined);
  assert.equal(formatDay(addDays(monday, 8)), 'Tue 1 Dec 2026');

  const today = { first: monday, days: 1 };
  assert.deepEqual(parseDayRange({ text: 'this week' }, monday, today), { first: monday, days: 7 });
  assert.deepEqual(parseDayRange({ text: '2026-11-25 to 2026-11-27' }, monday, today), { first: { year: 2026, month: 11, day: 25 }, days: 3 });
  assert.deepEqual(parseDayRange({ text: 'next 3 days' }, monday, today), { first: monday, days: 3 });
  assert.deepEqual(parseDayRange({ from: 'tomorrow', to: 'friday' }, monday, today), { first: { year: 2026, month: 11, day: 24 }, days: 4 });
  assert.throws(() => parseDayRange({ text: 'soonish' }, monday, today), /not a date I understand/);
  assert.throws(() => parseDayRange({ text: '2026-01-01 to 2026-12-31' }, monday, today), /at most 31/);

  assert.equal(zonedTime(monday, 0, 0, 'Europe/Paris').toISOString(), '2026-11-22T23:00:00.000Z');
  assert.equal(zonedTime({ year: 2026, month: 3, day: 29 }, 12, 0, 'Europe/Paris').toISOString(), '2026-03-29T10:00:00.000Z', 'after the spring change, UTC+2');
  assert.equal(zonedTime({ year: 2026, month: 3, day: 29 }, 0, 0, 'America/New_York').toISOString(), '2026-03-29T04:00:00.000Z');
});

test('free slots are the gaps of at least the asked length between busy times', () => {
  const at = (hour: number, minute = 0) => new Date(Date.UTC(2026, 10, 23, hour, minute));
  const slots = freeSlots([{ start: at(9), end: at(18) }], [{ start: at(10), end: at(11) }, { start: at(10, 30), end: at(12) }, { start: at(12, 20), end: at(13) }, { start: at(17, 45), end: at(19) }], 30);
  assert.deepEqual(slots.map((slot) => [slot.start.toISOString().slice(11, 16), slot.end.toISOString().slice(11, 16)]), [['09:00', '10:00'], ['13:00', '17:45']]);
  assert.equal(parseDuration('1h30'), 90);
  assert.equal(parseDuration('1.5 hours'), 90);
  assert.equal(parseDuration('45'), 45);
  assert.equal(parseDuration('soon'), undefined);
});
