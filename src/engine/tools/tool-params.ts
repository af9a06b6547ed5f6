/**
 * Models write tool params in many shapes. This reads the common ones into one form:
 *   JSON object           {"to": "a@b.c", "subject": "Hi"}, or loosely: {to: 'a@b.c', subject: 'Hi',}
 *   key=value pairs        to=a@b.c subject="Hi there"
 *   key: value lines       to: a@b.c\nsubject: Hi
 *   plain text             2 * (3 + 4)        → text only, words in `words`
 * Keys are lower-cased with spaces and dashes turned into underscores.
 */
import JSON5 from 'json5';

export interface ToolParams {
  /** The raw params, trimmed, without surrounding quotes. */
  text: string;
  /** Named values, when the params had any. */
  fields: Record<string, string>;
  /** The text split on whitespace (quoted parts kept together). */
  words: string[];
}

/** Longest params a tool call may have (characters); the scanner ends a call past it. */
export const maximumParamsLength = 16 * 1024;

const normalizeKey = (key: string) => key.trim().toLowerCase().replace(/[\s-]+/g, '_');

// Every reader below walks the text once: model output can be long and repetitive, and a
// backtracking pattern over it would stall the server.
const isSpace = (character: string | undefined) => character !== undefined && /\s/.test(character);
const isKeyStart = (character: string | undefined) => character !== undefined && /[A-Za-z_]/.test(character);
const isKeyPart = (character: string | undefined) => character !== undefined && /[\w-]/.test(character);

function unquote(value: string): string {
  const trimmed = value.trim();
  const quote = trimmed[0];
  return trimmed.length >= 2 && (quote === '"' || quote === "'") && trimmed.endsWith(quote) ? trimmed.slice(1, -1) : trimmed;
}

/** Finds quotes going forward only, remembering where none is left, so repeated misses stay linear. */
function quoteFinder(text: string): (quote: string, from: number) => number {
  const noneAfter: Record<string, number> = { '"': Number.POSITIVE_INFINITY, "'": Number.POSITIVE_INFINITY };
  return (quote, from) => {
    if (from >= noneAfter[quote]!) return -1;
    const index = text.indexOf(quote, from);
    if (index === -1) noneAfter[quote] = from;
    return index;
  };
}

/** Whitespace-separated words; a word opening with a quote runs to the matching quote. */
function splitWords(text: string): string[] {
  const words: string[] = [];
  const findQuote = quoteFinder(text);
  let index = 0;
  while (index < text.length) {
    while (isSpace(text[index])) index += 1;
    if (index >= text.length) break;
    const quote = text[index]!;
    if (quote === '"' || quote === "'") {
      const close = findQuote(quote, index + 1);
      if (close !== -1) {
        words.push(text.slice(index + 1, close));
        index = close + 1;
        continue;
      }
    }
    const start = index;
    while (index < text.length && !isSpace(text[index])) index += 1;
    words.push(text.slice(start, index));
  }
  return words;
}

/**
 * JSON, or JSON5 when the model wrote it loosely (single quotes, trailing commas, bare keys);
 * undefined when it is neither. Text past maximumParamsLength is not parsed.
 */
export function parseLooseJson(text: string): unknown {
  if (text.length > maximumParamsLength) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    try {
      return JSON5.parse(text);
    } catch {
      return undefined;
    }
  }
}

function fromJson(text: string): Record<string, string> | undefined {
  if (!text.startsWith('{')) return undefined;
  const value = parseLooseJson(text);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [normalizeKey(key), typeof item === 'string' ? item : JSON.stringify(item)]));
}

/** key=value pairs anywhere in the text; a value is a quoted string or runs to the next space. */
function fromKeyValuePairs(text: string): Record<string, string> | undefined {
  const fields: Record<string, string> = {};
  const findQuote = quoteFinder(text);
  let consumed = 0;
  let index = 0;
  while (index < text.length) {
    if (!isKeyStart(text[index])) {
      index += 1;
      continue;
    }
    const start = index;
    let cursor = index;
    while (isKeyPart(text[cursor])) cursor += 1;
    const keyEnd = cursor;
    index = keyEnd; // a key that is not followed by "=" cannot start later in the same word either
    while (isSpace(text[cursor])) cursor += 1;
    if (text[cursor] !== '=') continue;
    cursor += 1;
    while (isSpace(text[cursor])) cursor += 1;
    if (cursor >= text.length) continue;
    const quote = text[cursor]!;
    let value: string | undefined;
    if (quote === '"' || quote === "'") {
      const close = findQuote(quote, cursor + 1);
      if (close !== -1) {
        value = text.slice(cursor + 1, close);
        cursor = close + 1;
      }
    }
    if (value === undefined) {
      const valueStart = cursor;
      while (cursor < text.length && !isSpace(text[cursor])) cursor += 1;
      value = text.slice(valueStart, cursor);
    }
    fields[normalizeKey(text.slice(start, keyEnd))] = value;
    consumed += cursor - start;
    index = cursor;
  }
  // Only when nearly all the text is pairs: "1+1=2" is not a pair.
  return Object.keys(fields).length > 0 && consumed >= text.replace(/\s+/g, ' ').length * 0.6 ? fields : undefined;
}

/** "key: value" at the start of a line; the key is short and made of words. */
function readLineKey(line: string): { key: string; value: string } | undefined {
  const colon = line.indexOf(':');
  if (colon === -1) return undefined;
  const key = line.slice(0, colon).trim();
  if (key.length === 0 || key.length > 31 || !/^[A-Za-z_][\w -]*$/.test(key) || /^https?$/i.test(key)) return undefined;
  const rest = line.slice(colon + 1);
  return { key, value: isSpace(rest[0]) ? rest.slice(1) : rest };
}

function fromLines(text: string): Record<string, string> | undefined {
  const fields: Record<string, string> = {};
  let key: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    const pair = readLineKey(line);
    if (pair) {
      key = normalizeKey(pair.key);
      fields[key] = pair.value;
    } else if (key !== undefined) {
      fields[key] += `\n${line}`; // a multi-line value such as an email body
    } else if (line.trim()) {
      return undefined;
    }
  }
  const entries = Object.entries(fields).map(([name, value]) => [name, unquote(value)] as const);
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

/** Reads params in any of the shapes above; text past maximumParamsLength is not read. */
export function parseToolParams(raw: string): ToolParams {
  const text = unquote(raw.length > maximumParamsLength ? raw.slice(0, maximumParamsLength) : raw);
  const fields = fromJson(text) ?? fromKeyValuePairs(text) ?? fromLines(text) ?? {};
  return { text, fields, words: splitWords(text) };
}

/** A field by any of its names, or throws a ToolError-worthy message via the caller. */
export function field(params: ToolParams, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = params.fields[name];
    if (value !== undefined && value.trim() !== '') return value.trim();
  }
  return undefined;
}
