import type { WebSocket } from 'ws';
import { escapeAttribute } from '../../engine/markdown/render-markdown.js';

export interface SocketSenderOptions {
  /** Text deltas for the same element are merged into one frame at most this often (a phone lays text out at most 20 times a second). */
  frameIntervalMs?: number;
  /** Above this many unsent bytes the socket is slow (a phone on bad Wi-Fi): keep merging instead. */
  highWaterBytes?: number;
}

/**
 * Speaks htmx's WebSocket extension. HTML goes as HTML: a frame of `<hx-partial hx-target
 * hx-swap>` elements, each swapped by htmx into its own target (the page's socket element itself
 * is never a target). Data goes as JSON without `content`, which htmx leaves to the page's one
 * dispatcher (public/chat.js): `{"event": …}`. Streamed text is data too,
 * `{"event":"append","target":"#id","text":"..."}`, added to the element as a text node (never
 * parsed as HTML): htmx would parse, process and settle every frame, and on a phone that costs
 * more than the text. It is batched per element, so a fast model sends a frame per 50 ms, not
 * one per token. Every frame goes through htmx's one queue, so text and swaps keep their order.
 */
/** How often streamed text for one element goes out, at most, unless told otherwise. */
export const textFrameIntervalMs = 50;

export function createSocketSender(socket: WebSocket, options: SocketSenderOptions = {}) {
  const frameIntervalMs = options.frameIntervalMs ?? textFrameIntervalMs;
  const highWaterBytes = options.highWaterBytes ?? 1_000_000;
  const pending = new Map<string, string>();
  let timer: NodeJS.Timeout | undefined;
  let lastFlush = Number.NEGATIVE_INFINITY;
  // Swaps wait for the end of the current task: the ones made together (a user's message and the
  // reply's placeholder, a new chat's sidebar item) go as one frame, so the page parses and
  // inserts them once, with one round of its handlers, instead of once each. Consecutive
  // `beforeend` swaps into the same target are one partial.
  const held: Array<{ target: string; swap: string; content: string }> = [];

  function send(frame: string): void {
    if (socket.readyState === socket.OPEN) socket.send(frame);
  }

  function sendHeld(): void {
    if (held.length === 0) return;
    const partials = held.map(({ target, swap, content }) => `<hx-partial hx-target="${escapeAttribute(target)}" hx-swap="${escapeAttribute(swap)}">${content}</hx-partial>`);
    held.length = 0;
    send(partials.join(''));
  }

  function flush(): void {
    timer = undefined;
    // Text may be for an element a held swap makes.
    sendHeld();
    if (socket.bufferedAmount > highWaterBytes) {
      timer = setTimeout(flush, frameIntervalMs * 4);
      return;
    }
    lastFlush = performance.now();
    for (const [target, text] of pending) send(JSON.stringify({ event: 'append', target, text }));
    pending.clear();
  }

  /** Text queued before a swap or an event goes out first. */
  function flushText(): void {
    if (pending.size === 0) return;
    clearTimeout(timer);
    flush();
  }

  return {
    swap(target: string, swap: string, content: string): void {
      flushText();
      const last = held.at(-1);
      if (last && swap === 'beforeend' && last.swap === swap && last.target === target) {
        last.content += content;
        return;
      }
      if (held.length === 0) queueMicrotask(sendHeld);
      held.push({ target, swap, content });
    },
    event(name: string, detail: Record<string, unknown> = {}): void {
      flushText();
      sendHeld();
      send(JSON.stringify({ event: name, ...detail }));
    },
    appendText(target: string, text: string): void {
      if (!text) return;
      pending.set(target, (pending.get(target) ?? '') + text);
      if (timer) return;
      const wait = frameIntervalMs - (performance.now() - lastFlush);
      if (wait <= 0) flush();
      else timer = setTimeout(flush, wait);
    },
    close(): void {
      clearTimeout(timer);
      pending.clear();
      held.length = 0;
    },
  };
}

export type SocketSender = ReturnType<typeof createSocketSender>;
