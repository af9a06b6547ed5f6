/*
 * Putting things in the calendar from a chat: the real app and tool engine, the Ollama stand-in
 * scripted to call create_event and quick_add_event, the Google stand-in behind the real
 * googleapis code. Each call waits on a card showing the event as it will be saved.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { account } from '../support/google-setup.js';
import { readOnlyScopes } from '../support/google-standin.js';
import { reply, startCalendarChat, type CalendarChat } from '../support/calendar-chat.js';

const lunch = '[TOOL:create_event]title: Lunch with Sam\nstart: friday 13:00\nlocation: Café Blanc\nguests: sam.b@example.org\nreminders: 30 min[/TOOL]';

test('create_event: the card shows the event as it will be saved; Deny saves nothing', async (t) => {
  const { socket, standin, google, cards, awaitingApproval, decide, turnFinished, toolCalls } = await startCalendarChat(t);
  standin.enqueue(reply(lunch), reply('All right, nothing added.'));
  socket.send({ type: 'send', message: 'Put lunch with Sam on Friday at 1' });
  await awaitingApproval();

  const [call] = toolCalls.listForConversation(1);
  assert.equal(call!.preview, [
    '+ Lunch with Sam',
    '+ When: Fri 27 Nov 2026, 13:00–14:00 (Europe/Paris)',
    `+ Calendar: main calendar of ${account}`,
    '+ Where: Café Blanc',
    '+ Guests (Google e-mails each an invitation): sam.b@example.org',
    '+ Reminders: 30 min before',
  ].join('\n'));
  assert.match(cards.at(-1)!, /When: Fri 27 Nov 2026, 13:00–14:00 \(Europe\/Paris\)/, 'the card shows it');
  assert.match(cards.at(-1)!, /Always allow/, 'adding events may be always allowed');

  decide('deny');
  await turnFinished();
  assert.deepEqual(google.standin.inserted, []);
  assert.ok(!google.standin.apiRequests.some((request) => request.method === 'POST'), 'nothing was written to Calendar');
  assert.equal(toolCalls.listForConversation(1)[0]!.status, 'denied');
});

test('create_event: Approve saves exactly that event, in the calendar\'s zone, inviting the guest', async (t) => {
  const { socket, standin, google, awaitingApproval, decide, turnFinished, toolCalls } = await startCalendarChat(t);
  standin.enqueue(reply(lunch), reply('Lunch is in your calendar.'));
  socket.send({ type: 'send', message: 'Put lunch with Sam on Friday at 1' });
  await awaitingApproval();
  decide('approve');
  await turnFinished();

  assert.equal(google.standin.inserted.length, 1);
  const [saved] = google.standin.inserted;
  assert.equal(saved!.calendarId, account);
  assert.equal(saved!.sendUpdates, 'all');
  const { id: _id, calendarId: _calendar, ...event } = saved!.event;
  assert.deepEqual(event, {
    summary: 'Lunch with Sam',
    start: { dateTime: '2026-11-27T13:00:00+01:00', timeZone: 'Europe/Paris' },
    end: { dateTime: '2026-11-27T14:00:00+01:00', timeZone: 'Europe/Paris' },
    location: 'Café Blanc',
    attendees: [{ email: 'sam.b@example.org' }],
    reminders: { useDefault: false, overrides: [{ method: 'popup', minutes: 30 }] },
  });
  const call = toolCalls.listForConversation(1)[0]!;
  assert.equal(call.status, 'done');
  assert.match(call.result, /^Event saved \(id ev[0-9a-f]+\): Lunch with Sam\nWhen: Fri 27 Nov 2026, 13:00–14:00 \(Europe\/Paris\)/);
  assert.equal(google.standin.accounts.get(account)!.events.length, 1, 'one event in the calendar');
});

test('create_event in a named calendar uses that calendar\'s own time zone, and an all-day event has no time', async (t) => {
  const { socket, standin, google, awaitingApproval, decide, turnFinished, toolCalls } = await startCalendarChat(t);
  standin.enqueue(
    reply('[TOOL:create_event]title: Call Grandpa\nstart: 2026-11-28 09:00\nduration: 30\ncalendar: family[/TOOL]'),
    reply('[TOOL:create_event]title: Holidays\nstart: 2026-12-24\nend: 2026-12-26[/TOOL]'),
    reply('Both are in.'),
  );
  socket.send({ type: 'send', message: 'Add these' });
  await awaitingApproval();
  assert.match(toolCalls.listForConversation(1)[0]!.preview!, /\+ When: Sat 28 Nov 2026, 09:00–09:30 \(America\/New_York\)\n\+ Calendar: Family \(sam@example\.com\)/);
  decide('approve');
  await awaitingApproval(2);
  assert.match(toolCalls.listForConversation(1)[1]!.preview!, /\+ When: Thu 24 Dec 2026 – Sat 26 Dec 2026, all day/);
  decide('approve');
  await turnFinished();

  const [call, holidays] = google.standin.inserted;
  assert.equal(call!.calendarId, 'family-id@group.calendar.google.com');
  assert.deepEqual(call!.event.start, { dateTime: '2026-11-28T09:00:00-05:00', timeZone: 'America/New_York' });
  assert.equal(call!.sendUpdates, 'none', 'no guests, no mail');
  assert.deepEqual([holidays!.event.start, holidays!.event.end], [{ date: '2026-12-24' }, { date: '2026-12-27' }]);
});

test('quick_add_event: the card shows the line; after Approve the result is the event Google made of it', async (t) => {
  const { socket, standin, google, awaitingApproval, decide, turnFinished, toolCalls } = await startCalendarChat(t);
  standin.enqueue(reply('[TOOL:quick_add_event]Dentist Tuesday 4pm[/TOOL]'), reply('Done.'));
  socket.send({ type: 'send', message: 'dentist tuesday 4pm' });
  await awaitingApproval();
  assert.match(toolCalls.listForConversation(1)[0]!.preview!, /^\+ "Dentist Tuesday 4pm"\n\+ Calendar: main calendar of sam@example\.com\n/);
  assert.deepEqual(google.standin.inserted, []);
  decide('approve');
  await turnFinished();
  assert.equal(google.standin.inserted.length, 1);
  const call = toolCalls.listForConversation(1)[0]!;
  assert.match(call.result, /^Event saved \(id ev[0-9a-f]+\): Dentist\nWhen: Tue 24 Nov 2026, 16:00–17:00 \(Europe\/Paris\)\nCalendar: main calendar of sam@example\.com\nGoogle read this from "Dentist Tuesday 4pm"/);
});

test('an account authorized with the old scopes still reads the calendar; adding an event names the command that grants it', async (t) => {
  const { socket, standin, google, awaitingApproval, decide, turnFinished, toolCalls } = await startCalendarChat(t);
  google.google.tokens.write(account, google.standin.issueTokens(account, { scope: readOnlyScopes }));
  standin.enqueue(reply('[TOOL:list_events]friday[/TOOL]'), reply(lunch), reply('I cannot add it yet.'));
  socket.send({ type: 'send', message: 'Put lunch with Sam on Friday at 1' });
  await awaitingApproval(2);
  assert.match(toolCalls.listForConversation(1)[1]!.preview!, /^\+ Lunch with Sam\n\+ When: Fri 27 Nov 2026, 13:00–14:00/, 'the calendar list is still readable');
  decide('approve');
  await turnFinished();
  const [listing, adding] = toolCalls.listForConversation(1);
  assert.equal(listing!.status, 'done');
  assert.equal(adding!.result, `Error from create_event: ${account} has not allowed Hearth to add events to the calendar: run \`npm run auth:gmail -- ${account}\` on the Hearth computer to grant it.`);
  assert.deepEqual(google.standin.inserted, []);
});

function addEvents(google: CalendarChat['google']) {
  google.standin.accounts.get(account)!.events.push(
    { id: 'dentist1', summary: 'Dentist', location: 'Smile Clinic', start: { dateTime: '2026-11-24T16:00:00+01:00' }, end: { dateTime: '2026-11-24T17:00:00+01:00' } },
    { id: 'yoga_20261124', recurringEventId: 'yoga', summary: 'Yoga', start: { dateTime: '2026-11-24T18:00:00+01:00' }, end: { dateTime: '2026-11-24T19:00:00+01:00' } },
    { id: 'yoga_20261201', recurringEventId: 'yoga', summary: 'Yoga', start: { dateTime: '2026-12-01T18:00:00+01:00' }, end: { dateTime: '2026-12-01T19:00:00+01:00' } },
  );
}
const eventIds = (google: CalendarChat['google']) => google.standin.accounts.get(account)!.events.map((event) => event.id);

test('delete_event: the card shows the event that goes; Deny keeps it, Approve deletes exactly it', async (t) => {
  const { socket, standin, google, awaitingApproval, decide, turnFinished, toolCalls } = await startCalendarChat(t);
  addEvents(google);
  standin.enqueue(reply('[TOOL:delete_event]title: dentist\ndate: tuesday[/TOOL]'), reply('[TOOL:delete_event]title: dentist\ndate: tuesday[/TOOL]'), reply('Gone.'));
  socket.send({ type: 'send', message: 'Cancel the dentist on Tuesday' });
  await awaitingApproval();
  assert.equal(toolCalls.listForConversation(1)[0]!.preview, ['- Dentist', '- When: Tue 24 Nov 2026, 16:00–17:00 (Europe/Paris)', `- Calendar: main calendar of ${account}`, '- Where: Smile Clinic'].join('\n'));
  decide('deny');
  await awaitingApproval(2);
  assert.deepEqual(eventIds(google), ['dentist1', 'yoga_20261124', 'yoga_20261201'], 'Deny kept it');
  decide('approve');
  await turnFinished();
  assert.deepEqual(eventIds(google), ['yoga_20261124', 'yoga_20261201']);
  assert.deepEqual(google.standin.deleted.map((entry) => [entry.eventId, entry.sendUpdates]), [['dentist1', 'none']]);
  assert.match(toolCalls.listForConversation(1)[1]!.result, /^Deleted "Dentist" \(Tue 24 Nov 2026, 16:00–17:00 \(Europe\/Paris\)\) from sam@example\.com\.$/);
});

test('delete_event on a repeating event asks this time or the series; each deletes just that', async (t) => {
  const { socket, standin, google, awaitingApproval, decide, turnFinished, toolCalls } = await startCalendarChat(t);
  addEvents(google);
  standin.enqueue(
    reply('[TOOL:delete_event]title: yoga\ndate: 2026-12-01[/TOOL]'),
    reply('[TOOL:delete_event]title: yoga\ndate: 2026-12-01\nwhich: this[/TOOL]'),
    reply('[TOOL:delete_event]title: yoga\ndate: tuesday\nwhich: series[/TOOL]'),
    reply('No more yoga.'),
  );
  socket.send({ type: 'send', message: 'No yoga next week, and then drop it altogether' });
  await awaitingApproval();
  assert.match(toolCalls.listForConversation(1)[0]!.preview!, /^Could not prepare this: "Yoga" repeats\. Ask the person: delete only this time \(which: this\) or the whole series \(which: series\)\?$/);
  decide('approve');
  await awaitingApproval(2);
  assert.equal(toolCalls.listForConversation(1)[0]!.status, 'failed');
  assert.equal(google.standin.deleted.length, 0);
  assert.doesNotMatch(toolCalls.listForConversation(1)[1]!.preview!, /whole series/);
  decide('approve');
  await awaitingApproval(3);
  assert.deepEqual(eventIds(google), ['dentist1', 'yoga_20261124'], 'only that time went');
  assert.match(toolCalls.listForConversation(1)[2]!.preview!, /\n- Every time it repeats: the whole series\.$/);
  decide('approve');
  await turnFinished();
  assert.deepEqual(eventIds(google), ['dentist1']);
  assert.deepEqual(google.standin.deleted.map((entry) => entry.eventId), ['yoga_20261201', 'yoga']);
});

test('list_events shows each event\'s id, searches by words (q) and lists a calendar chosen by name', async (t) => {
  const { socket, standin, google, turnFinished, toolCalls } = await startCalendarChat(t);
  addEvents(google);
  google.standin.accounts.get(account)!.events.push({ id: 'picnic1', calendarId: 'family-id@group.calendar.google.com', summary: 'Picnic', description: 'Bring the dentist\'s blanket', start: { dateTime: '2026-11-25T12:00:00-05:00' }, end: { dateTime: '2026-11-25T13:00:00-05:00' } });
  standin.enqueue(
    reply('[TOOL:list_events]{"when": "2026-11-23 to 2026-12-06", "q": "smile clinic"}[/TOOL]'),
    reply('[TOOL:list_events]{"when": "2026-11-23 to 2026-12-06", "calendar": "family"}[/TOOL]'),
    reply('Listed.'),
  );
  socket.send({ type: 'send', message: 'When is the dentist, and what is on the family calendar?' });
  await turnFinished();
  const [searched, family] = toolCalls.listForConversation(1);
  assert.match(searched!.result, /Dentist \(Smile Clinic\) \(id dentist1\)/);
  assert.doesNotMatch(searched!.result, /Yoga|Picnic/, 'only events with every word');
  assert.match(family!.result, /Picnic \(id picnic1\)/);
  assert.doesNotMatch(family!.result, /Dentist|Yoga/, 'only the Family calendar');
});
