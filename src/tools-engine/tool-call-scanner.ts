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
 * 10. Every chunk costs time in proportion to its own length, whatever came before: at most
 *     `maximumHeldLength` characters are ever held back as a possible tag or wrapper (past that
 *     they are shown as text), and nothing already settled is searched again.
 * 11. A call's params are capped (`maximumParamsLength`): past the cap the call ends with
 *     `tooLong: true` and empty params, and the stream is cut, so nothing keeps piling up.
 * 12. Past `maximumFillerAfterCall` characters of whitespace after a call, or past
 *     `maximumTagsPerReply` tags, the model is looping: the stream is cut (the calls found run).
 */
import { maximumParamsLength } from './tool-params.js';

export { maximumParamsLength };

export interface ScannedTag {
  kind: 'tool' | 'memory';
  /** The tool's name as written, trimmed (empty for memory updates). */
  name: string;
  params: string;
  /** True when the closing tag was missing at the end of the reply. */
  unclosed: boolean;
  /** Set when the params passed the cap: params are then empty and the call must not run. */
  tooLong?: true;
}

export interface ScanStep {
  /** New text to show the person (never part of a tag). */
  visible: string;
  /** Tags completed by this step. */
  tags: ScannedTag[];
  /** The model began writing after a tool call: stop generating. */
  cut: boolean;
}

export interface ToolCallScannerOptions {
  /** Longest params a tool call may have (characters). */
  maximumParamsLength?: number;
  /** Longest memory update (characters); the memory file refuses what is over its own limit. */
  maximumMemoryLength?: number;
}

/** Longest stretch a half-written opening tag may take before it is treated as text. */
const maximumOpeningLength = 120;
/** Longest wrapper (backticks, or a fence with its language and line break) before a tag. */
const maximumWrapperLength = 64;
/** Most text ever held back at once: a wrapper and an opening tag. */
export const maximumHeldLength = maximumOpeningLength + maximumWrapperLength;
/** Whitespace a model may write after a call before it counts as looping. */
export const maximumFillerAfterCall = 4096;
/** Tags one reply may hold before the model counts as looping. */
export const maximumTagsPerReply = 16;
/** Default cap on a memory update: the largest MEMORY_MAX_BYTES the configuration accepts. */
const defaultMaximumMemoryLength = 1024 * 1024;

// Every quantifier is bounded, so matching at one position costs a bounded time.
const openingPattern = /\[\s{0,16}(?:(tool)\s{0,16}:([^\]\[\n]{1,96})|(memory_update)\s{0,16})\]/iy;
const closingPatterns = {
  tool: /\[\s{0,16}\/\s{0,16}tool\s{0,16}\]/gi,
  memory: /\[\s{0,16}\/\s{0,16}memory_update\s{0,16}\]/gi,
};

/** `a(?:b(?:c)?)?`: matches any beginning of `word` (regex-safe words only). */
const beginningOf = (word: string): string => [...word].reduceRight((rest, character) => `(?:${character}${rest})?`, '');

/** Text (to its end) that may still grow into an opening tag. */
const partialOpeningPattern = new RegExp(
  `\\[\\s{0,16}(?:tool\\s{0,16}(?::[^\\]\\[\\n]{0,96})?|memory_update\\s{0,16}|t${beginningOf('oo')}|m${beginningOf('emory_updat')})?$`,
  'iy',
);
/** Text (to its end) that may still grow into a closing tag. */
const partialClosingPattern = new RegExp(
  `\\[\\s{0,16}(?:/\\s{0,16}(?:(?:tool|memory_update)\\s{0,16}|t${beginningOf('oo')}|m${beginningOf('emory_updat')})?)?$`,
  'iy',
);
/** An opening tag written up to its name: more name characters keep it possible. */
const openingNamePattern = /\[\s{0,16}tool\s{0,16}:/iy;
const endsName = /[\]\[\n]/;
/** Longest closing tag: only a `[` this close to the end may start one. */
const maximumClosingLength = 64;
const wrapperPattern = /```[\w-]{0,20}[ \t]{0,16}\r?\n?[ \t]{0,16}|`{1,3}/y;
const triggerPattern = /[[`]/g;
const fillerPattern = /[\s`]*/y;
const afterMemoryPattern = /[ \t]{0,64}`{0,3}/y;

type Verdict = { status: 'tag'; kind: 'tool' | 'memory'; name: string; length: number } | { status: 'maybe' } | { status: 'no' };

/** Is there an opening tag at `at`, could the text from `at` to the end still grow into one, or not? */
function readOpening(text: string, at: number): Verdict {
  openingPattern.lastIndex = at;
  const match = openingPattern.exec(text);
  if (match) {
    const name = (match[2] ?? '').trim();
    if (match[3] || name) return { status: 'tag', kind: match[3] ? 'memory' : 'tool', name, length: match[0].length };
  }
  if (text.length - at > maximumOpeningLength) return { status: 'no' };
  partialOpeningPattern.lastIndex = at;
  return partialOpeningPattern.test(text) ? { status: 'maybe' } : { status: 'no' };
}

interface OpenCall {
  kind: 'tool' | 'memory';
  name: string;
  params: string;
  limit: number;
}

export class ToolCallScanner {
  /** Everything the model wrote that is settled: shown text, tags and their params (never cut text). */
  #raw = '';
  /** A possible tag, wrapper or closing tag not settled yet; never longer than maximumHeldLength. */
  #held = '';
  /** When the held text is an opening tag up to its name: where the tag starts in it. */
  #heldNameAt: number | undefined;
  #call: OpenCall | undefined;
  #afterCall = false;
  #filler = 0;
  #tagCount = 0;
  #cut = false;
  #visible = '';
  readonly #maximumParamsLength: number;
  readonly #maximumMemoryLength: number;

  constructor(options: ToolCallScannerOptions = {}) {
    this.#maximumParamsLength = options.maximumParamsLength ?? maximumParamsLength;
    this.#maximumMemoryLength = options.maximumMemoryLength ?? defaultMaximumMemoryLength;
  }

  /** The raw text up to the cut (what the model really said this round). */
  get raw(): string {
    return this.#raw + this.#held;
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
    return this.#scan(chunk, false);
  }

  /** The stream ended: settle what was held back. */
  finish(): ScanStep {
    if (this.#cut) return { visible: '', tags: [], cut: true };
    return this.#scan('', true);
  }

  #scan(chunk: string, ended: boolean): ScanStep {
    const step: ScanStep = { visible: '', tags: [], cut: false };
    const nameAt = this.#heldNameAt;
    if (nameAt !== undefined && !ended && this.#held.length - nameAt + chunk.length <= maximumOpeningLength && !endsName.test(chunk)) {
      // More of a tool's name: still a possible tag, and no need to look at the held text again.
      this.#held += chunk;
      return step;
    }
    // Only the held text (bounded) is looked at again; the chunk is walked once.
    const text = this.#held + chunk;
    this.#held = '';
    this.#heldNameAt = undefined;
    let position = 0;
    while (!this.#cut) {
      if (this.#call) position = this.#readParams(text, position, ended, step);
      else if (this.#afterCall) position = this.#readAfterCall(text, position, ended, step);
      else position = this.#readText(text, position, ended, step);
      if (position < 0) break;
    }
    if (this.#cut) step.cut = true;
    return step;
  }

  /** Settles text[from, to) as shown text. */
  #show(text: string, from: number, to: number, step: ScanStep): void {
    if (to <= from) return;
    const part = text.slice(from, to);
    this.#raw += part;
    step.visible += part;
    this.#visible += part;
  }

  /** Keeps text from `from` to the end for the next chunk; returns -1 (this chunk is done). */
  #hold(text: string, from: number, tagAt?: number): number {
    this.#held = text.slice(from);
    if (tagAt !== undefined) {
      openingNamePattern.lastIndex = tagAt;
      if (openingNamePattern.test(text)) this.#heldNameAt = tagAt - from;
    }
    return -1;
  }

  #open(text: string, from: number, opening: { kind: 'tool' | 'memory'; name: string; length: number }, step: ScanStep): number {
    if (this.#tagCount >= maximumTagsPerReply) return this.#cutHere(step);
    this.#raw += text.slice(from, from + opening.length);
    const limit = opening.kind === 'tool' ? this.#maximumParamsLength : this.#maximumMemoryLength;
    this.#call = { kind: opening.kind, name: opening.name, params: '', limit };
    return from + opening.length;
  }

  /** Plain text: shown up to the next `[` or backtick that starts a tag or its wrapper. */
  #readText(text: string, position: number, ended: boolean, step: ScanStep): number {
    let search = position;
    for (;;) {
      triggerPattern.lastIndex = search;
      const trigger = triggerPattern.exec(text);
      if (!trigger) {
        this.#show(text, position, text.length, step);
        return -1;
      }
      const at = trigger.index;
      // Backticks or a fence right before a tag are its wrapper: dropped with it.
      let tagAt = at;
      if (text[at] === '`') {
        wrapperPattern.lastIndex = at;
        tagAt = at + wrapperPattern.exec(text)![0].length;
        if (tagAt === text.length && !ended) {
          this.#show(text, position, at, step);
          return this.#hold(text, at);
        }
        if (text[tagAt] !== '[') {
          search = tagAt;
          continue;
        }
      }
      const opening = readOpening(text, tagAt);
      if (opening.status === 'tag') {
        this.#show(text, position, at, step);
        this.#raw += text.slice(at, tagAt);
        return this.#open(text, tagAt, opening, step);
      }
      if (opening.status === 'maybe' && !ended) {
        this.#show(text, position, at, step);
        return this.#hold(text, at, tagAt);
      }
      search = tagAt + 1;
    }
  }

  /** Inside a call: params until the closing tag, searched for in the new text only. */
  #readParams(text: string, position: number, ended: boolean, step: ScanStep): number {
    const call = this.#call!;
    const closingPattern = closingPatterns[call.kind];
    closingPattern.lastIndex = position;
    const closing = closingPattern.exec(text);
    // A closing tag may be cut in two by the chunk boundary: keep a possible start of one.
    let end = closing ? closing.index : text.length;
    if (!closing && !ended) {
      const lastBracket = text.lastIndexOf('[');
      if (lastBracket >= position && lastBracket > text.length - maximumClosingLength) {
        partialClosingPattern.lastIndex = lastBracket;
        if (partialClosingPattern.test(text)) end = lastBracket;
      }
    }
    const room = call.limit - call.params.length;
    if (end - position > room) {
      // Past the cap: stop reading, end the call and stop the model.
      this.#raw += text.slice(position, position + room);
      this.#call = undefined;
      this.#tagCount += 1;
      step.tags.push({ kind: call.kind, name: call.name, params: call.kind === 'tool' ? '' : call.params + text.slice(position, position + room), unclosed: true, tooLong: true });
      return this.#cutHere(step);
    }
    const part = text.slice(position, end);
    call.params += part;
    this.#raw += part;
    if (!closing) {
      if (!ended) return this.#hold(text, end);
      this.#closeCall(step, true);
      return -1;
    }
    this.#raw += closing[0];
    this.#closeCall(step, false);
    let next = closing.index + closing[0].length;
    if (call.kind === 'memory') {
      // The space and backticks right after a memory update belong to it.
      afterMemoryPattern.lastIndex = next;
      const trailing = afterMemoryPattern.exec(text)![0];
      this.#raw += trailing;
      next += trailing.length;
    }
    return next;
  }

  #closeCall(step: ScanStep, unclosed: boolean): void {
    const call = this.#call!;
    this.#call = undefined;
    this.#tagCount += 1;
    step.tags.push({ kind: call.kind, name: call.name, params: stripWrapper(call.params), unclosed });
    if (call.kind === 'tool') {
      this.#afterCall = true;
      this.#filler = 0;
    }
  }

  /** After a call: whitespace, wrappers and further tags only. */
  #readAfterCall(text: string, position: number, ended: boolean, step: ScanStep): number {
    fillerPattern.lastIndex = position;
    const filler = fillerPattern.exec(text)![0].length;
    this.#filler += filler;
    if (this.#filler > maximumFillerAfterCall) return this.#cutHere(step);
    this.#raw += text.slice(position, position + filler);
    const at = position + filler;
    if (at === text.length) return -1;
    if (text[at] === '[') {
      const opening = readOpening(text, at);
      if (opening.status === 'tag') return this.#open(text, at, opening, step);
      if (opening.status === 'maybe' && !ended) return this.#hold(text, at, at);
    }
    return this.#cutHere(step);
  }

  /** The model went on after a call: what it wrote since is dropped, never shown or kept. */
  #cutHere(step: ScanStep): number {
    this.#cut = true;
    step.cut = true;
    this.#held = '';
    this.#heldNameAt = undefined;
    return -1;
  }
}

const isSpace = (character: string) => character === ' ' || character === '\t' || character === '\n' || character === '\r';

/** Drops a code fence or backticks around params, by walking the ends once (no backtracking). */
function stripWrapper(raw: string): string {
  let params = raw.trim();
  if (params.startsWith('```')) {
    let start = 3;
    while (start < params.length && start < 24 && /[\w-]/.test(params[start]!)) start += 1;
    params = params.slice(start);
  }
  if (params.endsWith('```')) params = params.slice(0, -3);
  let start = 0;
  let end = params.length;
  while (start < end && (params[start] === '`' || isSpace(params[start]!))) start += 1;
  while (end > start && (params[end - 1] === '`' || isSpace(params[end - 1]!))) end -= 1;
  return params.slice(start, end);
}

/** The same rules on a finished text. */
export function scanToolCalls(text: string): { visible: string; tags: ScannedTag[]; cut: boolean } {
  const scanner = new ToolCallScanner();
  const first = scanner.push(text);
  const last = scanner.finish();
  return { visible: first.visible + last.visible, tags: [...first.tags, ...last.tags], cut: first.cut || last.cut };
}
