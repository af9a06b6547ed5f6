import type { WebSocket } from 'ws';

export interface SocketSenderOptions {
  /** Text deltas for the same element are merged into one frame at most this often. */
  frameIntervalMs?: number;
  /** Above this many unsent bytes the socket is slow (a phone on bad Wi-Fi): keep merging instead. */
  highWaterBytes?: number;
}

/**
 * Speaks htmx's WebSocket extension: a JSON message with `target`, `swap` and `content` is
 * swapped in; one without `content` is data for chat.js. Streamed text goes as data,
 * `{"event":"append","target":"#id","text":"..."}`, which chat.js adds to the element as a text
 * node (never parsed as HTML): htmx would parse, process and settle every frame, and on a phone
 * that costs more than the text. It is batched per element, so a fast model sends a frame per
 * 16 ms, not one per token. Every frame goes through htmx's one queue, so text and swaps keep
 * their order.
 */
export function createSocketSender(socket: WebSocket, options: SocketSenderOptions = {}) {
  const frameIntervalMs = options.frameIntervalMs ?? 16;
  const highWaterBytes = options.highWaterBytes ?? 1_000_000;
  const pending = new Map<string, string>();
  let timer: NodeJS.Timeout | undefined;
  let lastFlush = Number.NEGATIVE_INFINITY;
  // A `beforeend` swap waits for the end of the current task: the next ones into the same target
  // (a user's message and the reply's placeholder are added together) join it, so the page parses
  // and inserts them once, with one round of its handlers, instead of once each.
  let heldSwap: { target: string; swap: string; content: string } | undefined;

  function send(message: object): void {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
  }

  function sendHeldSwap(): void {
    if (!heldSwap) return;
    const message = heldSwap;
    heldSwap = undefined;
    send(message);
  }

  function flush(): void {
    timer = undefined;
    // Text may be for an element the held swap makes.
    sendHeldSwap();
    if (socket.bufferedAmount > highWaterBytes) {
      timer = setTimeout(flush, frameIntervalMs * 4);
      return;
    }
    lastFlush = performance.now();
    for (const [target, text] of pending) send({ event: 'append', target, text });
    pending.clear();
  }

  return {
    swap(target: string, swap: string, content: string): void {
      // Keep order: text queued before this swap goes out first.
      if (pending.size > 0) {
        clearTimeout(timer);
        flush();
      }
      if (heldSwap && swap === 'beforeend' && heldSwap.swap === swap && heldSwap.target === target) {
        heldSwap.content += content;
        return;
      }
      sendHeldSwap();
      if (swap !== 'beforeend') return send({ target, swap, content });
      heldSwap = { target, swap, content };
      queueMicrotask(sendHeldSwap);
    },
    event(name: string, detail: Record<string, unknown> = {}): void {
      if (pending.size > 0) {
        clearTimeout(timer);
        flush();
      }
      sendHeldSwap();
      send({ event: name, ...detail });
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
      heldSwap = undefined;
    },
  };
}

export type SocketSender = ReturnType<typeof createSocketSender>;
