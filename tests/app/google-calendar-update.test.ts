/*
 * Changing an event from a chat (update_event): the real app and tool engine, the Ollama stand-in
 * scripted to call it, the Google stand-in's events.patch behind the real googleapis code. The
 * card shows the event before and after; Deny changes nothing, Approve changes just that.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { account } from '../support/google-setup.js';
import { readOnlyScopes, type StandinEvent } from '../support/google-standin.js';
import { stoppedBeforeRunning } from '../../src/engine/tools/tool-call-runner.js';
import { reply, startCalendarChat, type CalendarChat } from '../support/calendar-chat.js';

const dentist = (): StandinEvent => ({
  id: 'dentist1',
  summary: 'Dentist',
  location: 'Smile <b>Clinic</b>',
  attendees: [{ email: 'dr@smile.example', responseStatus: 'accepted' }],
  start: { dateTime: '2026-11-24T16:00:00+01:00', timeZone: 'Europe/Paris' },
  end: { dateTime: '2026-11-24T17:00:00+01:00', timeZone: 'Europe/Paris' },
});

/** Weekly yoga on Tuesdays at 18:00 in Paris: the series' own event and three times, one in summer time. */
function addYoga(google: CalendarChat['google']) {
  const time = (day: string, clock: string, offset = '+01:00') => ({ dateTime: `${day}T${clock}:00${offset}`, timeZone: 'Europe/Paris' });
  google.standin.accounts.get(account)!.events.push(
    { id: 'yoga', summary: 'Yoga', recurrence: ['RRULE:FREQ=WEEKLY;BYDAY=TU'], start: time('2026-11-24', '18:00'), end: time('2026-11-24', '19:00') },
    { id: 'yoga_20261124T170000Z', recurringEventId: 'yoga', summary: 'Yoga', start: time('2026-11-24', '18:00'), end: time('2026-11-24', '19:00') },
    { id: 'yoga_20261201T170000Z', recurringEventId: 'yoga', summary: 'Yoga', start: time('2026-12-01', '18:00'), end: time('2026-12-01', '19:00') },
    { id: 'yoga_20270406T160000Z', recurringEventId: 'yoga', summary: 'Yoga', start: time('2027-04-06', '18:00', '+02:00'), end: time('2027-04-06', '19:00', '+02:00') },
  );
}
const stored = (google: CalendarChat['google'], id: string) => google.standin.accounts.get(account)!.events.find((event) => event.id === id)!;
const startsOf = (google: CalendarChat['google']) => google.standin.accounts.get(account)!.events.map((event) => `${event.id} ${event.start.dateTime}`);

const move = '[TOOL:update_event]title: dentist\ndate: tuesday\nstart: wednesday 10:00\nlocation: Smile Clinic, Room 2[/TOOL]';

test('update_event: the card shows the event before and after, escaped; Deny changes nothing', async (t) => {
  const { socket, standin, google, cards, awaitingApproval, decide, turnFinished, toolCalls } = await startCalendarChat(t);
  google.standin.accounts.get(account)!.events.push(dentist());
  standin.enqueue(reply(move), reply('Left as it was.'));
  socket.send({ type: 'send', message: 'Move the dentist to Wednesday at 10 in room 2' });
  await awaitingApproval();

  assert.equal(toolCalls.listForConversation(1)[0]!.preview, [
    '  Dentist',
    '- When: Tue 24 Nov 2026, 16:00–17:00 (Europe/Paris)',
    '+ When: Wed 25 Nov 2026, 10:00–11:00 (Europe/Paris)',
    `  Calendar: main calendar of ${account}`,
    '- Where: Smile <b>Clinic</b>',
    '+ Where: Smile Clinic, Room 2',
    '  Guests: dr@smile.example',
    '  Google e-mails the change to: dr@smile.example',
  ].join('\n'));
  const card = cards.at(-1)!;
  assert.match(card, /<span class="tool-call-change-removed">- When: Tue 24 Nov 2026, 16:00–17:00 \(Europe\/Paris\)<\/span><span class="tool-call-change-added">\+ When: Wed 25 Nov 2026, 10:00–11:00/);
  assert.match(card, /<span class="tool-call-change-kept">  Dentist<\/span>/, 'an unchanged line is plain');
  assert.match(card, /Smile &lt;b&gt;Clinic&lt;\/b&gt;/, 'the calendar\'s text is escaped');
  assert.doesNotMatch(card, /<b>Clinic/);

  decide('deny');
  await turnFinished();
  assert.deepEqual(google.standin.patched, []);
  assert.ok(!google.standin.apiRequests.some((request) => request.method === 'PATCH'), 'nothing was sent to Calendar');
  assert.deepEqual(stored(google, 'dentist1'), dentist());
  assert.equal(toolCalls.listForConversation(1)[0]!.status, 'denied');
});

test('update_event: Approve patches exactly the changed fields and e-mails the guests; a rename and a new guest keep the rest', async (t) => {
  const { socket, standin, google, awaitingApproval, decide, turnFinished, toolCalls } = await startCalendarChat(t);
  google.standin.accounts.get(account)!.events.push(dentist());
  standin.enqueue(reply(move), reply('[TOOL:update_event]id: dentist1\nnew_title: Dentist (check-up)\nguests: Bo <bo@example.org>, dr@smile.example[/TOOL]'), reply('Moved.'));
  socket.send({ type: 'send', message: 'Move the dentist to Wednesday at 10 in room 2, call it a check-up and invite Bo' });
  await awaitingApproval();
  decide('approve');
  await awaitingApproval(2);

  const [first] = google.standin.patched;
  assert.deepEqual([first!.eventId, first!.calendarId, first!.sendUpdates], ['dentist1', account, 'all']);
  assert.deepEqual(first!.body, {
    start: { dateTime: '2026-11-25T10:00:00+01:00', timeZone: 'Europe/Paris' },
    end: { dateTime: '2026-11-25T11:00:00+01:00', timeZone: 'Europe/Paris' },
    location: 'Smile Clinic, Room 2',
  });
  assert.deepEqual(stored(google, 'dentist1'), { ...dentist(), start: first!.body.start, end: first!.body.end, location: 'Smile Clinic, Room 2' }, 'the rest is as it was');
  const moved = toolCalls.listForConversation(1)[0]!;
  assert.equal(moved.status, 'done');
  assert.match(moved.result, /^Event changed \(id dentist1\): Dentist\nWhen: Wed 25 Nov 2026, 10:00–11:00 \(Europe\/Paris\)\n[\s\S]*\nChanged: time, place\. Google e-mailed the change to dr@smile\.example\.$/);

  assert.equal(toolCalls.listForConversation(1)[1]!.preview, [
    '- Dentist',
    '+ Dentist (check-up)',
    '  When: Wed 25 Nov 2026, 10:00–11:00 (Europe/Paris)',
    `  Calendar: main calendar of ${account}`,
    '  Where: Smile Clinic, Room 2',
    '- Guests: dr@smile.example',
    '+ Guests: dr@smile.example, bo@example.org',
    '  Google e-mails the change to: dr@smile.example, bo@example.org',
  ].join('\n'));
  decide('approve');
  await turnFinished();
  assert.deepEqual(google.standin.patched[1]!.body, {
    summary: 'Dentist (check-up)',
    attendees: [{ email: 'dr@smile.example', responseStatus: 'accepted' }, { email: 'bo@example.org' }],
  }, 'the guest already invited keeps the answer they gave');
  assert.equal(stored(google, 'dentist1').start.dateTime, '2026-11-25T10:00:00+01:00', 'the earlier move stays');
});

test('update_event: a move across the end of summer time keeps the local time, and a length given anew is kept', async (t) => {
  const { socket, standin, google, awaitingApproval, decide, turnFinished, toolCalls } = await startCalendarChat(t);
  const calendar = google.standin.accounts.get(account)!.calendars.find((entry) => entry.primary)!;
  calendar.timeZone = 'Europe/Berlin';
  google.standin.accounts.get(account)!.events.push({
    id: 'review1', summary: 'Review', start: { dateTime: '2026-10-22T10:00:00+02:00', timeZone: 'Europe/Berlin' }, end: { dateTime: '2026-10-22T11:30:00+02:00', timeZone: 'Europe/Berlin' },
  });
  standin.enqueue(reply('[TOOL:update_event]title: review\ndate: 2026-10-22\nstart: Nov 5[/TOOL]'), reply('Moved to the same time on the 5th.'));
  socket.send({ type: 'send', message: 'Move the review of Oct 22 to Nov 5, same time' });
  await awaitingApproval();
  assert.match(toolCalls.listForConversation(1)[0]!.preview!, /^  Review\n- When: Thu 22 Oct 2026, 10:00–11:30 \(Europe\/Berlin\)\n\+ When: Thu 5 Nov 2026, 10:00–11:30 \(Europe\/Berlin\)\n/);
  assert.match(toolCalls.listForConversation(1)[0]!.preview!, /\n  No one is e-mailed: it has no guests\.$/);
  decide('approve');
  await turnFinished();
  const [patch] = google.standin.patched;
  assert.equal(patch!.sendUpdates, 'none', 'no guests, no mail');
  assert.deepEqual(patch!.body, {
    start: { dateTime: '2026-11-05T10:00:00+01:00', timeZone: 'Europe/Berlin' },
    end: { dateTime: '2026-11-05T11:30:00+01:00', timeZone: 'Europe/Berlin' },
  }, '10:00 in Berlin is now an hour later in UTC (09:00Z, was 08:00Z)');
});

test('update_event on a repeating event asks this time or the series; the series keeps its local time in summer too', async (t) => {
  const { socket, standin, google, awaitingApproval, decide, turnFinished, toolCalls } = await startCalendarChat(t);
  addYoga(google);
  standin.enqueue(
    reply('[TOOL:update_event]title: yoga\ndate: 2026-12-01\nstart: 19:00[/TOOL]'),
    reply('[TOOL:update_event]title: yoga\ndate: 2026-12-01\nwhich: this\nstart: 2026-12-02 18:30[/TOOL]'),
    reply('[TOOL:update_event]id: yoga_20261124T170000Z\nwhich: series\nstart: 19:00\nlocation: Studio 2[/TOOL]'),
    reply('Yoga is at 19:00 from now on.'),
  );
  socket.send({ type: 'send', message: 'Yoga at 19:00 from now on' });
  await awaitingApproval();
  assert.equal(toolCalls.listForConversation(1)[0]!.preview, 'Could not prepare this: "Yoga" repeats. Ask the person: change only this time (which: this) or the whole series (which: series)?');
  decide('approve');
  await awaitingApproval(2);
  assert.equal(toolCalls.listForConversation(1)[0]!.status, 'failed');
  assert.equal(google.standin.patched.length, 0, 'nothing changed without an answer');

  assert.match(toolCalls.listForConversation(1)[1]!.preview!, /\n  Only this time: the other times of the series stay as they are\.\n/);
  decide('approve');
  await awaitingApproval(3);
  assert.deepEqual(google.standin.patched.map((entry) => entry.eventId), ['yoga_20261201T170000Z'], 'only that time');
  assert.equal(stored(google, 'yoga_20261201T170000Z').start.dateTime, '2026-12-02T18:30:00+01:00');
  assert.match(toolCalls.listForConversation(1)[1]!.result, /^Event changed \(id yoga_20261201T170000Z, only this time\): Yoga\nWhen: Wed 2 Dec 2026, 18:30–19:30/);

  assert.equal(toolCalls.listForConversation(1)[2]!.preview, [
    '  Yoga',
    '- When: Tue 24 Nov 2026, 18:00–19:00 (Europe/Paris)',
    '+ When: Tue 24 Nov 2026, 19:00–20:00 (Europe/Paris)',
    `  Calendar: main calendar of ${account}`,
    '+ Where: Studio 2',
    '  Repeats: RRULE:FREQ=WEEKLY;BYDAY=TU',
    '  Every time it repeats: the whole series.',
    '  No one is e-mailed: it has no guests.',
  ].join('\n'));
  decide('approve');
  await turnFinished();
  assert.deepEqual(google.standin.patched[1]!.body, {
    start: { dateTime: '2026-11-24T19:00:00+01:00', timeZone: 'Europe/Paris' },
    end: { dateTime: '2026-11-24T20:00:00+01:00', timeZone: 'Europe/Paris' },
    location: 'Studio 2',
  });
  assert.equal(google.standin.patched[1]!.eventId, 'yoga');
  assert.deepEqual(startsOf(google), [
    'yoga 2026-11-24T19:00:00+01:00',
    'yoga_20261124T170000Z 2026-11-24T19:00:00+01:00',
    'yoga_20261201T170000Z 2026-12-02T18:30:00+01:00',
    'yoga_20270406T160000Z 2027-04-06T19:00:00+02:00',
  ], 'every time at 19:00 local, in summer time too, but the time moved alone');
  assert.equal(stored(google, 'yoga_20270406T160000Z').location, 'Studio 2');
  assert.equal(stored(google, 'yoga_20261201T170000Z').location, 'Studio 2', 'the new place is for every time');
  assert.match(toolCalls.listForConversation(1)[2]!.result, /^Event changed \(id yoga, every time it repeats\): Yoga\nWhen: Tue 24 Nov 2026, 19:00–20:00/);
});

test('update_event: an account authorized with the old scopes sees the card; the change names the command that grants it', async (t) => {
  const { socket, standin, google, awaitingApproval, decide, turnFinished, toolCalls } = await startCalendarChat(t);
  google.standin.accounts.get(account)!.events.push(dentist());
  google.google.tokens.write(account, google.standin.issueTokens(account, { scope: readOnlyScopes }));
  standin.enqueue(reply(move), reply('I cannot change it yet.'));
  socket.send({ type: 'send', message: 'Move the dentist to Wednesday at 10' });
  await awaitingApproval();
  assert.match(toolCalls.listForConversation(1)[0]!.preview!, /\+ When: Wed 25 Nov 2026, 10:00–11:00/, 'the calendar is still readable');
  decide('approve');
  await turnFinished();
  assert.equal(toolCalls.listForConversation(1)[0]!.result, `Error from update_event: ${account} has not allowed Hearth to change calendar events: run \`npm run auth:gmail -- ${account}\` on the Hearth computer to grant it.`);
  assert.deepEqual(google.standin.patched, []);
  assert.deepEqual(stored(google, 'dentist1'), dentist());
});

test('Stop while the card is being prepared ends Google\'s slow answer at once; nothing is changed', async (t) => {
  const { socket, standin, google, turnFinished, toolCalls } = await startCalendarChat(t);
  google.standin.accounts.get(account)!.events.push(dentist());
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  t.after(() => release());
  const held: Array<{ path: string; hungUp: Promise<void> }> = [];
  let reached!: () => void;
  const lookupStarted = new Promise<void>((resolve) => (reached = resolve));
  // Google answers nothing until the test is over: only Stop can end the lookup.
  google.standin.state.hold = (path, hungUp) => {
    held.push({ path, hungUp });
    reached();
    return released;
  };
  standin.enqueue(reply(move), reply('Not reached.'));
  socket.send({ type: 'send', message: 'Move the dentist to Wednesday at 10' });
  await lookupStarted;
  socket.send({ type: 'stop' });
  await turnFinished();

  const [call] = toolCalls.listForConversation(1);
  assert.equal(call!.preview, 'Stopped before it was prepared.', 'the lookup ended with Stop, not with its own time limit');
  assert.deepEqual([call!.status, call!.result], ['denied', stoppedBeforeRunning]);
  assert.deepEqual(held.map((request) => request.path), ['/calendar/v3/users/me/calendarList']);
  await held[0]!.hungUp; // Hearth hung up on the slow request: Stop aborted it
  assert.equal(google.standin.patched.length, 0);
});
