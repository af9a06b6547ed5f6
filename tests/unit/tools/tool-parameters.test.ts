/*
 * Each tool's parameters (a JSON Schema object) say what it really takes: the schema is valid
 * JSON Schema, arguments that fit it are understood when sent as a JSON object, every property
 * it names is one the tool reads, and arguments that break it are refused by the schema.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { FindToolsTool } from '../../../src/engine/tools/find-tools-tool.js';
import { loadTools } from '../../../src/engine/tools/tool-registry.js';
import { createMemoryFile } from '../../../src/providers/memory/memory-file.js';
import { MemoryUpdateTool } from '../../../src/providers/memory/memory-update-tool.js';
import { openDatabase } from '../../../src/storage/database.js';
import { searxngEngine } from '../../../src/providers/web/search-engines.js';
import { createWebServices } from '../../../src/providers/web/web-services.js';
import { account, startGoogleHarness } from '../../support/google-setup.js';
import { standinHost, startWebStandin } from '../../support/web-standin.js';

/** The tools/ folder the server loads. */
// Beside this file's src/ (as services.ts finds it), so compiled tests load the compiled tools.
const toolsFolder = fileURLToPath(new URL('../../../tools/', import.meta.url));

// Strict: a misspelt keyword or a wrong type name in a schema is an error, not ignored (except
// `required` inside anyOf, which names properties defined beside it: create_draft's "to or reply_to").
const ajv = new Ajv({ strict: true, strictRequired: false, allErrors: true, formats: { email: /^[^\s@]+@[^\s@]+$/ } });

/** Arguments per tool, and what its answer to them must show. Together they use every property. */
const calls: Record<string, [Record<string, unknown>, RegExp][]> = {
  calculator: [[{ expression: '6 * (3 + 4)' }, /^6 \* \(3 \+ 4\) = 42$/]],
  current_time: [[{ timezone: 'Asia/Tokyo' }, /\(time zone Asia\/Tokyo\)$/]],
  search_emails: [[{ query: 'from:school', account, max: 1 }, /^1 message for "from:school", newest first:\n18c2f0a1b2c3d4e5 \|/]],
  read_email: [[{ id: '18c2f0a1b2c3d4e6', account }, /^Account: sam@example\.com\nId: 18c2f0a1b2c3d4e6\n.*\nSubject: Winter tips/s]],
  create_draft: [
    [{ to: 'anna@example.com', cc: 'bo@example.com', subject: 'Saturday', body: 'See you at 10!', account }, /^Draft saved in sam@example\.com \(draft id [^)]+\); it was NOT sent\. To: anna@example\.com \| Subject: Saturday\./],
    [{ reply_to: '18c2f0a1b2c3d4e5', body: "We'll come." }, /as a reply in the thread of message 18c2f0a1b2c3d4e5 .*Subject: Re: Trip on Friday/],
  ],
  list_email_accounts: [[{}, /^Authorized Google accounts:\n- sam@example\.com$/]],
  create_event: [
    [
      { title: 'Lunch', start: '2026-11-27 13:00', end: '14:00', location: 'Café', description: 'Bring cake', guests: 'bo@example.com', reminders: '10 min', calendar: 'primary', account },
      /^Event saved \(id [^)]+\): Lunch\nWhen: Fri 27 Nov 2026, 13:00–14:00 \(Europe\/Paris\)\n.*\nWhere: Café\nGuests .*: bo@example\.com\nReminders: 10 min before\nNotes: Bring cake$/,
    ],
    [{ title: 'Trip', start: '2026-11-28 09:00', duration: '2 days', all_day: true }, /When: Sat 28 Nov 2026 – Sun 29 Nov 2026, all day/],
  ],
  send_email: [[{ to: 'anna@example.com', cc: 'bo@example.com', subject: 'Saturday', body: 'See you at 10!', account }, /^Sent from sam@example\.com \(message id sent\d+\)\. To: anna@example\.com \| Subject: Saturday$/]],
  reply_email: [
    [
      { reply_to: '18c2f0a1b2c3d4e5', reply_all: true, body: "We'll come.", to: 'office@school.example', cc: 'bo@example.com', account },
      /^Reply sent from sam@example\.com in the thread of the message \(message id sent\d+\)\. To: office@school\.example \| Cc: bo@example\.com \| Subject: Re: Trip on Friday$/,
    ],
  ],
  list_labels: [[{ account }, /^Labels of sam@example\.com:\n- School$/]],
  list_calendars: [[{ account }, /^Calendars of sam@example\.com:\n- sam@example\.com \(main\), Europe\/Paris$/]],
  sort_email: [
    [{ action: 'add_label', label: 'School', ids: '18c2f0a1b2c3d4e6', account }, /^Add the label "School": 1 message done\.\n18c2f0a1b2c3d4e6 \| "Winter tips" from Garden News/],
  ],
  delete_event: [
    [{ title: 'Lunch', date: '2026-11-27', which: 'this', calendar: 'primary', account }, /^Deleted "Lunch" \(Fri 27 Nov 2026, 13:00–14:00 \(Europe\/Paris\)\) from sam@example\.com\.$/],
    [{ id: 'party1' }, /^Deleted "Party" /],
  ],
  // An optician's visit, create_event's trip, and a picnic by its id.
  update_event: [
    [
      { title: 'Optician', date: '2026-11-24', which: 'this', new_title: 'Optician (check-up)', start: '2026-11-25 10:00', end: '11:30', location: 'Smile Clinic', description: 'Bring the card', guests: 'bo@example.com', calendar: 'primary', account },
      /^Event changed \(id optician1\): Optician \(check-up\)\nWhen: Wed 25 Nov 2026, 10:00–11:30 \(Europe\/Paris\)\n.*\nWhere: Smile Clinic\nGuests: bo@example\.com\nNotes: Bring the card\nChanged: title, time, place, notes, guests\. Google e-mailed the change to bo@example\.com\.$/,
    ],
    [{ title: 'Trip', date: '2026-11-28', duration: '3 days', all_day: true }, /When: Sat 28 Nov 2026 – Mon 30 Nov 2026, all day/],
    [{ id: 'picnic1', start: '2026-12-06 12:00' }, /^Event changed \(id picnic1\): Picnic\nWhen: Sun 6 Dec 2026, 12:00–13:00 \(Europe\/Paris\)/],
  ],
  forward_email: [[{ forward: '18c2f0a1b2c3d4e5', to: 'anna@example.com', cc: 'bo@example.com', body: 'FYI', account }, /^Forwarded from sam@example\.com \(message id sent\d+\)\. To: anna@example\.com \| Subject: Fwd: Trip on Friday$/]],
  // The draft create_draft saved above (tools run in file order: create-draft before send-draft).
  send_draft: [[{ id: 'r-draft-1', account }, /^Draft r-draft-1 sent from sam@example\.com \(message id sent\d+\)\. To: anna@example\.com \| Subject: Saturday$/]],
  quick_add_event: [[{ text: 'Dentist tuesday 4pm', calendar: 'primary', account }, /^Event saved \(id [^)]+\): Dentist\nWhen: Tue 24 Nov 2026, 16:00–17:00 \(Europe\/Paris\)/]],
  list_events: [
    [{ when: 'tomorrow', account }, /^Events Tue 24 Nov 2026 \(times in Europe\/Paris\) in sam@example\.com:/],
    [{ date: '2026-11-25', to: '2026-11-26' }, /^Events Wed 25 Nov 2026 – Thu 26 Nov 2026 /],
    [{ date: '2026-11-25', days: 3 }, /^Events Wed 25 Nov 2026 – Fri 27 Nov 2026 /],
    [{ when: 'this week', calendar: 'primary', q: 'dentist' }, /^Events Mon 23 Nov 2026 – Sun 29 Nov 2026 /],
  ],
  find_free_time: [
    [{ when: 'tomorrow', duration: '1.5h', hours: '10:00-16:00' }, /^Free time of at least 90 min between 10:00 and 16:00, Tue 24 Nov 2026 .*\nTue 24 Nov 2026: 10:00–16:00$/],
    [{ date: '2026-11-24', to: '2026-11-25', account }, /^Free time of at least 30 min between 09:00 and 18:00, Tue 24 Nov 2026 – Wed 25 Nov 2026 \(Europe\/Paris\), from sam@example\.com:/],
    [{ date: '2026-11-24', days: 3 }, /, Tue 24 Nov 2026 – Thu 26 Nov 2026 /],
  ],
  find_tools: [[{ query: 'arithmetic' }, /^- calculator: Exact arithmetic/]],
  memory_update: [[{ content: '- likes tea\n- lives in Leeds' }, /^Memory updated \(28 of 2048 bytes\)\.$/]],
  web_search: [[{ query: 'hedgehogs' }, /^Results for "hedgehogs" \(from SearXNG at [^)]+\):\n1\. Hedgehog highways/]],
  // Its address is the web stand-in's, set once it listens.
  read_web_page: [],
};

/** Arguments the schema must refuse: a later native tool call is checked against it. */
const refused: Record<string, Record<string, unknown>> = {
  calculator: {},
  search_emails: { max: 26 },
  read_email: { id: 'not an id!' },
  create_draft: { to: 'anna@example.com' },
  create_event: { title: 'No start' },
  quick_add_event: { text: 3 },
  send_email: { body: 'No recipient' },
  delete_event: { which: 'this' },
  update_event: { which: 'series', start: '10:00' },
  send_draft: { id: 'has spaces' },
  forward_email: { forward: '18c2f0a1b2c3d4e5', body: 'no recipient' },
  sort_email: { action: 'delete_forever', ids: '18c2f0a1b2c3d4e6' },
  list_labels: { account: 'not an address' },
  reply_email: { reply_to: 'not an id!', body: 'x' },
  list_events: { days: 0 },
  find_tools: { query: 3 },
  memory_update: { content: 'x', extra: true },
  web_search: { query: 3 },
  read_web_page: {},
};

test('every tool\'s parameters are valid JSON Schema that its real arguments fit, and each is understood as JSON', async (t) => {
  const google = await startGoogleHarness(t);
  const webStandin = await startWebStandin();
  t.after(() => webStandin.close());
  // The web tools read the local web stand-in (allowed as a home wiki would be), never the internet.
  google.services.web = createWebServices({ enabled: true, addresses: { allowHosts: [standinHost] }, engine: searxngEngine(`http://127.0.0.1:${webStandin.port}`), resolver: webStandin.resolver });
  t.after(() => google.services.web.close());
  calls.read_web_page = [[{ url: `${webStandin.origin}/article` }, /^Title: Hedgehogs return to city gardens\nAddress: http:\/\/news\.example:\d+\/article\n\nParagraph 1/]];
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-parameters-'));
  const database = openDatabase(directory);
  t.after(() => {
    database.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });
  // delete_event finds one by id; its other row deletes the lunch create_event saved. update_event changes one by id.
  google.standin.accounts.get(account)!.events.push(
    { id: 'party1', summary: 'Party', start: { date: '2026-12-05' }, end: { date: '2026-12-06' } },
    { id: 'picnic1', summary: 'Picnic', start: { date: '2026-12-06' }, end: { date: '2026-12-07' } },
    { id: 'optician1', summary: 'Optician', start: { dateTime: '2026-11-24T16:00:00+01:00' }, end: { dateTime: '2026-11-24T17:00:00+01:00' } },
  );
  const registry = await loadTools(toolsFolder, google.services);
  registry.add(new FindToolsTool(google.services, registry));
  const memory = createMemoryFile({ file: path.join(directory, 'memory.md'), maxBytes: 2048, database });
  const memoryTool = new MemoryUpdateTool(google.services, memory);
  registry.add(memoryTool);
  const tools = [...registry.all, registry.forTag('memory')!];
  // A memory update replaces the revision the model saw.
  const run = async (tool: (typeof tools)[number], params: string) =>
    tool === memoryTool
      ? String(await tool.run(params, { signal: new AbortController().signal, conversationId: 1, turn: { memoryRevision: (await memory.read()).revision, vision: false }, reportProgress: () => {} }))
      : google.run(tool, params);
  assert.deepEqual(tools.map((tool) => tool.name).sort(), Object.keys(calls).sort(), 'a table row for every tool');

  for (const tool of tools) {
    const { parameters } = tool;
    assert.equal(parameters.type, 'object', tool.name);
    const validate = ajv.compile(parameters);
    for (const name of parameters.required ?? []) assert.ok(parameters.properties[name], `${tool.name}: required "${name}" is a property`);
    for (const [name, property] of Object.entries(parameters.properties)) assert.ok(property.type && property.description, `${tool.name}.${name} has a type and a description`);

    const used = new Set<string>();
    for (const [args, expected] of calls[tool.name]!) {
      assert.ok(validate(args), `${tool.name} ${JSON.stringify(args)} fits: ${ajv.errorsText(validate.errors)}`);
      Object.keys(args).forEach((key) => used.add(key));
      const output = await run(tool, JSON.stringify(args));
      assert.match(output, expected, `${tool.name} ${JSON.stringify(args)}`);
    }
    assert.deepEqual([...used].sort(), Object.keys(parameters.properties).sort(), `${tool.name}: every property is tried`);
    if (refused[tool.name]) assert.equal(validate(refused[tool.name]), false, `${tool.name} refuses ${JSON.stringify(refused[tool.name])}`);
  }
  assert.equal(fs.readFileSync(memory.file, 'utf8'), '- likes tea\n- lives in Leeds', 'the memory is the content, not the JSON around it');
});

test('free-text params still work beside the named arguments', async (t) => {
  const google = await startGoogleHarness(t);
  const registry = await loadTools(toolsFolder, google.services);
  registry.add(new FindToolsTool(google.services, registry));
  assert.equal(await google.run(registry.find('calculator')!, '2 + 2'), '2 + 2 = 4');
  assert.match(await google.run(registry.find('find_tools')!, 'calendar events'), /^- list_events: /m);
  assert.match(await google.run(registry.find('search_emails')!, 'from:school'), /^1 message for "from:school"/);
});
