import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cookieHeader, csrfTokenFrom, startChatHarness } from './support/test-app.js';
import { createTestRegistry, testToolServices } from './support/test-tools.js';


test('the tools page lists every tool, shows "Always allow" ticks, and revoking one makes the tool ask again', async (t) => {
  const services = testToolServices(() => new Date('2026-11-22T10:00:00Z'));
  const { registry, sendNote } = createTestRegistry(services);
  const { app, cookies, socket, standin, toolCalls, turnFinished } = await startChatHarness(t, { dependencies: { registry } });

  let page = await app.inject({ method: 'GET', url: '/tools', headers: { cookie: cookies } });
  assert.equal(page.statusCode, 200);
  for (const tool of registry.all) assert.match(page.body, new RegExp(`id="tool-${tool.name}"`), `${tool.name} is listed`);
  assert.match(page.body, /id="tool-send_note"[\s\S]*?Asks you before it acts\./);
  assert.match(page.body, /id="tool-calculator"[\s\S]*?Runs without asking: it only reads\./);
  assert.doesNotMatch(page.body, /class="button tool-revoke"/, 'nothing to revoke yet');

  // The person ticks "Always allow" on an approval card.
  standin.enqueue({ content: '[TOOL:send_note]one[/TOOL]' }, { content: 'Sent.' });
  socket.send({ type: 'send', message: 'Send one' });
  await socket.waitFor((message) => String(message.content).includes('data-status="awaiting-approval"'));
  socket.send({ type: 'approval', toolCallId: String(toolCalls.listForConversation(1)[0]!.id), decision: 'approve', always: 'yes' });
  await turnFinished();

  page = await app.inject({ method: 'GET', url: '/tools', headers: { cookie: cookies } });
  assert.match(page.body, /id="tool-send_note"[\s\S]*?Runs without asking: you chose &quot;Always allow&quot;\.[\s\S]*?class="button tool-revoke"/);
  const revoked = await app.inject({
    method: 'POST',
    url: '/tools/revoke',
    headers: { cookie: cookieHeader(page.headers['set-cookie'], cookies) },
    payload: { tool: 'send_note', _csrf: csrfTokenFrom(page.body) },
  });
  assert.equal(revoked.statusCode, 303);
  page = await app.inject({ method: 'GET', url: revoked.headers.location as string, headers: { cookie: cookies } });
  assert.match(page.body, /send_note will ask you before it acts again\./);
  assert.match(page.body, /id="tool-send_note"[\s\S]*?Asks you before it acts\./);

  socket.messages.length = 0;
  standin.enqueue({ content: '[TOOL:send_note]two[/TOOL]' }, { content: 'Sent.' });
  socket.send({ type: 'send', message: 'Send two', conversationId: '1' });
  await socket.waitFor((message) => String(message.content).includes('data-status="awaiting-approval"'));
  assert.deepEqual(sendNote.sent, ['one'], 'the revoked tool waits for approval again');
});

test('the tools page can let an acting tool run without asking', async (t) => {
  const { registry, sendNote } = createTestRegistry(testToolServices());
  const { app, cookies, socket, standin, turnFinished } = await startChatHarness(t, { dependencies: { registry } });
  const page = await app.inject({ method: 'GET', url: '/tools', headers: { cookie: cookies } });
  assert.match(page.body, /id="tool-send_note"[\s\S]*?class="button tool-allow"/);
  const calculatorItem = /<li class="tool-item" id="tool-calculator"[\s\S]*?<\/li>/.exec(page.body)![0];
  assert.doesNotMatch(calculatorItem, /tool-allow/, 'no button for a tool that only reads');
  const allowed = await app.inject({
    method: 'POST',
    url: '/tools/allow',
    headers: { cookie: cookieHeader(page.headers['set-cookie'], cookies) },
    payload: { tool: 'send_note', _csrf: csrfTokenFrom(page.body) },
  });
  assert.equal(allowed.statusCode, 303);
  standin.enqueue({ content: '[TOOL:send_note]hi[/TOOL]' }, { content: 'Sent.' });
  socket.send({ type: 'send', message: 'Send hi' });
  await turnFinished();
  assert.deepEqual(sendNote.sent, ['hi'], 'ran without an approval card');
});

test('revoking a tool that was never allowed says so; the page needs a login', async (t) => {
  const { app, cookies } = await startChatHarness(t);
  const page = await app.inject({ method: 'GET', url: '/tools', headers: { cookie: cookies } });
  const response = await app.inject({
    method: 'POST',
    url: '/tools/revoke',
    headers: { cookie: cookieHeader(page.headers['set-cookie'], cookies) },
    payload: { tool: 'calculator', _csrf: csrfTokenFrom(page.body) },
  });
  assert.equal(response.statusCode, 404);
  assert.match(response.body, /&quot;calculator&quot; was not set to run without asking/);
  const anonymous = await app.inject({ method: 'GET', url: '/tools' });
  assert.equal(anonymous.statusCode, 302);
  assert.equal(anonymous.headers.location, '/login?next=%2Ftools');
});
