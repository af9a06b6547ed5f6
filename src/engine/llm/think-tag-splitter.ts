/**
 * Splits `<think>…</think>` out of streamed answer text, as reasoning models behind llama.cpp,
 * LM Studio or vLLM often write it when the server does not separate it itself.
 *
 * Linear in the text: each piece is scanned once, and at most one tag's length minus one
 * character is held back between pieces (a tag may be cut across chunks).
 */
export interface SplitText {
  content: string;
  thinking: string;
}

const openTag = '<think>';
const closeTag = '</think>';

/** Length of the longest end of `text` that is the start of `tag` (0 when none). */
function partialTagLength(text: string, tag: string): number {
  const longest = Math.min(tag.length - 1, text.length);
  for (let length = longest; length > 0; length -= 1) {
    if (text.endsWith(tag.slice(0, length))) return length;
  }
  return 0;
}

export class ThinkTagSplitter {
  private thinking = false;
  private pending = '';

  push(piece: string): SplitText {
    const out: SplitText = { content: '', thinking: '' };
    const text = this.pending + piece;
    this.pending = '';
    let from = 0;
    for (;;) {
      const tag = this.thinking ? closeTag : openTag;
      const at = text.indexOf(tag, from);
      if (at === -1) {
        const keep = partialTagLength(text.slice(Math.max(from, text.length - tag.length)), tag);
        this.emit(out, text.slice(from, text.length - keep));
        this.pending = text.slice(text.length - keep);
        return out;
      }
      this.emit(out, text.slice(from, at));
      from = at + tag.length;
      this.thinking = !this.thinking;
    }
  }

  /** The end of the stream: a held-back piece that never became a tag is plain text after all. */
  finish(): SplitText {
    const out: SplitText = { content: '', thinking: '' };
    this.emit(out, this.pending);
    this.pending = '';
    return out;
  }

  private emit(out: SplitText, text: string): void {
    if (this.thinking) out.thinking += text;
    else out.content += text;
  }
}
