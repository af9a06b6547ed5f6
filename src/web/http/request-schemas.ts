import type { ErrorObject, Options } from 'ajv';
import { schemaControllerCompilingOnFirstUse } from './compile-on-first-use.js';

/*
 * What a route (or a socket command) accepts, as JSON Schema, and the one way a refusal is worded.
 * Every field says, in `title` and `description`, what it is and what it must be: the message a
 * person gets names the field and the rule, never the value that was sent.
 */

/** A JSON Schema as the routes write it (Fastify and Ajv take plain objects). */
export type Schema = Record<string, unknown>;

/** The largest row id accepted: past it, numbers are no longer exact in JavaScript. */
export const maxRecordId = Number.MAX_SAFE_INTEGER;

/**
 * Ajv's options for route schemas (through Fastify) and socket commands alike. Addresses and forms
 * carry text, so types are coerced ("12" → 12); but not arrays to scalars (Fastify's default):
 * `["x"]` is not a title. `verbose` gives each error its schema, where the field's words are.
 */
export const requestAjvOptions: Options = {
  coerceTypes: true,
  allowUnionTypes: true,
  useDefaults: true,
  removeAdditional: true,
  verbose: true,
  // One error is enough to answer, and all of them would let a crafted request cost more.
  allErrors: false,
};

/**
 * A row id: a whole number from 1 to 2^53 − 1, written in plain digits. The digits are checked on
 * the text before Ajv coerces it: Ajv turns "Infinity", "-Infinity" and "1e400" into infinite
 * numbers and then skips minimum and maximum for them, and it reads "0x10", " 7" and "1e3" as
 * numbers too. At most 16 digits, so the number it becomes is finite and the maximum applies.
 */
export function recordId(name: string): Schema {
  const words = { title: `${name} id`, description: `a whole number from 1 to ${maxRecordId}` };
  return {
    ...words,
    allOf: [
      { ...words, type: ['string', 'integer'], pattern: '^[1-9][0-9]{0,15}$' },
      { ...words, type: 'integer', minimum: 1, maximum: maxRecordId },
    ],
  };
}

/** A row id that may be left empty (a form's hidden field before there is a conversation): '' stays ''. */
export function optionalRecordId(name: string): Schema {
  const words = { title: `${name} id`, description: `empty or a whole number from 1 to ${maxRecordId}` };
  return { ...words, anyOf: [{ ...words, const: '' }, recordId(name)] };
}

/** Whether a field of a schema is a row id (the route table test probes each one with bad ids). */
export function isRecordId(schema: unknown): boolean {
  const parts = (schema as { allOf?: Schema[]; anyOf?: Schema[] } | undefined)?.allOf ?? (schema as { anyOf?: Schema[] } | undefined)?.anyOf;
  return Boolean(parts?.some((part) => part.maximum === maxRecordId || isRecordId(part)));
}

export function text(title: string, extra: Schema = {}): Schema {
  return { title, description: 'text', type: 'string', ...extra };
}

export function oneOfWords(title: string, words: readonly string[]): Schema {
  return { title, description: words.join(' or '), enum: [...words] };
}

/** Fields by name; those in `required` must be there. Other fields pass untouched (a form's _csrf, htmx's headers). */
export function fields(properties: Record<string, Schema>, required: string[] = []): Schema {
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

/** The params of a route whose address ends in (or holds) `:id`. */
export function idParams(name: string): Schema {
  return fields({ id: recordId(name) }, ['id']);
}

/** Where a refused field was, in the words of the message. */
export type FieldPlace = 'params' | 'querystring' | 'body' | 'headers' | 'command';

const placeWords: Record<FieldPlace, string> = { params: 'address', querystring: 'address', body: 'request', headers: 'request headers', command: 'request' };

function fieldWords(schema: unknown, fallbackName: string): { name: string; rule?: string } {
  const { title, description } = (schema ?? {}) as { title?: unknown; description?: unknown };
  return { name: typeof title === 'string' ? title : `"${fallbackName.slice(0, 40)}" field`, rule: typeof description === 'string' ? description : undefined };
}

/**
 * One sentence for the first thing wrong, e.g. "The conversation id in the address must be a whole
 * number from 1 to 9007199254740991." Made from the schema's words only, never the value sent, so
 * it can go into a page, a JSON answer or an htmx swap as it is.
 */
export function describeSchemaErrors(errors: readonly ErrorObject[], place: FieldPlace): string {
  const where = placeWords[place] ?? 'request';
  // The innermost error comes first; the field's own words are on every level of its schema.
  const error = errors[0];
  if (!error) return `Something in the ${where} is not right.`;
  if (error.keyword === 'required') {
    const missing = String((error.params as { missingProperty?: unknown }).missingProperty ?? '');
    const properties = ((error.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {}) as Record<string, unknown>;
    const { name } = fieldWords(properties[missing], missing);
    return `The ${name} is missing from the ${where}.`;
  }
  // The whole part is wrong: no form at all, say, or a list where fields were expected.
  if (error.instancePath === '') return place === 'params' || place === 'querystring' ? 'The address is not right.' : 'The request has no fields where they were expected.';
  const fieldName = error.instancePath.split('/').pop() ?? '';
  const { name, rule } = fieldWords(error.parentSchema, fieldName);
  return `The ${name} in the ${where} ${rule ? `must be ${rule}` : (error.message ?? 'is not right')}.`;
}

/** Fastify's schemaErrorFormatter: the refusal's message (the error handler picks page, text or JSON). */
export function schemaErrorFormatter(errors: readonly ErrorObject[], place: string): Error {
  return new Error(describeSchemaErrors(errors, place as FieldPlace));
}

/** Fastify's options for route schemas: our Ajv settings and our wording. */
export const requestValidation = {
  ajv: { customOptions: requestAjvOptions },
  schemaErrorFormatter,
  schemaController: schemaControllerCompilingOnFirstUse,
};
