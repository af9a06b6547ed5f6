/*
 * The model writes an MCP tool's arguments between [TOOL:server.tool] and [/TOOL]. This reads
 * them into the JSON object the server expects and checks them against the tool's inputSchema,
 * so a mistake goes back to the model as one short sentence it can fix, not a server stack trace.
 */
import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import JSON5 from 'json5';

// ajv, and its draft 2020-12 build, are required by the first tool call that needs them (a
// Hearth without MCP servers never loads them); ajv is CommonJS, so this stays synchronous.
const require = createRequire(import.meta.url);
const loadAjv = (): typeof Ajv => (require('ajv') as { Ajv: typeof Ajv }).Ajv;
const loadAjv2020 = (): typeof Ajv2020 => (require('ajv/dist/2020.js') as { Ajv2020: typeof Ajv2020 }).Ajv2020;

export type JsonObject = Record<string, unknown>;

export interface InputSchema {
  type?: unknown;
  properties?: Record<string, unknown>;
  required?: unknown;
  [keyword: string]: unknown;
}

export type ArgumentReading = { ok: true; arguments: JsonObject } | { ok: false; message: string };

/** Bigger params than this are refused before parsing (model output is bounded here). */
export const maximumArgumentCharacters = 100_000;
const maximumCachedValidators = 500;
const shownProperties = 8;

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

function requiredNames(schema: InputSchema): string[] {
  return Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : [];
}

function typeName(property: unknown): string {
  if (!isObject(property)) return 'any';
  if (Array.isArray(property.enum)) return property.enum.slice(0, 5).map((item) => JSON.stringify(item)).join(' | ');
  const type = property.type;
  if (typeof type === 'string') return type === 'array' && isObject(property.items) && typeof property.items.type === 'string' ? `${property.items.type}[]` : type;
  if (Array.isArray(type)) return type.filter((item) => typeof item === 'string').join(' | ');
  if (Array.isArray(property.anyOf) || Array.isArray(property.oneOf)) {
    return ((property.anyOf ?? property.oneOf) as unknown[]).map(typeName).join(' | ');
  }
  return 'any';
}

/** `{"path": string (required), "head": number}`: how the model should call the tool. */
export function describeArguments(schema: InputSchema): string {
  const properties = Object.entries(isObject(schema.properties) ? schema.properties : {});
  const required = new Set(requiredNames(schema));
  const parts = properties
    .slice(0, shownProperties)
    .map(([name, property]) => `${JSON.stringify(name)}: ${typeName(property)}${required.has(name) ? ' (required)' : ''}`);
  if (properties.length > shownProperties) parts.push(`… ${properties.length - shownProperties} more`);
  return `{${parts.join(', ')}}`;
}

/** The one required string property, when the tool has exactly one: then plain text is that value. */
export function soleTextArgument(schema: InputSchema): string | undefined {
  const required = requiredNames(schema);
  if (required.length !== 1) return undefined;
  const property = isObject(schema.properties) ? schema.properties[required[0]!] : undefined;
  return isObject(property) && property.type === 'string' ? required[0] : undefined;
}

function where(error: ErrorObject): string {
  // "/edits/0/oldText" → "edits.0.oldText"
  return error.instancePath.replace(/^\//, '').replace(/\//g, '.');
}

function describeError(error: ErrorObject): string {
  const at = where(error);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `"${at ? `${at}.` : ''}${String(params.missingProperty)}" is missing`;
    case 'additionalProperties':
      return `"${String(params.additionalProperty)}" is not one of its arguments`;
    case 'type':
      return at ? `"${at}" must be ${String(params.type)}` : `the arguments must be ${String(params.type)}`;
    case 'enum':
      return `"${at}" must be one of ${(params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`;
    default:
      return at ? `"${at}" ${error.message ?? 'is not valid'}` : (error.message ?? 'the arguments are not valid');
  }
}

/**
 * Reads and validates arguments, with one compiled validator per schema (cached). A schema ajv
 * cannot compile is not the model's fault: the arguments then go to the server unchecked.
 */
export class McpArgumentReader {
  readonly #validators = new Map<string, ValidateFunction | undefined>();
  // coerceTypes: "5" for a number and "true" for a boolean are what the model meant.
  // Made on the first call that needs them: a Hearth without MCP servers never builds them.
  #draft7: Ajv | undefined;
  #draft2020: Ajv2020 | undefined;

  #validator(schema: InputSchema): ValidateFunction | undefined {
    const key = JSON.stringify(schema);
    if (this.#validators.has(key)) return this.#validators.get(key);
    if (this.#validators.size >= maximumCachedValidators) this.#validators.clear();
    let validate: ValidateFunction | undefined;
    try {
      const { $schema, $id: _id, ...rest } = schema; // $id would clash when two tools reuse one
      const options = { strict: false, allErrors: false, coerceTypes: true, validateFormats: false, logger: false } as const;
      const ajv =
        typeof $schema === 'string' && /2020-12|2019-09/.test($schema) ? (this.#draft2020 ??= new (loadAjv2020())(options)) : (this.#draft7 ??= new (loadAjv())(options));
      validate = ajv.compile(rest);
    } catch {
      validate = undefined;
    }
    this.#validators.set(key, validate);
    return validate;
  }

  read(toolName: string, rawParams: string, schema: InputSchema): ArgumentReading {
    const expects = () => `${toolName} expects ${describeArguments(schema)}`;
    if (rawParams.length > maximumArgumentCharacters) {
      return { ok: false, message: `${toolName}: the arguments are too long (${rawParams.length.toLocaleString('en')} characters; at most ${maximumArgumentCharacters.toLocaleString('en')}).` };
    }
    const text = rawParams.trim();
    let value: unknown;
    if (text === '') {
      value = {};
    } else if (text.startsWith('{')) {
      try {
        value = JSON5.parse(text);
      } catch (error) {
        const detail = error instanceof Error ? error.message.replace(/^JSON5: /, '') : String(error);
        return { ok: false, message: `${expects()}; the arguments are not valid JSON (${detail}).` };
      }
    } else {
      const textArgument = soleTextArgument(schema);
      if (textArgument === undefined) return { ok: false, message: `${expects()}; write the arguments as a JSON object.` };
      value = { [textArgument]: text };
    }
    if (!isObject(value)) return { ok: false, message: `${expects()}; write the arguments as a JSON object.` };

    const validate = this.#validator(schema);
    if (validate && !validate(value)) {
      const problem = validate.errors?.[0];
      return { ok: false, message: `${expects()}; ${problem ? describeError(problem) : 'the arguments are not valid'}.` };
    }
    return { ok: true, arguments: value };
  }
}
