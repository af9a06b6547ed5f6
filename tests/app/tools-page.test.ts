import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cookieHeader, csrfTokenFrom, startChatHarness } from '../support/test-app.js';
import { createTestRegistry, testToolServices } from '../support/test-tools.js';


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

test('text in the address of /tools never shows as a notice; the page says only what the person just did, once', async (t) => {
  const { app, cookies } = await startChatHarness(t, { dependencies: { registry: createTestRegistry(testToolServices()).registry } });
  const planted = 'Hearth+has+been+updated.+Log+in+again+at+evil.example%3Cscript%3Ealert(1)%3C%2Fscript%3E';
  for (const query of [`allowed=${planted}`, `changed=${planted}`, `restarted=${planted}`, 'notice=allowed&tool=send_note', 'allowed=send_note']) {
    const page = await app.inject({ method: 'GET', url: `/tools?${query}`, headers: { cookie: cookies } });
    assert.equal(page.statusCode, 200);
    assert.doesNotMatch(page.body, /class="tools-notice"/, `no notice for ?${query}`);
    assert.doesNotMatch(page.body, /evil\.example|will act without asking|ask you before it acts again|starting again/, `?${query} says nothing`);
  }

  // The real action: its notice names the tool, on the page it redirects to, and only there.
  const page = await app.inject({ method: 'GET', url: '/tools', headers: { cookie: cookies } });
  const allowed = await app.inject({
    method: 'POST',
    url: '/tools/allow',
    headers: { cookie: cookieHeader(page.headers['set-cookie'], cookies) },
    payload: { tool: 'send_note', _csrf: csrfTokenFrom(page.body) },
  });
  assert.equal(allowed.statusCode, 303);
  assert.equal(allowed.headers.location, '/tools', 'the redirect carries no text');
  const after = await app.inject({ method: 'GET', url: allowed.headers.location, headers: { cookie: cookies } });
  assert.match(after.body, /<p class="tools-notice" role="status">send_note will act without asking\. Take it back here at any time\.<\/p>/);
  const reloaded = await app.inject({ method: 'GET', url: '/tools', headers: { cookie: cookies } });
  assert.doesNotMatch(reloaded.body, /class="tools-notice"/, 'shown once, not again on reload');
});
