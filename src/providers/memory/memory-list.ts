import type { MemoryFile, MemoryWriteResult } from './memory-file.js';

/**
 * memory.md read as the things the assistant remembers: each item of a Markdown list, each line
 * of a paragraph and each other block (a quote, a table, code) is one entry; headings group them.
 * An entry knows where it is in the file, so adding, editing or removing one rewrites only that
 * part and a hand-edited file keeps every other byte. The lexer is marked's, loaded on first use.
 */
export interface MemoryEntry {
  /** 1-based position among the entries: what a form names. */
  number: number;
  kind: 'item' | 'line' | 'block' | 'heading';
  /** What the entry says, without its list marker. */
  text: string;
  /** Where its text is: [start, start + length) of the file. */
  start: number;
  length: number;
  /** Where the whole entry is, line end included: what Remove cuts. */
  removeStart: number;
  removeEnd: number;
  /** What continuation lines are indented by (an item's marker width), so an edit stays one item. */
  indent: string;
}

interface LexedToken {
  type: string;
  raw: string;
  text?: string;
  items?: { raw: string; text: string }[];
}

const itemPrefix = /^( {0,3})([-*+]|\d{1,9}[.)])( {1,4}|$)/;

/** The file as entries; a file marked cannot map back to its bytes is read one entry per line. */
export async function readMemoryEntries(content: string): Promise<MemoryEntry[]> {
  const { Lexer } = await import('marked');
  const tokens = Lexer.lex(content, { gfm: true }) as LexedToken[];
  return entriesFromTokens(content, tokens) ?? entriesFromLines(content, 0, content.length);
}

function entriesFromTokens(content: string, tokens: LexedToken[]): MemoryEntry[] | undefined {
  const entries: Omit<MemoryEntry, 'number'>[] = [];
  let position = 0;
  for (const token of tokens) {
    if (!content.startsWith(token.raw, position)) return undefined;
    if (token.type === 'list' && token.items) {
      let itemPosition = position;
      for (const item of token.items) {
        if (!content.startsWith(item.raw, itemPosition)) return undefined;
        const prefix = itemPrefix.exec(item.raw)?.[0] ?? '';
        const body = item.raw.trimEnd();
        entries.push({
          kind: 'item',
          text: item.text.trim(),
          start: itemPosition + prefix.length,
          length: body.length - prefix.length,
          ...removalRange(content, itemPosition, itemPosition + item.raw.length),
          indent: ' '.repeat(prefix.length),
        });
        itemPosition += item.raw.length;
      }
    } else if (token.type === 'paragraph' || token.type === 'text') {
      entries.push(...entriesFromLines(content, position, position + token.raw.length));
    } else if (token.type === 'heading') {
      const body = token.raw.trimEnd();
      entries.push({ kind: 'heading', text: token.text ?? body, start: position, length: body.length, ...removalRange(content, position, position + token.raw.length), indent: '' });
    } else if (token.type !== 'space' && token.type !== 'hr' && token.type !== 'def') {
      const body = token.raw.trimEnd();
      if (body.trim()) entries.push({ kind: 'block', text: body, start: position, length: body.length, ...removalRange(content, position, position + token.raw.length), indent: '' });
    }
    position += token.raw.length;
  }
  if (position !== content.length) return undefined;
  return entries.map((entry, index) => ({ ...entry, number: index + 1 }));
}

/** One entry per non-blank line of [from, to); a line with a list marker or a heading's #s is read as one. */
function entriesFromLines(content: string, from: number, to: number): MemoryEntry[] {
  const entries: MemoryEntry[] = [];
  let lineStart = from;
  while (lineStart < to) {
    const newline = content.indexOf('\n', lineStart);
    const lineEnd = newline === -1 || newline >= to ? to : newline;
    const line = content.slice(lineStart, lineEnd).replace(/\r$/, '');
    // A list marker on a line read this way (a CRLF file) still marks an item.
    const prefix = itemPrefix.exec(line)?.[0] ?? /^ {0,3}#{1,6}[ \t]+/.exec(line)?.[0] ?? '';
    const leading = prefix.length || line.length - line.trimStart().length;
    if (line.slice(leading).trim()) {
      entries.push({
        number: 0,
        kind: prefix.includes('#') ? 'heading' : prefix ? 'item' : 'line',
        text: line.trim().slice(prefix ? prefix.trimStart().length : 0).trim(),
        start: lineStart + leading,
        length: line.trimEnd().length - leading,
        ...removalRange(content, lineStart, lineEnd),
        indent: ' '.repeat(prefix.length),
      });
    }
    lineStart = lineEnd + 1;
  }
  return entries.map((entry, index) => ({ ...entry, number: index + 1 }));
}

/** A whole entry with its line end, so removing it leaves no empty line behind. */
function removalRange(content: string, start: number, end: number) {
  let removeEnd = end;
  if (!content.slice(start, end).endsWith('\n') && content[removeEnd] === '\n') removeEnd += 1;
  return { removeStart: start, removeEnd };
}

/** New text for an entry, on one entry's lines: later lines are indented under an item's marker. */
function entryText(text: string, indent: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .trim()
    .split('\n')
    .map((line, index) => (index === 0 || !line.trim() ? line.trimEnd() : indent + line.trim()))
    .join('\n');
}

/** Joins two parts of the file without leaving more than one blank line where a part was cut. */
function joinAtCut(before: string, after: string): string {
  if (before === '' || before.endsWith('\n\n')) return before + after.replace(/^\n+/, '');
  return before + after;
}

export function replaceMemoryEntry(content: string, entry: MemoryEntry, text: string): string {
  if (!text.trim()) return removeMemoryEntry(content, entry);
  return content.slice(0, entry.start) + entryText(text, entry.indent) + content.slice(entry.start + entry.length);
}

export function removeMemoryEntry(content: string, entry: MemoryEntry): string {
  return joinAtCut(content.slice(0, entry.removeStart), content.slice(entry.removeEnd));
}

/** A new list item at the end, in the marker style of a list that ends the file ("- " otherwise). */
export function addMemoryEntry(content: string, entries: MemoryEntry[], text: string): string {
  const last = entries.at(-1);
  const lastItem = last?.kind === 'item' && content.slice(last.removeEnd).trim() === '' ? last : undefined;
  let marker = '- ';
  if (lastItem) {
    const prefix = itemPrefix.exec(content.slice(lastItem.removeStart, lastItem.start)) ?? [];
    const bullet = prefix[2] ?? '-';
    marker = `${prefix[1] ?? ''}${/\d/.test(bullet) ? `${Number.parseInt(bullet, 10) + 1}${bullet.at(-1)}` : bullet} `;
  }
  const body = content.replace(/\s+$/, '');
  const separator = body === '' ? '' : lastItem ? '\n' : '\n\n';
  return `${body}${separator}${marker}${entryText(text, ' '.repeat(marker.length))}\n`;
}

export type MemoryListChange =
  | { action: 'add'; text: string }
  | { action: 'edit'; entry: number; text: string }
  | { action: 'remove'; entry: number };

export type MemoryListResult =
  | MemoryWriteResult
  | { ok: false; reason: 'no-entry'; message: string }
  | { ok: false; reason: 'full'; message: string };

/** How full the memory is, in whole percent (a few bytes show as 1%, never 0%). */
export function memoryPercentFull(bytes: number, maxBytes: number): number {
  if (bytes === 0) return 0;
  return Math.max(1, Math.round((bytes / maxBytes) * 100));
}

/**
 * One change to one entry, made to the memory the page showed (`revision`): if the file changed
 * since, nothing is written. A change that would take the memory over its cap (and makes it
 * bigger) is refused with a sentence saying so; removing always works.
 */
export async function changeMemoryList(memory: MemoryFile, revision: string, change: MemoryListChange): Promise<MemoryListResult> {
  const snapshot = await memory.read();
  if (snapshot.revision !== revision) {
    return { ok: false, reason: 'changed', message: 'The memory changed since this page showed it (the assistant or an editor wrote to it). Nothing was changed: here it is as it is now.', snapshot };
  }
  const entries = await readMemoryEntries(snapshot.content);
  let next: string;
  if (change.action === 'add') {
    next = addMemoryEntry(snapshot.content, entries, change.text);
  } else {
    const entry = entries[change.entry - 1];
    if (!entry || entry.kind === 'heading') return { ok: false, reason: 'no-entry', message: 'That entry is no longer in the memory.' };
    next = change.action === 'edit' ? replaceMemoryEntry(snapshot.content, entry, change.text) : removeMemoryEntry(snapshot.content, entry);
  }
  const bytes = Buffer.byteLength(next, 'utf8');
  if (bytes > memory.maxBytes && bytes > snapshot.bytes) {
    return {
      ok: false,
      reason: 'full',
      message: `There is no room for that: it would make the memory ${memoryPercentFull(bytes, memory.maxBytes)}% full. Remove or shorten something first.`,
    };
  }
  return memory.write(next, 'browser', revision);
}
