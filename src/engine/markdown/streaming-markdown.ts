import { MarkdownBlockSplitter, type MarkdownBlock } from './markdown-blocks.js';
import type { MarkdownRenderer } from './markdown-renderer.js';
import { newHighlightBudget, plainTextFrom, plainTextHtml } from './render-markdown.js';

/**
 * Formats a reply while it streams: each block is rendered once, in the render worker, as soon
 * as it is finished (markdown-blocks.ts), and `onRendered` gets its HTML and where in the text
 * the rendered part now ends; what follows is the open block, still text. Blocks finished while a
 * render runs go together in the next one, so a slow worker means fewer, larger renders. When
 * the reply ends, `finish` renders what is left and gives the whole HTML: the blocks already
 * shown, unchanged, then the rest. As with a whole reply, text past `plainTextFrom` characters is
 * not formatted.
 */
export class StreamingMarkdown {
  readonly #renderer: Pick<MarkdownRenderer, 'renderBlocks'>;
  readonly #onRendered: (html: string, end: number) => void;
  readonly #splitter = new MarkdownBlockSplitter();
  #budget = newHighlightBudget();
  /** Finished blocks not yet sent to the worker, and where the last of them ends. */
  #waiting: string[] = [];
  #waitingEnd = 0;
  /** The reply's text in the pieces it came in: joined once, at the end. */
  #parts: string[] = [];
  /** A block ended past `plainTextFrom`: the rest is not formatted. */
  #past = false;
  #rendering: Promise<void> | undefined;
  #html = '';
  #end = 0;

  constructor(renderer: Pick<MarkdownRenderer, 'renderBlocks'>, onRendered: (html: string, end: number) => void = () => {}) {
    this.#renderer = renderer;
    this.#onRendered = onRendered;
  }

  /** The HTML of the blocks rendered so far. */
  get html(): string {
    return this.#html;
  }

  /** Where the rendered blocks end in the text: the rest is shown as text. */
  get end(): number {
    return this.#end;
  }

  push(text: string): void {
    this.#parts.push(text);
    if (this.#past) return;
    this.#take(this.#splitter.push(text));
    this.#renderWaiting();
  }

  /** The whole reply's HTML, once every block is rendered. */
  async finish(): Promise<string> {
    while (this.#rendering) await this.#rendering;
    if (!this.#past) this.#take(this.#splitter.finish());
    const blocks = this.#waiting;
    this.#waiting = [];
    if (blocks.length > 0) {
      const { html } = await this.#renderer.renderBlocks(blocks, this.#budget);
      this.#html += html;
      this.#end = this.#waitingEnd;
    }
    const rest = this.#parts.join('').slice(this.#end);
    if (!rest.trim()) return this.#html;
    return this.#html + plainTextHtml(rest, this.#end === 0 ? 'reply' : 'rest');
  }

  /** Finished blocks wait for the worker, up to `plainTextFrom` characters of text. */
  #take(blocks: MarkdownBlock[]): void {
    for (const { text, end } of blocks) {
      if (end > plainTextFrom) {
        this.#past = true;
        break;
      }
      this.#waiting.push(text);
      this.#waitingEnd = end;
    }
  }

  #renderWaiting(): void {
    if (this.#rendering || this.#waiting.length === 0) return;
    const blocks = this.#waiting;
    const end = this.#waitingEnd;
    this.#waiting = [];
    this.#rendering = this.#renderer.renderBlocks(blocks, this.#budget).then(({ html, budget }) => {
      this.#budget = budget;
      this.#html += html;
      this.#end = end;
      this.#rendering = undefined;
      this.#onRendered(html, end);
      this.#renderWaiting();
    });
  }
}
