/**
 * Models write tool params in many shapes. This reads the common ones into one form:
 *   JSON object           {"to": "a@b.c", "subject": "Hi"}
 *   key=value pairs        to=a@b.c subject="Hi there"
 *   key: value lines       to: a@b.c\nsubject: Hi
 *   plain text             2 * (3 + 4)        → text only, words in `words`
 * Keys are lower-cased with spaces and dashes turned into underscores.
 */
export interface ToolParams {
  /** The raw params, trimmed, without surrounding quotes. */
  text: string;
  /** Named values, when the params had any. */
  fields: Record<string, string>;
  /** The text split on whitespace (quoted parts kept together). */
  words: string[];
}

const normalizeKey = (key: string) => key.trim().toLowerCase().replace(/[\s-]+/g, '_');

function unquote(value: string): string {
  const trimmed = value.trim();
  const quoted = /^(["'])([\s\S]*)\1$/.exec(trimmed);
  return quoted ? quoted[2]! : trimmed;
}

function splitWords(text: string): string[] {
  return [...text.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2] ?? match[3]!);
}

function fromJson(text: string): Record<string, string> | undefined {
  if (!text.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [normalizeKey(key), typeof item === 'string' ? item : JSON.stringify(item)]),
    );
  } catch {
    return undefined;
  }
}

function fromKeyValuePairs(text: string): Record<string, string> | undefined {
  const pattern = /([A-Za-z_][\w-]*)\s*=\s*("([^"]*)"|'([^']*)'|\S+)/g;
  const fields: Record<string, string> = {};
  let consumed = 0;
  for (const match of text.matchAll(pattern)) {
    fields[normalizeKey(match[1]!)] = match[3] ?? match[4] ?? match[2]!;
    consumed += match[0].length;
  }
  // Only when nearly all the text is pairs: "1+1=2" is not a pair.
  return Object.keys(fields).length > 0 && consumed >= text.replace(/\s+/g, ' ').length * 0.6 ? fields : undefined;
}

function fromLines(text: string): Record<string, string> | undefined {
  const fields: Record<string, string> = {};
  let key: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*([A-Za-z_][\w -]{0,30}?)\s*:\s?(.*)$/.exec(line);
    if (match && !/^https?$/i.test(match[1]!)) {
      key = normalizeKey(match[1]!);
      fields[key] = match[2]!;
    } else if (key !== undefined) {
      fields[key] += `\n${line}`; // a multi-line value such as an email body
    } else if (line.trim()) {
      return undefined;
    }
  }
  const entries = Object.entries(fields).map(([name, value]) => [name, unquote(value)] as const);
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

export function parseToolParams(raw: string): ToolParams {
  const text = unquote(raw);
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
