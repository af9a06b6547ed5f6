/*
 * What the mail tools take: header fields, then a body that runs to the end. Shared by the tools
 * that draft, send, reply and forward.
 */
import { ToolError } from '../../engine/tools/tool.js';
import { pick, readToolInput, type ToolInput } from './tool-input.js';

export const bodyKeys = ['body', 'message', 'text', 'content'];

/**
 * In "key: value" lines the body comes last and runs to the end, so a body line such as
 * "Note: bring boots" stays in the body. Known header lines after the body are still taken.
 */
export function splitBody(raw: string, headerKeys: string[]): { head: string; body: string | undefined } {
  const text = raw.trim();
  if (text.startsWith('{')) return { head: text, body: undefined };
  const match = new RegExp(`^[ \\t]*(?:${bodyKeys.join('|')})[ \\t]*:[ \\t]?`, 'im').exec(text);
  if (!match) return { head: text, body: undefined };
  const bodyLines = text.slice(match.index + match[0].length).split(/\r?\n/);
  const trailing: string[] = [];
  const headerLine = new RegExp(`^\\s*(?:${headerKeys.join('|').replace(/_/g, '[ _-]')})\\s*:`, 'i');
  while (bodyLines.length > 1 && headerLine.test(bodyLines.at(-1)!)) trailing.unshift(bodyLines.pop()!);
  return { head: [text.slice(0, match.index), ...trailing].join('\n'), body: bodyLines.join('\n').trim() };
}

/** The fields and the body of a mail tool's call; a ToolError with an example when the body is missing. */
export function readMailInput(raw: string, headerKeys: string[], example: string): { input: ToolInput; body: string } {
  const { head, body: lineBody } = splitBody(raw, headerKeys);
  const input = readToolInput(head, [...headerKeys, ...bodyKeys]);
  const body = lineBody ?? pick(input, ...bodyKeys);
  if (!body) throw new ToolError(`Give the message a body, for example:\n${example}`);
  return { input, body };
}
