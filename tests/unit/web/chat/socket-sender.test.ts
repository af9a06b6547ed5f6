/**
 * The socket sender: HTML goes as frames of `<hx-partial>`s, swaps made together in one frame;
 * streamed text goes as `append` data frames (text, never HTML), merged per element into one
 * frame per interval, and always before a swap or event that follows it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WebSocket } from 'ws';
import { createSocketSender } from '../../../../src/web/chat/socket-sender.js';
import { readFrame } from '../../../support/socket-frames.js';

/** Each frame read as the page reads it: one object, or (an HTML frame of several partials) a list of them. */
type Frame = Record<string, unknown> | Array<Record<string, unknown>>;

/** Just what the sender uses of a ws WebSocket: records every frame it is given. */
function recordingSocket(): { socket: WebSocket; frames: () => Frame[]; raw: string[] } {
  const raw: string[] = [];
  const socket = { OPEN: 1, readyState: 1, bufferedAmount: 0, send: (data: string) => raw.push(data) };
  return { socket: socket as unknown as WebSocket, raw, frames: () => raw.map((data): Frame => {
    const read = readFrame(data);
    return read.length === 1 ? read[0]! : read;
  }) };
}

test('streamed text goes as an append data frame with the text as it is, not escaped HTML', () => {
  const { socket, frames, raw } = recordingSocket();
  const sender = createSocketSender(socket, { frameIntervalMs: 10_000 });
  sender.appendText('#message-2-body', 'a <b>bold</b> & "quoted" ');
  // The first text of a reply goes out at once (nothing was sent in the last interval).
  assert.deepEqual(frames(), [{ event: 'append', target: '#message-2-body', text: 'a <b>bold</b> & "quoted" ' }]);
  assert.doesNotThrow(() => JSON.parse(raw[0]!), 'a data frame is JSON');
  assert.ok(!('content' in frames()[0]!), 'htmx swaps only frames with content: this one it leaves to chat.js');
  sender.close();
});

test('text queued for the next frame is sent before a swap or an event that comes after it', () => {
  const { socket, frames, raw } = recordingSocket();
  const sender = createSocketSender(socket, { frameIntervalMs: 10_000 });
  sender.appendText('#message-2-body', 'one ');
  sender.appendText('#message-2-body', 'two ');
  sender.appendText('#message-2-thinking', 'hmm ');
  sender.appendText('#message-2-body', 'three');
  sender.swap('#message-2', 'outerHTML', '<article id="message-2">final</article>');
  sender.appendText('#message-3-body', 'next');
  sender.event('reply-finished', { conversationId: 1 });
  assert.equal(raw[3], '<hx-partial hx-target="#message-2" hx-swap="outerHTML"><article id="message-2">final</article></hx-partial>', 'HTML goes as HTML');
  assert.deepEqual(frames(), [
    { event: 'append', target: '#message-2-body', text: 'one ' },
    // Merged per element while the interval runs, then flushed ahead of the swap.
    { event: 'append', target: '#message-2-body', text: 'two three' },
    { event: 'append', target: '#message-2-thinking', text: 'hmm ' },
    { target: '#message-2', swap: 'outerHTML', content: '<article id="message-2">final</article>' },
    { event: 'append', target: '#message-3-body', text: 'next' },
    { event: 'reply-finished', conversationId: 1 },
  ]);
  sender.close();
});

test('text that arrives within one interval goes out as one frame when the interval ends', async () => {
  const { socket, frames } = recordingSocket();
  const sender = createSocketSender(socket, { frameIntervalMs: 30 });
  sender.appendText('#message-2-body', 'first ');
  for (const word of ['a ', 'b ', 'c ']) sender.appendText('#message-2-body', word);
  assert.equal(frames().length, 1, 'the rest waits for the interval');
  await new Promise((resolve) => setTimeout(resolve, 80));
  assert.deepEqual(frames().map((frame) => (frame as Record<string, unknown>).text), ['first ', 'a b c ']);
  sender.close();
});

test('swaps made in one go reach the page as one frame (one partial per target), still in order with text and events', async () => {
  const { socket, frames } = recordingSocket();
  const sender = createSocketSender(socket, { frameIntervalMs: 10_000 });
  sender.event('message-accepted', { conversationId: 1 });
  sender.swap('#chat-thread', 'beforeend', '<article id="message-1">you</article>');
  sender.swap('#chat-thread', 'beforeend', '<article id="message-2"></article>');
  // Text for the second message must follow the swap that makes it.
  sender.appendText('#message-2-body', 'Hello');
  sender.swap('#history-list', 'afterbegin', '<li>chat</li>');
  sender.swap('#chat-thread', 'beforeend', '<p>notice</p>');
  assert.equal(frames().length, 3, 'the swaps after the text wait for the end of the task');
  await Promise.resolve();
  assert.deepEqual(frames(), [
    { event: 'message-accepted', conversationId: 1 },
    { target: '#chat-thread', swap: 'beforeend', content: '<article id="message-1">you</article><article id="message-2"></article>' },
    { event: 'append', target: '#message-2-body', text: 'Hello' },
    [
      { target: '#history-list', swap: 'afterbegin', content: '<li>chat</li>' },
      { target: '#chat-thread', swap: 'beforeend', content: '<p>notice</p>' },
    ],
  ]);
  sender.close();
});
