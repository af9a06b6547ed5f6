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
 * Each character is looked at a bounded number of times: lines are found by their newline, and a
 * line is classified once, from its first few characters.
 */

/** Enough of a line to tell its kind: up to 3 spaces, a 9-digit ordered marker and its delimiter and space. */
const prefixLength = 14;
const listMarker = /^ {0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)/;
const fenceOpening = /^ {0,3}(`{3,}|~{3,})([^`]*)$/;

export class MarkdownBlockSplitter {
  #text = '';
  /** Where the open block starts, and where its current (unfinished) line starts. */
  #blockStart = 0;
  #lineStart = 0;
  /** Inside a fence: its marker character and length. */
  #fence: { character: string; length: number } | undefined;
  /** The open block holds a list line. */
  #holdsList = false;
  /** After a blank line or a closing fence: the next line that starts something decides. */
  #mayEnd = false;

  /** Everything pushed so far. */
  get text(): string {
    return this.#text;
  }

  /** Where the open block starts: everything before it is in finished blocks. */
  get openFrom(): number {
    return this.#blockStart;
  }

  /** Adds streamed text; returns the blocks it finished, in order (their text as written). */
  push(chunk: string): string[] {
    const finished: string[] = [];
    let from = this.#text.length;
    this.#text += chunk;
    for (;;) {
      const newline = this.#text.indexOf('\n', from);
      if (newline === -1) break;
      this.#line(this.#text.slice(this.#lineStart, newline), finished);
      this.#lineStart = newline + 1;
      from = this.#lineStart;
    }
    // A line being written can already show that a new block began: often from its first
    // character (a letter), else from its first few (a list marker or not).
    const written = this.#text.length - this.#lineStart;
    if (this.#mayEnd && written > 0 && (written >= prefixLength || this.#knownFromFirst(this.#text[this.#lineStart]!))) {
      this.#decide(this.#text.slice(this.#lineStart, this.#lineStart + prefixLength), false, finished);
    }
    return finished;
  }

  /** The end of the text: the blocks still open, finished. */
  finish(): string[] {
    const finished: string[] = [];
    if (this.#mayEnd && this.#lineStart < this.#text.length) {
      const line = this.#text.slice(this.#lineStart, this.#lineStart + prefixLength);
      this.#decide(line, this.#text.length - this.#lineStart < prefixLength, finished);
    }
    const rest = this.#text.slice(this.#blockStart);
    if (rest.trim()) finished.push(rest);
    this.#blockStart = this.#text.length;
    return finished;
  }

  /** A whole line (without its newline). */
  #line(line: string, finished: string[]): void {
    if (this.#fence) {
      const closing = line.trimEnd();
      const indent = closing.length - closing.trimStart().length;
      const marker = closing.trimStart();
      if (indent <= 3 && marker.length >= this.#fence.length && marker === this.#fence.character.repeat(marker.length)) {
        this.#fence = undefined;
        this.#mayEnd = true;
      }
      return;
    }
    if (line.length < prefixLength && !line.trim()) {
      // A blank line: the block may end here (the next line says); blank lines before a block are in none.
      if (this.#lineStart === this.#blockStart) this.#blockStart = this.#lineStart + line.length + 1;
      else this.#mayEnd = true;
      return;
    }
    const prefix = line.slice(0, prefixLength);
    if (this.#mayEnd) this.#decide(prefix, line.length < prefixLength, finished);
    if (listMarker.test(prefix)) this.#holdsList = true;
    const fence = fenceOpening.exec(line.length > 200 ? '' : line);
    if (fence) this.#fence = { character: fence[1]![0]!, length: fence[1]!.length };
  }

  /** A line starting with this character begins a new block or not, whatever follows. */
  #knownFromFirst(character: string): boolean {
    return !/[\s\d+*-]/.test(character) || (!this.#holdsList && !/\s/.test(character));
  }

  /** The first characters of the line after a possible end: does it begin a new block? */
  #decide(prefix: string, wholeLine: boolean, finished: string[]): void {
    if (wholeLine && !prefix.trim()) return; // another blank line
    this.#mayEnd = false;
    const continues = /^[ \t]/.test(prefix) || (this.#holdsList && listMarker.test(prefix));
    if (continues) return;
    finished.push(this.#text.slice(this.#blockStart, this.#lineStart));
    this.#blockStart = this.#lineStart;
    this.#holdsList = false;
  }
}

/** A whole text's blocks, cut as a stream of it would be. */
export function splitMarkdownBlocks(text: string): string[] {
  const splitter = new MarkdownBlockSplitter();
  return [...splitter.push(text), ...splitter.finish()];
}
