/*
 * Sending mail from a chat: send_email and reply_email always wait on a card showing the whole
 * message and the account it goes from; nothing leaves before Approve, and "Always allow" is
 * never offered or honoured. The Google stand-in parses each RFC 2822 message it is sent.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ScriptedReply } from '../support/ollama-standin.js';
import { account, startGoogleChat } from '../support/google-setup.js';
import { decodeHeaderWords, readOnlyScopes } from '../support/google-standin.js';

const reply = (content: string): ScriptedReply => ({ content });

const hello = '[TOOL:send_email]to: Ana Núñez <ana@example.org>\ncc: bo@example.com\nsubject: Café à 10h ☕ samedi\nbody: Hi Ana,\n- bring the cake\nSam[/TOOL]';

test('send_email: the card shows the whole message and the sending account, offers no "Always allow"; Deny sends nothing', async (t) => {
  const { socket, standin, google, cards, awaitingApproval, decide, turnFinished, toolCalls } = await startGoogleChat(t);
  standin.enqueue(reply(hello), reply('Not sent.'));
  socket.send({ type: 'send', message: 'Tell Ana we meet at the café at 10 on Saturday' });
  await awaitingApproval();

  assert.equal(toolCalls.listForConversation(1)[0]!.preview, [
    `+ From: ${account}`,
    '+ To: Ana Núñez <ana@example.org>',
    '+ Cc: bo@example.com',
    '+ Subject: Café à 10h ☕ samedi',
    '+ ',
    '+ Hi Ana,',
    '+ - bring the cake',
    '+ Sam',
  ].join('\n'));
  const card = cards.at(-1)!;
  assert.match(card, /Wants to send an email — allow\?/);
  assert.match(card, /Once sent, it cannot be called back\./);
  assert.doesNotMatch(card, /Always allow/);

  decide('deny');
  await turnFinished();
  assert.deepEqual(google.standin.sent, []);
  assert.ok(!google.standin.apiRequests.some((request) => request.method === 'POST'), 'nothing was sent to Gmail');
});

test('send_email: Approve sends exactly that message, headers encoded; an "always" answer is ignored', async (t) => {
  const { socket, standin, google, awaitingApproval, decide, turnFinished, toolCalls } = await startGoogleChat(t);
  standin.enqueue(reply(hello), reply('[TOOL:send_email]to: bo@example.com\nsubject: Again\nbody: Hi[/TOOL]'), reply('Done.'));
  socket.send({ type: 'send', message: 'Send it' });
  await awaitingApproval();
  decide('approve', true);
  await awaitingApproval(2);
  assert.equal(google.standin.sent.length, 1, 'the second message still waits for the person');
  decide('deny');
  await turnFinished();

  const [message] = google.standin.sent;
  assert.equal(message!.account, account);
  assert.match(message!.headers.subject!, /^=\?UTF-8\?B\?/, 'a non-ASCII subject is RFC 2047 encoded');
  assert.equal(decodeHeaderWords(message!.headers.subject!), 'Café à 10h ☕ samedi');
  assert.equal(decodeHeaderWords(message!.headers.to!), 'Ana Núñez <ana@example.org>');
  assert.equal(message!.headers.cc, 'bo@example.com');
  assert.equal(message!.headers['in-reply-to'], undefined);
  assert.equal(message!.body, 'Hi Ana,\n- bring the cake\nSam');
  assert.deepEqual(toolCalls.listForConversation(1).map((call) => call.status), ['done', 'denied']);
  assert.match(toolCalls.listForConversation(1)[0]!.result, /^Sent from sam@example\.com \(message id sent\d+\)\. To: Ana Núñez <ana@example\.org> \| Subject: Café/);
});

test('reply_email: "reply to the school that we\'ll be there" sends one threaded reply after one approval', async (t) => {
  const { socket, standin, google, awaitingApproval, decide, turnFinished, toolCalls } = await startGoogleChat(t);
  standin.enqueue(reply("[TOOL:reply_email]reply_to: 18c2f0a1b2c3d4e5\nbody: We'll be there.\nSam[/TOOL]"), reply('Replied.'));
  socket.send({ type: 'send', message: "Reply to the school that we'll be there" });
  await awaitingApproval();
  assert.equal(toolCalls.listForConversation(1)[0]!.preview, [
    `+ From: ${account}`,
    '+ To: School Office <office@school.example>',
    '+ Subject: Re: Trip on Friday',
    '+ (in reply to "Trip on Friday" from School Office <office@school.example>, in its thread)',
    '+ ',
    "+ We'll be there.",
    '+ Sam',
  ].join('\n'));
  assert.equal(google.standin.sent.length, 0, 'nothing is sent before Approve');
  decide('approve');
  await turnFinished();

  assert.equal(google.standin.sent.length, 1);
  const [sent] = google.standin.sent;
  assert.equal(sent!.threadId, 'thread-trip', 'Gmail kept it in the thread');
  assert.equal(sent!.headers['in-reply-to'], '<trip-2@school.example>');
  assert.equal(sent!.headers.references, '<trip-1@school.example> <trip-2@school.example>');
  assert.equal(sent!.headers.subject, 'Re: Trip on Friday');
  assert.equal(sent!.headers.to, 'School Office <office@school.example>');
  assert.equal(sent!.headers.cc, undefined, 'a reply goes to the sender only');
  assert.equal(sent!.body, "We'll be there.\nSam");
});

test('reply_email with reply_all answers the Reply-To and copies everyone else once, never oneself', async (t) => {
  const { socket, standin, google, awaitingApproval, decide, turnFinished } = await startGoogleChat(t);
  google.standin.accounts.get(account)!.messages.push({
    id: 'party0000001',
    threadId: 'thread-party',
    from: 'Léa <lea@example.org>',
    replyTo: 'Party list <party@example.org>',
    to: `Sam <${account.toUpperCase()}>, "Doe, Jo" <jo@example.net>`,
    cc: 'lea@example.org, kim@example.com',
    subject: 'Fête de Noël',
    date: '2026-11-21T10:00:00Z',
    messageId: '<party-1@example.org>',
    text: 'Who comes?',
  });
  standin.enqueue(reply('[TOOL:reply_email]{"reply_to": "party0000001", "reply_all": true, "body": "We come!"}[/TOOL]'), reply('Done.'));
  socket.send({ type: 'send', message: 'Tell everyone we come' });
  await awaitingApproval();
  decide('approve');
  await turnFinished();

  const [sent] = google.standin.sent;
  assert.equal(sent!.headers.to, 'Party list <party@example.org>');
  assert.equal(sent!.headers.cc, '"Doe, Jo" <jo@example.net>, lea@example.org, kim@example.com');
  assert.equal(decodeHeaderWords(sent!.headers.subject!), 'Re: Fête de Noël');
  assert.equal(sent!.threadId, 'thread-party');
});

test('an account that did not grant sending says so in one line naming the command; reading still works', async (t) => {
  const { socket, standin, google, awaitingApproval, decide, turnFinished, toolCalls } = await startGoogleChat(t);
  // Drafts and sending (gmail.compose) left unticked on Google's consent screen.
  const readingOnly = readOnlyScopes.split(' ').filter((scope) => !scope.endsWith('gmail.compose')).join(' ');
  google.google.tokens.write(account, google.standin.issueTokens(account, { scope: readingOnly }));
  standin.enqueue(
    reply('[TOOL:search_emails]from:school[/TOOL]'),
    reply("[TOOL:reply_email]reply_to: 18c2f0a1b2c3d4e5\nbody: We'll be there.[/TOOL]"),
    reply('I cannot send yet.'),
  );
  socket.send({ type: 'send', message: "Reply to the school that we'll be there" });
  await awaitingApproval(2);
  decide('approve');
  await turnFinished();

  const [search, sending] = toolCalls.listForConversation(1);
  assert.equal(search!.status, 'done');
  assert.equal(sending!.status, 'failed');
  assert.equal(sending!.result, `Error from reply_email: ${account} has not allowed Hearth to send mail: run \`npm run auth:gmail -- ${account}\` on the Hearth computer to grant it.`);
  assert.deepEqual(google.standin.sent, []);
});

test('send_draft: the card shows the saved draft whole; Deny keeps it, Approve sends exactly it', async (t) => {
  const { socket, standin, google, awaitingApproval, decide, turnFinished, toolCalls } = await startGoogleChat(t);
  standin.enqueue(
    reply('[TOOL:create_draft]to: anna@example.com\nsubject: Saturday\nbody: See you at 10!\nSam[/TOOL]'),
    reply('[TOOL:send_draft]r-draft-1[/TOOL]'),
    reply('[TOOL:send_draft]id: r-draft-1[/TOOL]'),
    reply('Sent.'),
  );
  socket.send({ type: 'send', message: 'Draft it, then send it' });
  await awaitingApproval();
  decide('approve');
  await awaitingApproval(2);
  const preview = ['+ From: sam@example.com', '+ To: anna@example.com', '+ Subject: Saturday', '+ ', '+ See you at 10!', '+ Sam'].join('\n');
  assert.equal(toolCalls.listForConversation(1)[1]!.preview, preview);
  decide('deny');
  await awaitingApproval(3);
  assert.equal(google.standin.sent.length, 0);
  assert.equal(google.standin.drafts.length, 1, 'Deny kept the draft');
  decide('approve');
  await turnFinished();
  assert.equal(google.standin.sent.length, 1);
  assert.equal(google.standin.drafts.length, 0, 'the draft became the sent message');
  assert.equal(google.standin.sent[0]!.headers.subject, 'Saturday');
  assert.match(toolCalls.listForConversation(1)[2]!.result, /^Draft r-draft-1 sent from sam@example\.com \(message id sent\d+\)\. To: anna@example\.com \| Subject: Saturday$/);
});

test('forward_email: the card shows the note and the forwarded text; Approve sends exactly that, attachments named as left behind', async (t) => {
  const { socket, standin, google, awaitingApproval, decide, turnFinished, toolCalls } = await startGoogleChat(t);
  standin.enqueue(reply('[TOOL:forward_email]forward: 18c2f0a1b2c3d4e7\nto: anna@example.com\nbody: Can you pay this?[/TOOL]'), reply('Forwarded.'));
  socket.send({ type: 'send', message: 'Forward the café invoice to Anna' });
  await awaitingApproval();
  const preview = toolCalls.listForConversation(1)[0]!.preview!;
  assert.match(preview, /^\+ From: sam@example\.com\n\+ To: anna@example\.com\n\+ Subject: Fwd: Your invoice\n\+ \n\+ Can you pay this\?\n\+ \n\+ ---------- Forwarded message ---------\n\+ From: Café Müller <cafe@muller\.example>\n/);
  assert.match(preview, /\+ Merci beaucoup, à bientôt\. Prix: 12 EUR\n\+ \n\+ \(Attachments not forwarded: invoice\.pdf\)$/);
  assert.equal(google.standin.sent.length, 0);
  decide('approve');
  await turnFinished();
  assert.equal(google.standin.sent.length, 1);
  const [sent] = google.standin.sent;
  assert.equal(sent!.headers.subject, 'Fwd: Your invoice');
  assert.equal(sent!.headers.to, 'anna@example.com');
  assert.match(sent!.body, /^Can you pay this\?\n\n---------- Forwarded message ---------\nFrom: Café Müller/);
});
