/*
 * Finds where a Markdown text's top-level blocks (paragraphs, lists, tables, code fences, …) end,
 * as the text arrives, so a streaming reply can show each finished block formatted while only the
 * open one is still text. A whole text is split by the same code (splitMarkdownBlocks), so a
 * streamed reply and a stored one are cut, and so rendered, alike.
 *
 * A block ends at a blank line (or after a closing fence) once the next line shows it does not
 * continue it: an indented line continues any block (a list item's paragraph, indented code), a
 * list marker continues a block that holds a list (a loose list). Ending too late is always
 * safe (the blocks are rendered together); only an end that Markdown agrees with is used.
 *
 * Each character is looked at and copied a bounded number of times: lines are found by their
 * newline in the new text only, a line is classified once from its first characters, and only the
 * open block is kept (in pieces, joined once when a block is cut from them).
 */

/** Enough of a line to tell its kind: up to 3 spaces, a 9-digit ordered marker and its delimiter and space. */
const prefixLength = 14;
/** A longer line is neither a fence's opening nor its closing (ending a block too late is safe). */
const fenceLineLength = 200;
const listMarker = /^ {0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)/;
const fenceOpening = /^ {0,3}(`{3,}|~{3,})([^`]*)$/;

/** A finished block: its text as written, and where it ends in the whole text. */
export interface MarkdownBlock {
  text: string;
  end: number;
}

export class MarkdownBlockSplitter {
  /** The open block's text, in pieces of whole or partial lines: joined only when a block is cut from it. */
  #open: string[] = [];
  /** How much text was pushed in all. */
  #length = 0;
  /** Where the open block starts, and where its current (unfinished) line starts. */
  #blockStart = 0;
  #lineStart = 0;
  /** The current line's first characters (enough for its kind and a fence), and its length so far. */
  #lineHead = '';
  #lineLength = 0;
  /** Inside a fence: its marker character and length. */
  #fence: { character: string; length: number } | undefined;
  /** The open block holds a list line. */
  #holdsList = false;
  /** After a blank line or a closing fence: the next line that starts something decides. */
  #mayEnd = false;

  /** Adds streamed text; returns the blocks it finished, in order. */
  push(chunk: string): MarkdownBlock[] {
    const finished: MarkdownBlock[] = [];
    let from = 0;
    for (;;) {
      const newline = chunk.indexOf('\n', from);
      const end = newline === -1 ? chunk.length : newline;
      this.#addToLine(chunk, from, end);
      if (newline === -1) break;
      this.#open.push(chunk.slice(from, newline + 1));
      this.#length += newline + 1 - from;
      this.#line(finished);
      this.#lineStart = this.#length;
      this.#lineHead = '';
      this.#lineLength = 0;
      from = newline + 1;
    }
    if (from < chunk.length) {
      this.#open.push(chunk.slice(from));
      this.#length += chunk.length - from;
    }
    // A line being written can already show that a new block began: often from its first
    // character (a letter), else from its first few (a list marker or not).
    const written = this.#lineLength;
    if (this.#mayEnd && written > 0 && (written >= prefixLength || this.#knownFromFirst(this.#lineHead[0]!))) {
      this.#decide(this.#lineHead.slice(0, prefixLength), false, finished);
    }
    return finished;
  }

  /** The end of the text: the blocks still open, finished. */
  finish(): MarkdownBlock[] {
    const finished: MarkdownBlock[] = [];
    if (this.#mayEnd && this.#lineLength > 0) {
      this.#decide(this.#lineHead.slice(0, prefixLength), this.#lineLength < prefixLength, finished);
    }
    const rest = this.#open.join('');
    if (rest.trim()) finished.push({ text: rest, end: this.#length });
    this.#open = [];
    this.#blockStart = this.#length;
    return finished;
  }

  /** Part of the current line arrived: its head is kept up to what a fence line can be. */
  #addToLine(chunk: string, from: number, end: number): void {
    if (this.#lineHead.length <= fenceLineLength) this.#lineHead += chunk.slice(from, Math.min(end, from + fenceLineLength + 1 - this.#lineHead.length));
    this.#lineLength += end - from;
  }

  /** A whole line (its head in #lineHead, its newline in #open) has arrived. */
  #line(finished: MarkdownBlock[]): void {
    const line = this.#lineLength > fenceLineLength ? undefined : this.#lineHead;
    if (this.#fence) {
      const closing = line?.trimEnd() ?? '';
      const indent = closing.length - closing.trimStart().length;
      const marker = closing.trimStart();
      if (indent <= 3 && marker.length >= this.#fence.length && marker === this.#fence.character.repeat(marker.length)) {
        this.#fence = undefined;
        this.#mayEnd = true;
      }
      return;
    }
    if (this.#lineLength < prefixLength && !this.#lineHead.trim()) {
      // A blank line: the block may end here (the next line says); blank lines before a block are in none.
      if (this.#lineStart === this.#blockStart) {
        this.#blockStart = this.#length;
        this.#open = [];
      } else this.#mayEnd = true;
      return;
    }
    const prefix = this.#lineHead.slice(0, prefixLength);
    if (this.#mayEnd) this.#decide(prefix, this.#lineLength < prefixLength, finished);
    if (listMarker.test(prefix)) this.#holdsList = true;
    const fence = fenceOpening.exec(line ?? '');
    if (fence) this.#fence = { character: fence[1]![0]!, length: fence[1]!.length };
  }

  /** A line starting with this character begins a new block or not, whatever follows. */
  #knownFromFirst(character: string): boolean {
    return !/[\s\d+*-]/.test(character) || (!this.#holdsList && !/\s/.test(character));
  }

  /** The first characters of the line after a possible end: does it begin a new block? */
  #decide(prefix: string, wholeLine: boolean, finished: MarkdownBlock[]): void {
    if (wholeLine && !prefix.trim()) return; // another blank line
    this.#mayEnd = false;
    const continues = /^[ \t]/.test(prefix) || (this.#holdsList && listMarker.test(prefix));
    if (continues) return;
    // The block is the open text before this line; what is written of the line stays open.
    const open = this.#open.join('');
    const cut = this.#lineStart - this.#blockStart;
    finished.push({ text: open.slice(0, cut), end: this.#lineStart });
    this.#open = cut < open.length ? [open.slice(cut)] : [];
    this.#blockStart = this.#lineStart;
    this.#holdsList = false;
  }
}

/** A whole text's blocks, cut as a stream of it would be. */
export function splitMarkdownBlocks(text: string): string[] {
  const splitter = new MarkdownBlockSplitter();
  return [...splitter.push(text), ...splitter.finish()].map((block) => block.text);
}
