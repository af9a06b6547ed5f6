/*
 * Finds tool calls and memory updates in model output, as it streams and on finished text alike.
 * Models fall back on the formats they were trained on, whatever the prompt says, so besides
 * [TOOL:name]params[/TOOL] and [MEMORY_UPDATE]content[/MEMORY_UPDATE] the usual families are
 * read too (tool-call-formats.ts). The rules, each covered by a test:
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
 * 9. `[` or `<` that cannot become a tag is plain text and is shown at once.
 * 10. Every chunk costs time in proportion to its own length, whatever came before: at most
 *     `maximumHeldLength` characters are ever held back as a possible tag or wrapper (past that
 *     they are shown as text), and nothing already settled is searched again.
 * 11. A call's params are capped (`maximumParamsLength`): past the cap the call ends with
 *     `tooLong: true` and empty params, and the stream is cut, so nothing keeps piling up.
 * 12. Past `maximumFillerAfterCall` characters of whitespace after a call, or past
 *     `maximumTagsPerReply` tags, the model is looping: the stream is cut (the calls found run).
 * 13. A `[TOOL:name]` call also closes with `[/TOOL:name]`, `[/name]`, `[/TOOL_CALL]` or `[END_TOOL]`.
 * 14. Hermes / Qwen `<tool_call>{"name": ..., "arguments": {...}}</tool_call>` is a call.
 * 15. `<function_call>{"name": ..., "arguments": {...}}</function_call>` is a call.
 * 16. Llama's `<function=name>{...}</function>` is a call.
 * 17. Mistral's `[TOOL_CALLS] [{"name": ..., "arguments": {...}}, ...]` is one call per item.
 * 18. A code fence whose body is a JSON object naming a tool (`{"name": "x", "arguments": {...}}`
 *     or `{"tool": "x", "parameters": {...}}`) is a call, but only when `isKnownTool` says x is a
 *     tool: by default no fenced JSON is ever a call.
 * 19. For all JSON forms, params are the arguments as JSON text; loose JSON (single quotes,
 *     trailing commas, bare keys) is read too. Prose that mentions a tool, or a tag not followed
 *     by its JSON, is text.
 */
import { JsonBalance, maximumClosingLength, maximumOpeningLength, nameOfCutCall, readCalls, readOpening, type Opening, type OpeningVerdict } from './tool-call-formats.js';
import { maximumParamsLength } from './tool-params.js';


export interface ScannedTag {
  kind: 'tool' | 'memory';
  /** The tool's name as written, trimmed (empty for memory updates). */
  name: string;
  params: string;
  /** True when the closing tag was missing at the end of the reply. */
  unclosed: boolean;
  /** Set when the params passed the cap: params are then empty and the call must not run. */
  tooLong?: true;
  /** The call came as the model's own tool call (native tool calling), not as text: params are its JSON arguments. */
  native?: true;
}

export interface ScanStep {
  /** New text to show the person (never part of a tag). */
  visible: string;
  /** Tags completed by this step. */
  tags: ScannedTag[];
  /** The model began writing after a tool call: stop generating. */
  cut: boolean;
  /** What this step added to `raw` (settled text, tags included): a save can write just this. */
  raw: string;
}

export interface ToolCallScannerOptions {
  /** Is this the name of a tool? Only then is a fenced JSON object naming it a call (default: never). */
  isKnownTool?: (name: string) => boolean;
  /** Longest params a tool call may have (characters). */
  maximumParamsLength?: number;
  /** Longest memory update (characters); the memory file refuses what is over its own limit. */
  maximumMemoryLength?: number;
}

/** Longest wrapper (backticks, or a fence with its language and line break) before a tag. */
const maximumWrapperLength = 64;
/** Most text ever held back at once: a wrapper and an opening tag. */
export const maximumHeldLength = maximumOpeningLength + maximumWrapperLength;
/** Whitespace a model may write after a call before it counts as looping. */
export const maximumFillerAfterCall = 4096;
/** Tags one reply may hold before the model counts as looping (a reply may rightly read 36 emails). */
export const maximumTagsPerReply = 64;
/** Default cap on a memory update: the largest MEMORY_MAX_BYTES the configuration accepts. */
const defaultMaximumMemoryLength = 1024 * 1024;

// Every quantifier is bounded, so matching at one position costs a bounded time.
const wrapperPattern = /```[\w-]{0,20}[ \t]{0,16}\r?\n?[ \t]{0,16}|`{1,3}/y;
const triggerPattern = /[[<`]/g;
const spacePattern = /\s*/y;
const backticksPattern = /`+/y;
const afterMemoryPattern = /[ \t]{0,64}`{0,3}/y;

interface OpenCall {
  opening: Opening;
  kind: 'tool' | 'memory';
  params: string;
  limit: number;
  /** For a body that ends where its JSON brackets balance. */
  balance?: JsonBalance;
}

export class ToolCallScanner {
  /** Everything the model wrote that is settled: shown text, tags and their params (never cut text). */
  #raw = '';
  /** A possible tag, wrapper or closing tag not settled yet; never longer than maximumHeldLength. */
  #held = '';
  /** When the held text ends in a name being written: what would end the name. */
  #heldNameEnds: RegExp | undefined;
  #call: OpenCall | undefined;
  #afterCall = false;
  /** A memory update just ended: the spaces and backticks right after it belong to it. */
  #afterMemory = false;
  #filler = 0;
  #tagCount = 0;
  #cut = false;
  readonly #isKnownTool: ((name: string) => boolean) | undefined;
  readonly #maximumParamsLength: number;
  readonly #maximumMemoryLength: number;

  constructor(options: ToolCallScannerOptions = {}) {
    this.#isKnownTool = options.isKnownTool;
    this.#maximumParamsLength = options.maximumParamsLength ?? maximumParamsLength;
    this.#maximumMemoryLength = options.maximumMemoryLength ?? defaultMaximumMemoryLength;
  }

  /** The raw text up to the cut (what the model really said this round). */
  get raw(): string {
    return this.#raw + this.#held;
  }

  get wasCut(): boolean {
    return this.#cut;
  }

  push(chunk: string): ScanStep {
    if (this.#cut) return { visible: '', tags: [], cut: true, raw: '' };
    return this.#scan(chunk, false);
  }

  /** The stream ended: settle what was held back. */
  finish(): ScanStep {
    if (this.#cut) return { visible: '', tags: [], cut: true, raw: '' };
    return this.#scan('', true);
  }

  #scan(chunk: string, ended: boolean): ScanStep {
    const step: ScanStep = { visible: '', tags: [], cut: false, raw: '' };
    const nameEnds = this.#heldNameEnds;
    if (nameEnds && !ended && this.#held.length + chunk.length <= maximumOpeningLength && !nameEnds.test(chunk)) {
      // More of a name: still a possible tag, and no need to look at the held text again.
      this.#held += chunk;
      return step;
    }
    // Only the held text (bounded) is looked at again; the chunk is walked once.
    const text = this.#held + chunk;
    this.#held = '';
    this.#heldNameEnds = undefined;
    let position = 0;
    while (!this.#cut) {
      if (this.#call) position = this.#readBody(text, position, ended, step);
      else if (this.#afterCall) position = this.#readAfterCall(text, position, ended, step);
      else position = this.#readText(text, position, ended, step);
      if (position < 0) break;
    }
    if (this.#cut) step.cut = true;
    return step;
  }

  /** Settles text as raw (what the model said), shown or not. */
  #keep(text: string, step: ScanStep): void {
    this.#raw += text;
    step.raw += text;
  }

  /** Settles text[from, to) as shown text. */
  #show(text: string, from: number, to: number, step: ScanStep): void {
    if (to <= from) return;
    const part = text.slice(from, to);
    this.#keep(part, step);
    step.visible += part;
  }

  /** Keeps text from `from` to the end for the next chunk; returns -1 (this chunk is done). */
  #hold(text: string, from: number, verdict?: OpeningVerdict): number {
    this.#held = text.slice(from);
    if (verdict?.status === 'maybe' && verdict.nameEnds) this.#heldNameEnds = verdict.nameEnds;
    return -1;
  }

  /**
   * What starts at `at` (a `[`, `<` or backtick): a tag, possibly behind a wrapper of backticks
   * or a fence; something that may still become one; or neither. `tagAt` is where the tag
   * starts (after the wrapper, when there is one).
   */
  #readOpeningAt(text: string, at: number): { verdict: OpeningVerdict; tagAt: number } {
    const direct = readOpening(text, at, this.#isKnownTool);
    if (direct.status !== 'no' || text[at] !== '`') return { verdict: direct, tagAt: at };
    wrapperPattern.lastIndex = at;
    const tagAt = at + wrapperPattern.exec(text)![0].length;
    if (tagAt === text.length) return { verdict: { status: 'maybe' }, tagAt };
    if (text[tagAt] !== '[' && text[tagAt] !== '<') return { verdict: { status: 'no' }, tagAt };
    return { verdict: readOpening(text, tagAt, this.#isKnownTool), tagAt };
  }

  #open(text: string, wrapperAt: number, tagAt: number, opening: Opening, step: ScanStep): number {
    if (this.#tagCount >= maximumTagsPerReply) return this.#cutHere(step);
    this.#keep(text.slice(wrapperAt, tagAt + opening.length), step);
    const kind = opening.format === 'memory' ? 'memory' : 'tool';
    const limit = kind === 'tool' ? this.#maximumParamsLength : this.#maximumMemoryLength;
    this.#call = { opening, kind, params: '', limit, ...(opening.closing.pattern ? {} : { balance: new JsonBalance() }) };
    return tagAt + opening.length;
  }

  /** Plain text: shown up to the next `[`, `<` or backtick that starts a tag or its wrapper. */
  #readText(text: string, position: number, ended: boolean, step: ScanStep): number {
    if (this.#afterMemory) {
      afterMemoryPattern.lastIndex = position;
      const trailing = afterMemoryPattern.exec(text)![0];
      this.#keep(trailing, step);
      position += trailing.length;
      // Still only spaces at the end of the chunk: more may follow in the next.
      this.#afterMemory = position === text.length && !ended;
      if (this.#afterMemory) return -1;
    }
    let search = position;
    for (;;) {
      triggerPattern.lastIndex = search;
      const trigger = triggerPattern.exec(text);
      if (!trigger) {
        this.#show(text, position, text.length, step);
        return -1;
      }
      const at = trigger.index;
      const { verdict, tagAt } = this.#readOpeningAt(text, at);
      if (verdict.status === 'tag') {
        this.#show(text, position, at, step);
        return this.#open(text, at, tagAt, verdict.opening, step);
      }
      if (verdict.status === 'maybe' && !ended) {
        this.#show(text, position, at, step);
        return this.#hold(text, at, verdict);
      }
      // Not a tag: carry on after the trigger (after the whole wrapper, for backticks).
      search = Math.max(at + 1, text[at] === '`' ? tagAt : at + 1);
    }
  }

  /** Inside a call: the body until its end, searched for in the new text only. */
  #readBody(text: string, position: number, ended: boolean, step: ScanStep): number {
    const call = this.#call!;
    const closing = call.opening.closing;
    let bodyEnd: number;
    let next: number;
    let closed: boolean;
    if (call.balance) {
      const end = call.balance.find(text, position);
      closed = end !== -1;
      bodyEnd = closed ? end : text.length;
      next = bodyEnd;
    } else {
      closing.pattern!.lastIndex = position;
      const match = closing.pattern!.exec(text);
      closed = match !== null;
      bodyEnd = match ? match.index : text.length;
      next = match ? match.index + match[0].length : text.length;
      if (!match && !ended) bodyEnd = next = this.#closingStart(text, position, closing.trigger!, closing.partial!);
    }
    const room = call.limit - call.params.length;
    if (bodyEnd - position > room) {
      // Past the cap: stop reading, end the call and stop the model.
      const kept = text.slice(position, position + room);
      this.#keep(kept, step);
      this.#call = undefined;
      this.#tagCount += 1;
      const body = call.params + kept;
      const name = call.kind === 'memory' ? '' : nameOfCutCall(call.opening, body);
      step.tags.push({ kind: call.kind, name, params: call.kind === 'tool' ? '' : body, unclosed: true, tooLong: true });
      return this.#cutHere(step);
    }
    call.params += text.slice(position, bodyEnd);
    this.#keep(text.slice(position, next), step);
    if (!closed) {
      if (!ended) return this.#hold(text, next);
      this.#closeCall(step, true);
      return -1;
    }
    this.#closeCall(step, false);
    this.#afterMemory = call.kind === 'memory';
    return next;
  }

  /** Where a closing tag cut in two by the chunk's end may start (the text's end when none may). */
  #closingStart(text: string, position: number, trigger: string, partial: RegExp): number {
    let start = text.lastIndexOf(trigger);
    if (start < position || start <= text.length - maximumClosingLength) return text.length;
    while (trigger === '`' && start > position && text[start - 1] === '`') start -= 1;
    partial.lastIndex = start;
    return partial.test(text) ? start : text.length;
  }

  #closeCall(step: ScanStep, unclosed: boolean): void {
    const call = this.#call!;
    this.#call = undefined;
    for (const found of readCalls(call.opening, call.params)) {
      if (this.#tagCount >= maximumTagsPerReply) break;
      this.#tagCount += 1;
      step.tags.push({ kind: call.kind, name: call.kind === 'memory' ? '' : found.name, params: found.params, unclosed });
    }
    if (call.kind === 'tool') {
      this.#afterCall = true;
      this.#filler = 0;
    }
  }

  /** After a call: whitespace, the rest of its wrapper and further tags only. */
  #readAfterCall(text: string, position: number, ended: boolean, step: ScanStep): number {
    let at = position;
    for (;;) {
      spacePattern.lastIndex = at;
      at += spacePattern.exec(text)![0].length;
      this.#filler += at - position;
      if (this.#filler > maximumFillerAfterCall) return this.#cutHere(step);
      this.#keep(text.slice(position, at), step);
      position = at;
      if (at === text.length) return -1;
      const first = text[at];
      if (first !== '[' && first !== '<' && first !== '`') return this.#cutHere(step);
      const { verdict, tagAt } = this.#readOpeningAt(text, at);
      if (verdict.status === 'tag') return this.#open(text, at, tagAt, verdict.opening, step);
      if (verdict.status === 'maybe' && !ended) return this.#hold(text, at, verdict);
      if (first !== '`') return this.#cutHere(step);
      // A closing fence or backticks left from the call's wrapper.
      backticksPattern.lastIndex = at;
      at += backticksPattern.exec(text)![0].length;
    }
  }

  /** The model went on after a call: what it wrote since is dropped, never shown or kept. */
  #cutHere(step: ScanStep): number {
    this.#cut = true;
    step.cut = true;
    this.#held = '';
    this.#heldNameEnds = undefined;
    return -1;
  }
}

/** The same rules on a finished text. */
export function scanToolCalls(text: string, options: ToolCallScannerOptions = {}): { visible: string; tags: ScannedTag[]; cut: boolean } {
  const scanner = new ToolCallScanner(options);
  const first = scanner.push(text);
  const last = scanner.finish();
  return { visible: first.visible + last.visible, tags: [...first.tags, ...last.tags], cut: first.cut || last.cut };
}
