import { parseToolParams } from '../../engine/tools/tool-params.js';
import { splitAccountPrefix } from './account-prefix.js';

export interface ToolInput {
  /** Known fields only, keys as listed. */
  fields: Record<string, string>;
  /** The whole params as text when they were not fields. */
  text: string;
}

/**
 * Google tools take fields (JSON, key: value lines, key=value) or plain text. Gmail queries and
 * times contain colons ("from:school", "9:00"), which a key: value reader takes for fields, so
 * fields count only when at least one is a name the tool knows; otherwise it is all text.
 */
export function readToolInput(raw: string, knownKeys: string[]): ToolInput {
  const params = parseToolParams(raw);
  const known = Object.entries(params.fields).filter(([key, value]) => knownKeys.includes(key) && value.trim() !== '');
  if (known.length === 0) return { fields: {}, text: params.text };
  return { fields: Object.fromEntries(known.map(([key, value]) => [key, value.trim()])), text: '' };
}

/** The first of several names for one field. */
export function pick(input: ToolInput, ...names: string[]): string | undefined {
  for (const name of names) if (input.fields[name] !== undefined) return input.fields[name];
  return undefined;
}

/** The account (a field, or a prefix of plain text) and the main value (a field, or the rest of the text). */
export function accountAndValue(input: ToolInput, accounts: string[], ...names: string[]): { account: string | undefined; value: string } {
  if (input.text) {
    const split = splitAccountPrefix(input.text, accounts);
    return { account: split.account, value: split.rest };
  }
  return { account: pick(input, 'account'), value: pick(input, ...names) ?? '' };
}
