import { createRequire } from 'node:module';
import type { Ajv, ValidateFunction } from 'ajv';
import { describeSchemaErrors, fields, oneOfWords, optionalRecordId, recordId, requestAjvOptions, text, type Schema } from '../http/request-schemas.js';
import { sendFields } from './send-routes.js';

/** Largest frame we read as a chat command; bigger ones are refused with a message. */
export const maxCommandBytes = 256 * 1024;

/**
 * What the chat page sends over its socket, once checked. Ids are numbers; an empty form field
 * ('' for a new chat's conversation) stays ''. Other fields htmx adds (its headers, the form's
 * _csrf) are ignored.
 */
export type SocketCommand =
  | { type: 'send'; message: string; conversationId?: number | ''; model?: string; attachments?: string | string[]; think?: string }
  | { type: 'edit'; messageId: number; message: string; model?: string }
  | { type: 'regenerate'; messageId: number; model?: string }
  | { type: 'version'; messageId: number; direction: 'earlier' | 'later'; shownFrom?: number | '' }
  | { type: 'approval'; toolCallId: number; decision: 'approve' | 'deny'; always?: string }
  | { type: 'stop'; conversationId?: number | '' };

type CommandType = SocketCommand['type'];

/** One schema per command type: the same words and id rules as the routes' schemas. */
const commandSchemas: Record<CommandType, Schema> = {
  // The chat form's own fields: the same form posts to /send before the socket is open.
  send: fields(sendFields),
  edit: fields({ messageId: recordId('message'), message: text('message', { default: '' }), model: text('model') }, ['messageId']),
  regenerate: fields({ messageId: recordId('message'), model: text('model') }, ['messageId']),
  version: fields(
    { messageId: recordId('message'), direction: oneOfWords('version to show', ['earlier', 'later']), shownFrom: optionalRecordId('first shown message') },
    ['messageId', 'direction'],
  ),
  approval: fields({ toolCallId: recordId('tool call'), decision: oneOfWords('answer', ['approve', 'deny']), always: text('"Always allow" tick') }, ['toolCallId', 'decision']),
  stop: fields({ conversationId: optionalRecordId('conversation') }),
};

// Ajv is loaded and each type's validator compiled on the type's first use, not at start (Ajv is
// CommonJS: required synchronously).
const require = createRequire(import.meta.url);
let ajv: Ajv | undefined;
const validators = new Map<string, ValidateFunction>();
function validatorFor(type: unknown): ValidateFunction | undefined {
  if (typeof type !== 'string' || !Object.hasOwn(commandSchemas, type)) return undefined;
  let validate = validators.get(type);
  if (!validate) {
    validate = (ajv ??= new (require('ajv') as { Ajv: typeof Ajv }).Ajv(requestAjvOptions)).compile(commandSchemas[type as CommandType]);
    validators.set(type, validate);
  }
  return validate;
}

/** A command, or the sentence to show instead (the socket stays open either way). */
export type ReadCommand = { command: SocketCommand; problem?: undefined } | { command?: undefined; problem: string };

const reloadHint = 'Reload the page and try again.';

/** The one door for what comes in on the chat socket: size, JSON, a known type, then that type's schema. */
export function readSocketCommand(data: Buffer, isBinary: boolean): ReadCommand {
  if (isBinary) return { problem: 'Only text messages are understood here.' };
  if (data.length > maxCommandBytes) {
    return { problem: `That message is too large (${Math.round(data.length / 1024)} KB); the limit is ${maxCommandBytes / 1024} KB.` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(data.toString('utf8'));
  } catch {
    return { problem: `The server could not read that message (it was not JSON). ${reloadHint}` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { problem: `The server could not read that message. ${reloadHint}` };
  const type = (parsed as { type?: unknown }).type;
  const validate = validatorFor(type);
  if (!validate) return { problem: `Unknown request type ${JSON.stringify(String(type)).slice(0, 40)}.` };
  if (!validate(parsed)) return { problem: `${describeSchemaErrors(validate.errors ?? [], 'command')} ${reloadHint}` };
  return { command: parsed as SocketCommand };
}
