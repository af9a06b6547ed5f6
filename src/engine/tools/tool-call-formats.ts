/*
 * The shapes of tool call models really write, as the scanner reads them: where a call opens,
 * where it closes, and how its body becomes a name and params (the arguments as JSON text).
 * Every pattern has bounded quantifiers, so matching at one position costs a bounded time
 * whatever the text around it.
 */
import { parseLooseJson } from './tool-params.js';

export type CallFormat = 'bracket' | 'memory' | 'mistral' | 'hermes' | 'function-call' | 'llama' | 'fenced-json';

export interface Closing {
  /** Global pattern of the closing tag; absent when the body ends where its JSON brackets balance. */
  pattern?: RegExp;
  /** Sticky pattern: text from `trigger` to the end that may still grow into the closing tag. */
  partial?: RegExp;
  trigger?: string;
}

export interface Opening {
  format: CallFormat;
  /** The name when the opening tag carries it ('' when it is inside the body). */
  name: string;
  /** Characters of the opening tag: the body starts right after. */
  length: number;
  closing: Closing;
}

export type OpeningVerdict =
  | { status: 'tag'; opening: Opening }
  /** `nameEnds`: a name is being written at the end; more characters not matching it keep it possible. */
  | { status: 'maybe'; nameEnds?: RegExp }
  | { status: 'no' };

/** Longest stretch a half-written opening may take before it is treated as text. */
export const maximumOpeningLength = 240;
/** Longest closing tag: only a start of one this close to the end of a chunk is held back. */
export const maximumClosingLength = 160;

/** `(?:b(?:c)?)?`: any beginning of `word`, possibly empty (regex-safe words only). */
const beginningOf = (word: string): string => [...word].reduceRight((rest, character) => `(?:${character}${rest})?`, '');
/** Any non-empty beginning of `word`. */
const prefixOf = (word: string): string => `${word[0]}${beginningOf(word.slice(1))}`;
const escapeForPattern = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Brackets, angle brackets and fences of every call format the scanner reads become look-alikes
 * that no parser matches: `[TOOL:x]` → `⟦TOOL:x]`, `<tool_call>` → `‹tool_call>`, and no three
 * backticks stay together (a zero-width space after every two), so no fence opens. Every quantifier
 * is bounded, so this is linear in the size of the result.
 */
export function neutralizeTags(text: string): string {
  return text
    .replace(/\[(?=\s{0,16}\/?\s{0,16}(?:tool|memory_update|end_tool)[\s:_\]])/gi, '⟦')
    .replace(/<(?=\s{0,16}\/?\s{0,16}(?:tool_results?|tool_call|function))/gi, '‹')
    .replace(/``(?=`)/g, '``\u200B');
}

// ---- Openings ----

/** `[TOOL:name]`, `[MEMORY_UPDATE]`, and Mistral's `[TOOL_CALLS]` before a JSON list or object. */
const bracketOpening = /\[\s{0,16}(?:tool\s{0,16}:([^\][\n]{1,96})\]|(memory_update)\s{0,16}\]|(tool_calls)\s{0,16}\]\s{0,16}(?=[[{]))/iy;
const bracketPartial = new RegExp(
  `\\[\\s{0,16}(?:tool\\s{0,16}:[^\\]\\[\\n]{0,96}|tool\\s{1,16}|tool_calls\\s{0,16}(?:\\]\\s{0,16})?|memory_update\\s{0,16}|${prefixOf('tool_call')}|${prefixOf('memory_updat')})?$`,
  'iy',
);
const bracketName = /\[\s{0,16}tool\s{0,16}:/iy;

/** Hermes / Qwen `<tool_call>{...}` and `<function_call>{...}`; Llama's `<function=name>{...}`. */
const angleOpening = /<\s{0,16}(tool_call|function_call)\s{0,16}>\s{0,16}(?=\{)/iy;
const llamaOpening = /<\s{0,16}function\s{0,16}=\s{0,16}([\w.-]{1,96})\s{0,16}>\s{0,16}(?=[{<])/iy;
const anglePartial = new RegExp(
  `<\\s{0,16}(?:(?:tool_call|function_call)\\s{0,16}(?:>\\s{0,16})?|function\\s{0,16}(?:=\\s{0,16}(?:[\\w.-]{1,96}\\s{0,16}(?:>\\s{0,16})?)?)?|${prefixOf('tool_cal')}|${prefixOf('function_cal')})?$`,
  'iy',
);
const llamaName = /<\s{0,16}function\s{0,16}=\s{0,16}/iy;

/** A code fence whose body is a JSON object naming a tool. */
const fenceOpening = /```[ \t]{0,16}(?:json5?|js|javascript)?[ \t]{0,16}\r?\n\s{0,16}(?=\{)/iy;
const fencePartial = /```[ \t]{0,16}[a-z0-9]{0,12}[ \t]{0,16}\r?\n?\s{0,16}$/iy;
const jsonNameProbe = /\{\s{0,16}["']?(?:name|tool|tool_name|function)["']?\s{0,16}:\s{0,16}["']([^"'\n]{1,96})["']/iy;
const jsonNamePartial = /\{\s{0,16}(?:["']?[a-z_]{0,9}["']?\s{0,16}(?::\s{0,16}(?:["'][^"'\n]{0,96})?)?)?$/iy;
const jsonNameValue = /\{\s{0,16}["']?(?:name|tool|tool_name|function)["']?\s{0,16}:\s{0,16}["']/iy;

const bracketClosingPartial = new RegExp(`\\[\\s{0,16}(?:\\/[^\\]\\[\\n]{0,120}|${prefixOf('end_tool')}\\s{0,16})?$`, 'iy');
const angleClosingPartial = /<\s{0,16}(?:\/[^<>\n]{0,40})?$/y;

const closings = {
  memory: { pattern: /\[\s{0,16}\/\s{0,16}memory_update\s{0,16}\]/gi, partial: bracketClosingPartial, trigger: '[' },
  hermes: { pattern: /<\s{0,16}\/\s{0,16}tool_call\s{0,16}>/gi, partial: angleClosingPartial, trigger: '<' },
  'function-call': { pattern: /<\s{0,16}\/\s{0,16}function_call\s{0,16}>/gi, partial: angleClosingPartial, trigger: '<' },
  llama: { pattern: /<\s{0,16}\/\s{0,16}function\s{0,16}>/gi, partial: angleClosingPartial, trigger: '<' },
  'fenced-json': { pattern: /```/g, partial: /`{1,2}$/y, trigger: '`' },
  mistral: {},
} satisfies Record<string, Closing>;

/** `[/TOOL]`, `[/TOOL:name]`, `[/TOOL_CALL]`, `[/name]` and `[END_TOOL]` all close a `[TOOL:name]` call. */
function bracketClosing(name: string): Closing {
  const pattern = new RegExp(`\\[\\s{0,16}(?:\\/\\s{0,16}(?:tool(?:_call)?(?:\\s{0,16}:[^\\]\\[\\n]{0,96})?|${escapeForPattern(name)})|end_tool)\\s{0,16}\\]`, 'gi');
  return { pattern, partial: bracketClosingPartial, trigger: '[' };
}

const matchAt = (pattern: RegExp, text: string, at: number): RegExpExecArray | null => {
  pattern.lastIndex = at;
  return pattern.exec(text);
};
const testAt = (pattern: RegExp, text: string, at: number): boolean => {
  pattern.lastIndex = at;
  return pattern.test(text);
};

/** A name being written from the end of `match` on: where it starts, for the scanner's fast path. */
function nameVerdict(pattern: RegExp, text: string, at: number, nameEnds: RegExp): OpeningVerdict {
  const match = matchAt(pattern, text, at);
  if (match && !nameEnds.test(text.slice(at + match[0].length))) return { status: 'maybe', nameEnds };
  return { status: 'maybe' };
}

/**
 * Is there an opening at `at`, could the text from `at` to the end still grow into one, or not?
 * Fenced JSON counts only when `isKnownTool` says its name is a tool.
 */
export function readOpening(text: string, at: number, isKnownTool: ((name: string) => boolean) | undefined): OpeningVerdict {
  const short = text.length - at <= maximumOpeningLength;
  const first = text[at];
  if (first === '[') {
    const match = matchAt(bracketOpening, text, at);
    if (match) {
      const name = (match[1] ?? '').trim();
      if (match[2]) return { status: 'tag', opening: { format: 'memory', name: '', length: match[0].length, closing: closings.memory } };
      if (match[3]) return { status: 'tag', opening: { format: 'mistral', name: '', length: match[0].length, closing: closings.mistral } };
      if (name) return { status: 'tag', opening: { format: 'bracket', name, length: match[0].length, closing: bracketClosing(name) } };
    }
    if (short && testAt(bracketPartial, text, at)) return nameVerdict(bracketName, text, at, /[\][\n]/);
    return { status: 'no' };
  }
  if (first === '<') {
    const match = matchAt(angleOpening, text, at);
    if (match) {
      const format = match[1]!.toLowerCase() === 'tool_call' ? 'hermes' : 'function-call';
      return { status: 'tag', opening: { format, name: '', length: match[0].length, closing: closings[format] } };
    }
    const llama = matchAt(llamaOpening, text, at);
    if (llama) return { status: 'tag', opening: { format: 'llama', name: llama[1]!, length: llama[0].length, closing: closings.llama } };
    if (short && testAt(anglePartial, text, at)) return nameVerdict(llamaName, text, at, /[^\w.-]/);
    return { status: 'no' };
  }
  if (first === '`' && isKnownTool) {
    const fence = matchAt(fenceOpening, text, at);
    if (!fence) return short && testAt(fencePartial, text, at) ? { status: 'maybe' } : { status: 'no' };
    const bodyAt = at + fence[0].length;
    const probe = matchAt(jsonNameProbe, text, bodyAt);
    if (probe) {
      const name = probe[1]!.trim();
      return isKnownTool(name) ? { status: 'tag', opening: { format: 'fenced-json', name, length: fence[0].length, closing: closings['fenced-json'] } } : { status: 'no' };
    }
    if (short && testAt(jsonNamePartial, text, bodyAt)) return nameVerdict(jsonNameValue, text, bodyAt, /["'\n]/);
    return { status: 'no' };
  }
  return { status: 'no' };
}

// ---- Bodies ----

/**
 * Where a JSON list or object ends, read a piece at a time: each character is looked at once,
 * so a long body costs its length, however it arrives.
 */
export class JsonBalance {
  #depth = 0;
  #quote = '';
  #escaped = false;

  /** Index just after the closing bracket in `text` (reading from `from`), or -1 if not there yet. */
  find(text: string, from: number): number {
    for (let index = from; index < text.length; index++) {
      const character = text[index]!;
      if (this.#quote) {
        if (this.#escaped) this.#escaped = false;
        else if (character === '\\') this.#escaped = true;
        else if (character === this.#quote) this.#quote = '';
      } else if (character === '"' || character === "'") {
        this.#quote = character;
      } else if (character === '[' || character === '{') {
        this.#depth += 1;
      } else if (character === ']' || character === '}') {
        this.#depth -= 1;
        if (this.#depth <= 0) return index + 1;
      }
    }
    return -1;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `{"name": ..., "arguments": {...}}` and its cousins (`tool`/`parameters`, OpenAI's `function`). */
function callFromObject(value: unknown): { name: string; params: string } | undefined {
  if (!isObject(value)) return undefined;
  if (isObject(value.function)) return callFromObject(value.function);
  const name = [value.name, value.tool, value.tool_name, value.function].find((item): item is string => typeof item === 'string');
  if (name === undefined) return undefined;
  const input = value.arguments ?? value.parameters ?? value.args ?? value.input;
  const params = input === undefined ? '' : typeof input === 'string' ? input : JSON.stringify(input);
  return { name: name.trim(), params };
}

/** The name in a body that does not parse, from its first few hundred characters. */
function nameHint(body: string): string {
  return /["']?(?:name|tool|tool_name|function)["']?\s{0,16}:\s{0,16}["']([^"'\n]{1,96})["']/i.exec(body.slice(0, 400))?.[1]?.trim() ?? '';
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

/** The calls in a finished body: one, or several for a Mistral list. Params are the arguments as JSON text. */
export function readCalls(opening: Opening, body: string): Array<{ name: string; params: string }> {
  const trimmed = body.trim();
  switch (opening.format) {
    case 'bracket':
    case 'memory':
      return [{ name: opening.name, params: stripWrapper(body) }];
    case 'llama': {
      const value = parseLooseJson(trimmed);
      return [{ name: opening.name, params: isObject(value) ? JSON.stringify(value) : trimmed }];
    }
    case 'mistral': {
      const value = parseLooseJson(trimmed);
      const calls = (Array.isArray(value) ? value : [value]).map(callFromObject).filter((call) => call !== undefined);
      return calls.length > 0 ? calls : [{ name: nameHint(trimmed), params: trimmed }];
    }
    default: {
      const call = callFromObject(parseLooseJson(trimmed));
      if (call) return [{ name: opening.name || call.name, params: call.params }];
      return [{ name: opening.name || nameHint(trimmed), params: trimmed }];
    }
  }
}

/** The name of a call whose body passed the cap, if it can be told from the start of the body. */
export function nameOfCutCall(opening: Opening, body: string): string {
  return opening.name || nameHint(body);
}
