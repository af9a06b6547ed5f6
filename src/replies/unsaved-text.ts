import type { DraftPiece } from '../storage/conversation-store.js';

/**
 * What a streaming reply added since its last save. A save writes only this (a draft piece), so
 * it costs what the last second of text costs, however long the reply has grown.
 */
export class UnsavedText {
  #content = '';
  #thinking = '';
  #raw = '';

  /** Shown text, reasoning, and what the model said with its tags (the scanner's `raw` step). */
  add(content: string, thinking: string, raw: string): void {
    this.#content += content;
    this.#thinking += thinking;
    this.#raw += raw;
  }

  /** The piece to save, leaving nothing unsaved; undefined when nothing was added. */
  take(): DraftPiece | undefined {
    if (!this.#content && !this.#thinking && !this.#raw) return undefined;
    // Until a tag, raw is the shown text: stored once.
    const piece = { content: this.#content, thinking: this.#thinking, raw: this.#raw === this.#content ? null : this.#raw };
    this.#content = '';
    this.#thinking = '';
    this.#raw = '';
    return piece;
  }
}
