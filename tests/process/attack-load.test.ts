/**
 * Attacks from docs/security.md that load the server for seconds, against the real app listening
 * on a port: 1,000 password guesses during a live chat, and 10,000 fuzzed WebSocket frames. They
 * need real time and real CPU (about 11 s of CPU together), so they run in the full tier
 * (npm run test:all); the rules they rely on are checked quickly in tests/app/login-limits.test.ts,
 * tests/unit/web/chat/socket-commands.test.ts and tests/app/security.test.ts.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import WebSocket from 'ws';
import { cookieHeader, csrfTokenFrom, startChatHarness } from '../support/test-app.js';

test('1,000 wrong passwords from one address are all refused while a logged-in chat keeps streaming', async (t) => {
  const { app, baseUrl, socket, standin } = await startChatHarness(t);
  standin.enqueue({ tokens: 200, tokenText: 'tick ', tokensPerSecond: 100 });
  socket.send({ type: 'send', message: 'Stream while I am attacked' });
  await socket.waitFor((message) => String(message.content).includes('tick'));

  const page = await app.inject({ url: '/login' });
  const jar = cookieHeader(page.headers['set-cookie']);
  const token = csrfTokenFrom(page.body);
  const started = performance.now();
  const guess = (index: number) =>
    fetch(`${baseUrl}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: jar, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ password: `guess-${index}`, _csrf: token }),
    }).then((response) => response.status);
  // 100 connections at a time: 1,000 at once overflowed the listen queue on a busy machine and the
  // client gave up connecting ("fetch failed"), which says nothing about the server's limit.
  const statuses: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 100 }, async () => {
      while (next < 1000) statuses.push(await guess(next++));
    }),
  );
  const attackSeconds = (performance.now() - started) / 1000;
  const refusedByLimit = statuses.filter((status) => status === 429).length;
  assert.equal(statuses.filter((status) => status === 303).length, 0, 'no guess got in');
  assert.ok(refusedByLimit >= 990, `the limit refused ${refusedByLimit} of 1000 before bcrypt`);

  const final = await socket.waitFor((message) => message.target === '#message-2' && String(message.content).includes('data-status="complete"'), 10_000);
  assert.equal((String(final.content).match(/tick/g) ?? []).length, 200, 'the chat got every token');
  t.diagnostic(`1000 attempts in ${attackSeconds.toFixed(2)} s; ${refusedByLimit} refused by the limit, ${1000 - refusedByLimit} checked with bcrypt`);
});

function randomFrame(index: number): string | Buffer {
  const kind = index % 10;
  switch (kind) {
    case 0:
      return crypto.randomBytes(1 + (index % 300));
    case 1:
      return '['.repeat(5000) + ']'.repeat(5000);
    case 2:
      return JSON.stringify({ type: 'send', message: { nested: 'x'.repeat(index % 1000) } });
    case 3:
      return JSON.stringify({ type: `t${index}`, payload: 'x' });
    case 4:
      return '{"type":"send","message":';
    case 5:
      return JSON.stringify({ type: 'approval', toolCallId: index, decision: 'approve' });
    case 6:
      return JSON.stringify({ type: 'stop', conversationId: -index });
    case 7:
      return JSON.stringify({ type: 'send', message: 'x', conversationId: String(10_000_000 + index) });
    case 8:
      return JSON.stringify({ type: '__proto__', constructor: { prototype: { polluted: true } } });
    default:
      return JSON.stringify(null);
  }
}

test('10,000 fuzzed WebSocket frames: the server stays up, memory stays bounded, another chat is unaffected', async (t) => {
  const { cookies, baseUrl, socket: victim, standin, store } = await startChatHarness(t);
  standin.enqueue({ tokens: 300, tokenText: 'calm ', tokensPerSecond: 150 });
  victim.send({ type: 'send', message: 'A normal chat' });
  await victim.waitFor((message) => String(message.content).includes('calm'));

  const heapBefore = process.memoryUsage().heapUsed;
  let framesSent = 0;
  for (let connection = 0; connection < 10; connection += 1) {
    const attacker = new WebSocket(`${baseUrl.replace('http', 'ws')}/ws`, { headers: { cookie: cookies, origin: baseUrl } });
    await new Promise((resolve, reject) => {
      attacker.once('open', resolve);
      attacker.once('error', reject);
    });
    attacker.on('message', () => undefined);
    for (let frame = 0; frame < 1000; frame += 1) {
      attacker.send(randomFrame(framesSent));
      framesSent += 1;
    }
    await new Promise((resolve) => {
      attacker.once('close', resolve);
      setTimeout(() => attacker.close(), 200);
    });
  }
  assert.equal(framesSent, 10_000);
  assert.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype pollution');

  const final = await victim.waitFor((message) => message.target === '#message-2' && String(message.content).includes('data-status="complete"'), 15_000);
  assert.equal((String(final.content).match(/calm/g) ?? []).length, 300, 'the other chat got every token');
  const heapGrowth = (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024;
  assert.ok(heapGrowth < 100, `heap grew ${heapGrowth.toFixed(1)} MB`);
  assert.equal(store.listConversations(100).length, 1, 'no conversation was made from junk');
  assert.equal((await fetch(`${baseUrl}/healthz`)).status, 200);
  t.diagnostic(`10000 frames; heap growth ${heapGrowth.toFixed(1)} MB`);
});
