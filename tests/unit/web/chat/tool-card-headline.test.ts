/*
 * Every tool words its own card: the headline is made from the tool's phrases and its summary
 * of the result, found by the call's name, as the chat page asks the registry for them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { FindToolsTool } from '../../../../src/engine/tools/find-tools-tool.js';
import { loadTools } from '../../../../src/engine/tools/tool-registry.js';
import type { StoredToolCall } from '../../../../src/storage/tool-call-store.js';
import type { MemoryFile } from '../../../../src/providers/memory/memory-file.js';
import { MemoryUpdateTool } from '../../../../src/providers/memory/memory-update-tool.js';
import { McpTool } from '../../../../src/providers/mcp/mcp-tool.js';
import { McpArgumentReader } from '../../../../src/providers/mcp/mcp-arguments.js';
import { toToolCallView } from '../../../../src/web/chat/chat-view.js';
import { describeToolCall } from '../../../../src/web/chat/tool-card-headline.js';
import { noGoogleAccountMessage } from '../../../../src/providers/google/google-services.js';
import { testToolServices } from '../../../support/test-tools.js';

/** The tools/ folder the server loads. */
// Beside this file's src/ (as services.ts finds it), so compiled tests load the compiled tools.
const toolsFolder = fileURLToPath(new URL('../../../../tools/', import.meta.url));

const services = testToolServices();
const registry = await loadTools(toolsFolder, services);
registry.add(new FindToolsTool(services, registry));
registry.add(new MemoryUpdateTool(services, {} as MemoryFile));
registry.replaceGroup('mcp:files', [
  new McpTool(
    services,
    { name: 'files.read_text_file', server: 'files', toolName: 'read_text_file', description: 'Reads a file.', inputSchema: { type: 'object' }, readOnly: true, allowedByConfig: false, timeoutMs: 1000 },
    { servers: { callTool: async () => ({ content: [] }) }, argumentReader: new McpArgumentReader() },
  ),
]);

type Status = StoredToolCall['status'];
const headline = (name: string, status: Status, result = '') => describeToolCall({ name, status, result }, registry.named(name));

const events = ['Events today (times in Europe/Paris) in sam@example.com:', 'Mon 23 Nov 2026', '  all day: Holiday', '  09:00–10:00 Standup (Room 2)'].join('\n');
const freeTime = [
  'Free time of at least 30 min between 09:00 and 18:00, Mon 23 Nov 2026 to Tue 24 Nov 2026 (Europe/Paris), from sam@example.com:',
  'Mon 23 Nov 2026: 10:00–11:30, 14:00–18:00',
  'Tue 24 Nov 2026: 09:00–18:00',
].join('\n');
const twoAccounts = ['2 messages for "invoice" in a@example.com, newest first:', 'x | d | f | s', 'y | d | f | s', '', 'No messages match "invoice" in b@example.com.'].join('\n');
const email = ['Account: sam@example.com', 'Id: 18c2f0a1b2c3d4e5', 'Date: Fri 20 Nov 2026 08:15', 'From: School <office@school.example>', 'To: sam@example.com', 'Subject: Trip on Friday', '', 'Dear parents,'].join('\n');
const draft = 'Draft saved in sam@example.com (draft id r-1); it was NOT sent. To: anna@example.com | Subject: Saturday. The person can review and send it from Gmail\'s Drafts.';
const savedEvent = 'Event saved (id ev1): Lunch with Sam\nWhen: Fri 27 Nov 2026, 13:00–14:00 (Europe/Paris)\nCalendar: main calendar of sam@example.com';

// [tool, status, result, the headline a person reads]
const cards: [string, Status, string, string][] = [
  ['calculator', 'running', '', 'Calculating…'],
  ['calculator', 'done', '6 * 7 = 42', 'Used the calculator — 6 * 7 = 42'],
  ['calculator', 'done', `${'1 + '.repeat(30)}1 = 31`, 'Used the calculator — = 31'],
  ['calculator', 'failed', 'Error from calculator: "x" is not allowed.', 'Could not calculate: "x" is not allowed.'],
  ['current_time', 'done', 'Sunday 22 November 2026 at 10:00:00 GMT (time zone Europe/London)', 'Checked the current time — Sunday 22 November 2026 at 10:00:00 GMT'],
  ['search_emails', 'running', '', 'Searching your email…'],
  ['search_emails', 'done', '3 messages for "invoice", newest first:\na\nb\nc', 'Searched your email — 3 results'],
  ['search_emails', 'done', '1 message for "x", newest first:\na', 'Searched your email — 1 result'],
  ['search_emails', 'done', 'No messages match "x".', 'Searched your email — no results'],
  ['search_emails', 'done', twoAccounts, 'Searched your email — 2 results'],
  ['search_emails', 'failed', 'Error from search_emails: Gmail refused the token\nmore', 'Could not search your email: Gmail refused the token'],
  // Written for the model ("Ask the person to run…"); the person reads plain words.
  ['search_emails', 'failed', `Error from search_emails: ${noGoogleAccountMessage}`, 'Could not search your email: no Google account is connected yet (the Tools page says how to connect one)'],
  ['list_events', 'failed', `Error from list_events: ${noGoogleAccountMessage}`, 'Could not check your calendar: no Google account is connected yet (the Tools page says how to connect one)'],
  ['read_email', 'running', '', 'Reading an email…'],
  ['read_email', 'done', email, 'Read an email — “Trip on Friday”'],
  ['read_email', 'denied', 'Refused: this call repeats text found inside a tool result', 'Not run — it repeated text from an email or tool result'],
  ['create_draft', 'awaiting-approval', '', 'Wants to create a draft — allow?'],
  ['create_draft', 'denied', 'The person denied this action.', 'Not run — you said no'],
  ['create_draft', 'done', draft, 'Created a draft — to anna@example.com, not sent'],
  ['list_email_accounts', 'done', 'Authorized Google accounts:\n- a@example.com\n- b@example.com\nName one (account: ...) to use only that account.', 'Listed your email accounts — 2 accounts'],
  ['list_email_accounts', 'done', 'No Google account is authorized yet. The person can add one by running `npm run auth:gmail`.', 'Listed your email accounts — none authorized yet'],
  ['list_events', 'running', '', 'Checking your calendar…'],
  ['list_events', 'done', events, 'Checked your calendar — 2 events'],
  ['list_events', 'done', 'Events today (times in Europe/Paris) in sam@example.com:\nNo events.', 'Checked your calendar — no events'],
  ['create_event', 'awaiting-approval', '', 'Wants to add an event to your calendar — allow?'],
  ['create_event', 'done', savedEvent, 'Added an event to your calendar — Lunch with Sam, Fri 27 Nov 2026, 13:00–14:00'],
  ['quick_add_event', 'done', `${savedEvent}\nGoogle read this from "lunch with Sam friday 1pm"; if it is not what the person meant, it can be changed or deleted.`, 'Added an event to your calendar — Lunch with Sam, Fri 27 Nov 2026, 13:00–14:00'],
  ['send_email', 'awaiting-approval', '', 'Wants to send an email — allow?'],
  ['send_email', 'done', 'Sent from sam@example.com (message id s1). To: anna@example.com | Subject: Saturday', 'Sent an email — to anna@example.com'],
  ['reply_email', 'done', 'Reply sent from sam@example.com in the thread of the message (message id s2). To: School <office@school.example> | Cc: bo@example.com | Subject: Re: Trip', 'Sent a reply — to School <office@school.example>'],
  ['delete_event', 'done', 'Deleted every time of "Yoga" (Tue 24 Nov 2026, 18:00–19:00 (Europe/Paris)) from Family.', 'Deleted an event from your calendar — Yoga, every time'],
  ['delete_event', 'done', 'Deleted "Dentist" (Tue 24 Nov 2026, 16:00–17:00 (Europe/Paris)) from sam@example.com.', 'Deleted an event from your calendar — Dentist, Tue 24 Nov 2026'],
  ['update_event', 'awaiting-approval', '', 'Wants to change an event in your calendar — allow?'],
  ['update_event', 'done', 'Event changed (id dentist1): Dentist\nWhen: Wed 25 Nov 2026, 10:00–11:00 (Europe/Paris)\nCalendar: main calendar of sam@example.com\nChanged: time. No one was e-mailed.', 'Changed an event in your calendar — Dentist, Wed 25 Nov 2026, 10:00–11:00'],
  ['update_event', 'done', 'Event changed (id yoga, every time it repeats): Yoga\nWhen: Tue 24 Nov 2026, 19:00–20:00 (Europe/Paris)\nChanged: time. No one was e-mailed.', 'Changed an event in your calendar — Yoga, Tue 24 Nov 2026, 19:00–20:00'],
  ['send_draft', 'done', 'Draft r-1 sent from sam@example.com (message id s3). To: anna@example.com | Subject: Saturday', 'Sent a draft — to anna@example.com'],
  ['forward_email', 'done', 'Forwarded from sam@example.com (message id s4). To: anna@example.com | Subject: Fwd: Invoice', 'Forwarded an email — to anna@example.com'],
  ['sort_email', 'awaiting-approval', '', 'Wants to sort your email — allow?'],
  ['sort_email', 'done', 'Move to the trash (recoverable from Gmail\'s Trash for 30 days): 2 messages done.\na | x\nb | y', 'Sorted your email — 2 messages to the trash'],
  ['sort_email', 'done', 'Add the label "School": 1 message done.\na | x', 'Sorted your email — 1 message labelled'],
  ['list_labels', 'done', 'Labels of sam@example.com:\n- School\n- Taxes', 'Listed your email labels — 2 labels'],
  ['list_calendars', 'done', 'Calendars of sam@example.com:\n- sam@example.com (main), Europe/Paris', 'Listed your calendars — 1 calendar'],
  ['find_free_time', 'done', freeTime, 'Looked for free time in your calendar — 3 free slots'],
  ['find_free_time', 'failed', 'Error from find_free_time: stopped by the person', 'Stopped — looking for free time in your calendar was cut short'],
  ['memory_update', 'awaiting-approval', '', 'Wants to update your memory — allow?'],
  ['memory_update', 'done', 'Memory updated (1200 of 2048 bytes).', 'Updated your memory — 1,200 of 2,048 bytes'],
  ['web_search', 'running', '', 'Searching the web…'],
  ['web_search', 'done', 'Results for "x" (from DuckDuckGo):\n1. A\n   https://a.example/\n2. B\n   https://b.example/', 'Searched the web — 2 results'],
  ['read_web_page', 'running', '', 'Reading a web page…'],
  ['read_web_page', 'done', 'Title: Hedgehogs return\nAddress: https://news.example/h\n\nText', 'Read a web page — “Hedgehogs return”'],
  ['read_web_page', 'failed', 'Error from read_web_page: Not read: 127.0.0.1 is this computer (loopback).', 'Could not read a web page: Not read: 127.0.0.1 is this computer (loopback).'],
  ['find_tools', 'done', '- calculator: Exact arithmetic.\n  [TOOL:calculator]1+1[/TOOL]\n- current_time: The time.\n  [TOOL:current_time][/TOOL]', 'Looked for a tool — 2 matches'],
  ['find_tools', 'done', 'No tool matches "zebra". All tools: calculator.', 'Looked for a tool — no match'],
  // An MCP tool is named as it is; its headline adds only what Hearth can say itself.
  ['files.read_text_file', 'done', 'eggs\nflour', 'Used files.read_text_file'],
  ['files.read_text_file', 'done', 'A chart:\n[image: image/png, 2 KB]', 'Used files.read_text_file — 1 picture'],
  // A tool no longer installed (its server went away): words from its name.
  ['files.write_file', 'running', '', 'Using files.write_file…'],
  ['files.write_file', 'expired', 'Not run: nobody answered.', 'Not run — no answer in time'],
];

test('every tool\'s card says what happened in its own words, with a one-line summary of its result', () => {
  for (const [name, status, result, expected] of cards) assert.equal(headline(name, status, result), expected, `${name} ${status}`);
  assert.equal(headline('files.write_file', 'failed', `Error from files.write_file: ${'z'.repeat(500)}`).length, 'Could not use files.write_file: '.length + 160);
});

test('every built-in tool, find_tools and memory_update have their own words and a summary of a real result shape', () => {
  const worded = new Set(cards.filter(([, status, , expected]) => status === 'done' && expected.includes(' — ')).map(([name]) => name));
  const tools = [...registry.all, registry.forTag('memory')!].filter((tool) => tool.source !== 'MCP: files');
  assert.equal(tools.length, 23);
  for (const tool of tools) {
    assert.ok(tool.words, `${tool.name} has its own words`);
    assert.ok(worded.has(tool.name), `${tool.name}'s summary is in the table`);
  }
});

test('a summary is one short line, however long the result it quotes', () => {
  const long = email.replace('Trip on Friday', `Trip ${'very '.repeat(40)}far\nBcc: nobody`);
  const text = headline('read_email', 'done', long);
  assert.ok(text.startsWith('Read an email — “Trip very very'));
  assert.equal(text.length, 'Read an email — '.length + 80);
  assert.ok(!text.includes('\n'));
});

test('the approval card asks in the tool\'s words, and offers "Always allow" only where the tool allows it', () => {
  const call = (name: string): StoredToolCall => ({ id: 1, messageId: 1, name, params: '', status: 'awaiting-approval', result: '', preview: null, durationMs: null }) as StoredToolCall;
  const memory = toToolCallView(call('memory_update'), registry.named('memory_update'));
  assert.match(memory.approvalQuestion, /Outside text .* Save this change to your memory\?/);
  assert.equal(memory.canAlwaysAllow, false);
  const draftCard = toToolCallView(call('create_draft'), registry.named('create_draft'));
  assert.equal(draftCard.approvalQuestion, '');
  assert.equal(draftCard.canAlwaysAllow, true);
  assert.equal(toToolCallView(call('gone.tool'), undefined).canAlwaysAllow, true, 'a tool no longer installed keeps the box');
  for (const name of ['send_email', 'reply_email', 'send_draft', 'forward_email']) {
    const card = toToolCallView(call(name), registry.named(name));
    assert.equal(card.canAlwaysAllow, false, `${name}: sending always asks`);
    assert.equal(card.approvalQuestion, 'Once sent, it cannot be called back.');
  }
});
