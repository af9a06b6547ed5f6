/**
 * Gmail and Calendar are offered only when they can work: the model is told of them, find_tools
 * finds them and the chat suggests mail and calendar only while a Google account is connected;
 * /tools says each account's state and how to connect one, in plain words.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { buildTestApp, startChatHarness, type TestApp } from '../support/test-app.js';

const googleTools = ['search_emails', 'read_email', 'create_draft', 'list_events', 'find_free_time', 'list_email_accounts'];

function connectAccount(harness: Pick<TestApp, 'config'>, account: string, tokens: Record<string, unknown> = { refresh_token: 'a-refresh-token', access_token: 'x' }): void {
  fs.mkdirSync(harness.config.tokensDir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(harness.config.tokensDir, `${account}.json`), JSON.stringify(tokens), { mode: 0o600 });
}

function starterPrompts(html: string): string[] {
  return [...html.matchAll(/class="button chat-example"[^>]*>([^<]+)</g)].map((match) => match[1]!);
}

test('without a Google account the model is not offered Gmail or Calendar, and the chat does not suggest them', async (t) => {
  const harness = await startChatHarness(t);
  const page = await harness.app.inject({ url: '/', headers: { cookie: harness.cookies } });
  const starters = starterPrompts(page.body);
  assert.equal(starters.length, 4);
  assert.ok(!starters.some((text) => /mail|calendar/i.test(text)), `starters: ${starters.join(' | ')}`);

  harness.standin.enqueue({ content: '[TOOL:find_tools]email inbox calendar events[/TOOL]' }, { content: 'Nothing for mail here.' });
  harness.socket.send({ type: 'send', message: 'Check my mail', conversationId: '', model: 'llama3.2:latest' });
  await harness.turnFinished();
  const system = harness.standin.requests[0]!.messages[0]!.content;
  assert.match(system, /calculator/, 'the tools that work are offered');
  for (const name of googleTools) assert.doesNotMatch(system, new RegExp(name), `${name} is not in the system prompt`);
  const found = harness.standin.requests[1]!.messages.at(-1)!.content;
  for (const name of googleTools) assert.doesNotMatch(found, new RegExp(name), `find_tools does not offer ${name}`);
});

test('with a connected account the model is offered Gmail and Calendar and the chat suggests them', async (t) => {
  const harness = await startChatHarness(t);
  connectAccount(harness, 'sam@example.com');
  const page = await harness.app.inject({ url: '/', headers: { cookie: harness.cookies } });
  assert.deepEqual(starterPrompts(page.body).slice(0, 2), ["What&#39;s on my calendar this week?", 'Search my email for…']);
  harness.socket.send({ type: 'send', message: 'Hello', conversationId: '', model: 'llama3.2:latest' });
  await harness.turnFinished();
  const system = harness.standin.requests[0]!.messages[0]!.content;
  for (const name of ['search_emails', 'list_events']) assert.match(system, new RegExp(name));
});

test('a Gmail call made anyway without an account says why on its card in plain words, not the model\'s instructions', async (t) => {
  const harness = await startChatHarness(t);
  harness.standin.enqueue({ content: '[TOOL:search_emails]is:unread[/TOOL]' }, { content: 'I cannot read mail here.' });
  harness.socket.send({ type: 'send', message: 'Any new mail?', conversationId: '', model: 'llama3.2:latest' });
  await harness.turnFinished();
  const call = harness.toolCalls.listForConversation(1)[0]!;
  assert.equal(call.status, 'failed');
  assert.match(harness.standin.requests[1]!.messages.at(-1)!.content, /npm run auth:gmail/, 'the model is told what the person can do');
  const page = await harness.app.inject({ url: '/c/1', headers: { cookie: harness.cookies } });
  const headline = /class="tool-call-status tool-call-summary"[^>]*>([^<]+)</.exec(page.body)?.[1];
  assert.equal(headline, 'Could not search your email: no Google account is connected yet (the Tools page says how to connect one)');
});

test('/tools says whether a Google account is connected, which needs connecting again, and how to connect one', async (t) => {
  const harness = await buildTestApp(t);
  const cookies = await harness.login();
  const tools = async () => (await harness.app.inject({ url: '/tools', headers: { cookie: cookies } })).body;

  const none = await tools();
  assert.match(none, /id="google-accounts"/);
  assert.match(none, /class="google-account-none" data-state="none">No Google account is connected/);
  assert.match(none, /open a terminal in the Hearth folder and run <code>npm run auth:gmail<\/code>/);

  connectAccount(harness, 'sam@example.com');
  connectAccount(harness, 'kim@example.com', { access_token: 'no refresh token' });
  const some = await tools();
  assert.doesNotMatch(some, /google-account-none/);
  assert.match(some, /data-state="connected">\s*<div class="tool-item-head"><span class="tool-item-name">sam@example\.com<\/span>/);
  assert.match(some, /data-state="needs-reauthorization">\s*<div class="tool-item-head"><span class="tool-item-name">kim@example\.com<\/span>/);
  assert.match(some, /run <code>npm run auth:gmail -- kim@example\.com<\/code>/);
  assert.match(some, /To connect another account/);
});
