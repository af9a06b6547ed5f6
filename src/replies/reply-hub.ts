/*
 * Replies run apart from any socket: a phone that sleeps or a page that reloads only
 * unsubscribes and subscribes again; the reply goes on and is picked up where it is.
 */

export type ReplyEvent =
  | { type: 'delta'; messageId: number; content: string; thinking: string }
  /**
   * Finished blocks of the streaming message were formatted: their HTML, and the text after them
   * (the open block, still shown as text).
   */
  | { type: 'blocks-formatted'; messageId: number; html: string; tail: string }
  /** A message was added to the conversation (a user message, a new assistant round, a tool card). */
  | { type: 'message-added'; messageId: number }
  /** A message changed as a whole (finished, stopped, failed): render it again. */
  | { type: 'message-updated'; messageId: number }
  | { type: 'tool-call-added'; messageId: number; toolCallId: number }
  | { type: 'tool-call-updated'; toolCallId: number }
  | { type: 'notice'; text: string }
  /**
   * Messages were hidden or shown (an edit, a regeneration, another version): render the thread
   * again, around `fromId` when the change happened there (a version of an older message).
   */
  | { type: 'thread-changed'; fromId?: number }
  /** A turn began: Stop is on screen until reply-finished, through its tool rounds and approval waits. */
  | { type: 'reply-started' }
  | { type: 'reply-finished' }
  /** The chat was named by its model after its first reply (chat-titles.ts): sidebar and header show the new title. */
  | { type: 'title-changed'; title: string };

export interface ActiveReply {
  conversationId: number;
  /** The assistant message being written right now. */
  messageId: number;
  content: string;
  thinking: string;
  /** The formatted blocks of `content` so far: their HTML, and where in the text they end. */
  formatted: { readonly html: string; readonly end: number };
  /** `shutdown`: the server is stopping, not the person; the reply is saved as cut off, not as stopped. */
  stop(reason?: 'shutdown'): void;
}

type Listener = (event: ReplyEvent) => void;

export class ReplyHub {
  readonly #replies = new Map<number, ActiveReply>();
  readonly #listeners = new Map<number, Set<Listener>>();
  readonly #running = new Set<Promise<unknown>>();

  /** Registers a reply; false when the conversation already has one running. */
  begin(reply: ActiveReply): boolean {
    if (this.#replies.has(reply.conversationId)) return false;
    this.#replies.set(reply.conversationId, reply);
    this.publish(reply.conversationId, { type: 'reply-started' });
    return true;
  }

  active(conversationId: number): ActiveReply | undefined {
    return this.#replies.get(conversationId);
  }

  end(conversationId: number): void {
    this.#replies.delete(conversationId);
    this.publish(conversationId, { type: 'reply-finished' });
  }

  get activeCount(): number {
    return this.#replies.size;
  }

  subscribe(conversationId: number, listener: Listener): () => void {
    let listeners = this.#listeners.get(conversationId);
    if (!listeners) {
      listeners = new Set();
      this.#listeners.set(conversationId, listeners);
    }
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0) this.#listeners.delete(conversationId);
    };
  }

  publish(conversationId: number, event: ReplyEvent): void {
    for (const listener of this.#listeners.get(conversationId) ?? []) listener(event);
  }

  /** Keeps the reply's promise so shutdown can wait for it to save. */
  track(work: Promise<unknown>): void {
    this.#running.add(work);
    void work.finally(() => this.#running.delete(work));
  }

  /** Stops every reply and waits until each has saved what it had. */
  async stopAll(): Promise<void> {
    for (const reply of this.#replies.values()) reply.stop('shutdown');
    await Promise.allSettled([...this.#running]);
  }
}
