/*
 * Finds [TOOL:name]params[/TOOL] and [MEMORY_UPDATE]content[/MEMORY_UPDATE] in model output,
 * as it streams and on finished text alike. The rules, each covered by a test:
 *
 * 1. Tags are matched without regard to case, with spaces allowed inside the brackets:
 *    `[ tool : Calculator ]`, `[/Tool]`, `[memory_update]`.
 * 2. A call may be wrapped in backticks or a code fence (```...```): the wrapper is dropped.
 * 3. Params are the raw text between the tags, trimmed; their form is the tool's business.
 * 4. Several calls in one reply are all found, in order.
 * 5. A call whose closing tag is missing at the very end of the reply takes the rest as params.
 * 6. A tag split across streamed chunks is held back until it is clear what it is, so no part
 *    of it is ever shown.
 * 7. After a tool call, only whitespace and further tags may follow: any other text means the
 *    model has started to invent the result, so `push` asks for the stream to be cut and that
 *    text is never shown.
 * 8. A memory update is not a call: text after it is shown as usual.
 * 9. `[` that cannot become a tag is plain text and is shown at once.
 */

export interface ScannedTag {
  kind: 'tool' | 'memory';
  /** The tool's name as written, trimmed (empty for memory updates). */
  name: string;
  params: string;
  /** True when the closing tag was missing at the end of the reply. */
  unclosed: boolean;
}

export interface ScanStep {
  /** New text to show the person (never part of a tag). */
  visible: string;
  /** Tags completed by this step. */
  tags: ScannedTag[];
  /** The model began writing after a tool call: stop generating. */
  cut: boolean;
}

const openingPattern = /^\[\s*(?:(tool)\s*:\s*([^\]\s][^\]]*?)|(memory_update))\s*\]/i;
const possibleOpenings = ['[TOOL:', '[MEMORY_UPDATE]'];
/** Longest stretch a half-written opening tag may take before it is treated as text. */
const maximumOpeningLength = 80;

function closingPattern(kind: 'tool' | 'memory'): RegExp {
  return kind === 'tool' ? /\[\s*\/\s*tool\s*\]/i : /\[\s*\/\s*memory_update\s*\]/i;
}

/** Could `text` (starting with '[') still grow into an opening tag? */
function couldBecomeOpening(text: string): boolean {
  if (text.length > maximumOpeningLength) return false;
  const squeezed = text.replace(/\s+/g, '').toUpperCase();
  return possibleOpenings.some((opening) => opening.startsWith(squeezed) || (squeezed.startsWith('[TOOL:') && !squeezed.includes(']')));
}

/** Backticks or a fence opener right before a tag belong to the tag's wrapper. */
function wrapperStart(text: string, tagIndex: number): number {
  const before = text.slice(0, tagIndex);
  const wrapper = /(?:```[\w-]*[ \t]*\r?\n?[ \t]*|`+)$/.exec(before);
  return wrapper ? wrapper.index : tagIndex;
}

export class ToolCallScanner {
  /** Text already shown or consumed as a tag. Kept apart so each chunk costs its own length, not the reply's. */
  #settled = '';
  /** Text not settled yet: a possible tag, held-back backticks, or a tag's params. */
  #pending = '';
  #afterCall = false;
  #cut = false;
  #open: { kind: 'tool' | 'memory'; name: string } | undefined;
  #visible = '';

  /** The raw text up to the cut (what the model really said this round). */
  get raw(): string {
    return this.#settled + this.#pending;
  }

  /** All the text shown so far. */
  get visible(): string {
    return this.#visible;
  }

  get wasCut(): boolean {
    return this.#cut;
  }

  push(chunk: string): ScanStep {
    if (this.#cut) return { visible: '', tags: [], cut: true };
    this.#pending += chunk;
    return this.#scan(false);
  }

  /** The stream ended: settle what was held back. */
  finish(): ScanStep {
    if (this.#cut) return { visible: '', tags: [], cut: true };
    return this.#scan(true);
  }

  #show(text: string, step: ScanStep): void {
    if (!text) return;
    step.visible += text;
    this.#visible += text;
  }

  #advance(count: number): void {
    if (count <= 0) return;
    this.#settled += this.#pending.slice(0, count);
    this.#pending = this.#pending.slice(count);
  }

  #scan(ended: boolean): ScanStep {
    const step: ScanStep = { visible: '', tags: [], cut: false };
    while (this.#pending.length > 0 || (ended && this.#open)) {
      if (this.#open) {
        const closing = closingPattern(this.#open.kind).exec(this.#pending);
        if (!closing && !ended) break;
        const params = closing ? this.#pending.slice(0, closing.index) : this.#pending;
        step.tags.push({ kind: this.#open.kind, name: this.#open.name, params: stripWrapper(params.trim()), unclosed: !closing });
        this.#afterCall ||= this.#open.kind === 'tool';
        this.#advance(closing ? closing.index + closing[0].length : this.#pending.length);
        this.#advance(/^[ \t]*(?:`+|```)?/.exec(this.#pending)![0].length);
        this.#open = undefined;
        continue;
      }

      if (this.#afterCall) {
        // Only whitespace, fences and further tags may follow a call.
        const filler = /^(?:\s|`)*/.exec(this.#pending)![0];
        const next = this.#pending.slice(filler.length);
        if (next.length === 0) break;
        if (next.startsWith('[') && openingPattern.test(next)) {
          this.#advance(filler.length);
        } else if (next.startsWith('[') && couldBecomeOpening(next) && !ended) {
          break;
        } else {
          this.#cutHere(step);
          break;
        }
      }

      const current = this.#pending;
      const bracket = current.indexOf('[');
      if (bracket === -1) {
        // Hold back trailing backticks: they may open a wrapper around a tag.
        const held = ended ? 0 : (/(?:```[\w-]*[ \t]*\r?\n?[ \t]*|`+)$/.exec(current)?.[0].length ?? 0);
        this.#show(current.slice(0, current.length - held), step);
        this.#advance(current.length - held);
        break;
      }
      const candidate = current.slice(bracket);
      const opening = openingPattern.exec(candidate);
      if (opening) {
        this.#show(current.slice(0, wrapperStart(current, bracket)), step);
        this.#open = { kind: opening[3] ? 'memory' : 'tool', name: (opening[2] ?? '').trim() };
        this.#advance(bracket + opening[0].length);
        continue;
      }
      if (!ended && couldBecomeOpening(candidate)) {
        const start = wrapperStart(current, bracket);
        this.#show(current.slice(0, start), step);
        this.#advance(start);
        break;
      }
      this.#show(current.slice(0, bracket + 1), step);
      this.#advance(bracket + 1);
    }
    return step;
  }

  /** The model went on after a call: what it wrote since is dropped, never shown or kept. */
  #cutHere(step: ScanStep): void {
    this.#cut = true;
    step.cut = true;
    this.#pending = '';
  }
}

function stripWrapper(params: string): string {
  return params.replace(/^```[\w-]*\s*\n?/, '').replace(/\n?```$/, '').replace(/^`+|`+$/g, '').trim();
}

/** The same rules on a finished text. */
export function scanToolCalls(text: string): { visible: string; tags: ScannedTag[]; cut: boolean } {
  const scanner = new ToolCallScanner();
  const first = scanner.push(text);
  const last = scanner.finish();
  return { visible: first.visible + last.visible, tags: [...first.tags, ...last.tags], cut: first.cut || last.cut };
}
