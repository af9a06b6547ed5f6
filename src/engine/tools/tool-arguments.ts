/*
 * A call's arguments checked against its tool's JSON Schema (Tool.parameters) before it runs,
 * in both modes: a native call always brings a JSON object, and a [TOOL:] call written as JSON is
 * checked the same way. Params written as free text or key=value stay the tool's own to read. A
 * mistake goes back to the model as a short sentence naming what the tool takes.
 */
import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { parseLooseJson } from './tool-params.js';
import type { Tool, ToolParameters } from './tool.js';

// ajv is CommonJS and loaded by the first call that is checked: a chat without tools never loads it.
const require = createRequire(import.meta.url);
let ajv: Ajv | undefined;
const validators = new WeakMap<ToolParameters, ValidateFunction | null>();

/** One validator per schema; a schema ajv cannot compile (an MCP server's odd one) leaves the call unchecked here. */
function validatorFor(parameters: ToolParameters): ValidateFunction | undefined {
  const known = validators.get(parameters);
  if (known !== undefined) return known ?? undefined;
  let validate: ValidateFunction | null;
  try {
    // coerceTypes: "5" for a number is what the model meant; the tool reads its params itself.
    ajv ??= new (require('ajv') as { Ajv: typeof Ajv }).Ajv({ strict: false, allErrors: true, coerceTypes: true, validateFormats: false, logger: false });
    const { $schema: _schema, $id: _id, ...schema } = parameters;
    validate = ajv.compile(schema);
  } catch {
    validate = null;
  }
  validators.set(parameters, validate);
  return validate ?? undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** What the tool takes, in one line: `{"expression": string (required)}`. */
export function argumentsLine(parameters: ToolParameters): string {
  const required = new Set(parameters.required ?? []);
  const parts = Object.entries(parameters.properties)
    .slice(0, 8)
    .map(([name, property]) => `${JSON.stringify(name)}: ${typeof property.type === 'string' ? property.type : 'any'}${required.has(name) ? ' (required)' : ''}`);
  return `{${parts.join(', ')}}`;
}

function describeError(error: ErrorObject): string {
  const where = error.instancePath ? `"${error.instancePath.slice(1).replace(/\//g, '.')}" ` : '';
  if (error.keyword === 'additionalProperties') return `there is no argument "${String((error.params as { additionalProperty?: unknown }).additionalProperty)}"`;
  return `${where}${error.message ?? 'is not valid'}`;
}

/**
 * Why these arguments cannot go to the tool, or undefined when they can (or are not JSON, for a
 * [TOOL:] call: the tool reads those itself). `native`: the call came as the model's own tool
 * call, so its arguments must be a JSON object.
 */
export function argumentsProblem(tool: Pick<Tool, 'name' | 'parameters' | 'describedOutside'>, params: string, native: boolean): string | undefined {
  // A tool described outside (an MCP server's) checks its server's schema itself, drafts and all.
  if (tool.describedOutside) return undefined;
  const text = params.trim();
  const takes = `${tool.name} takes ${argumentsLine(tool.parameters)}`;
  if (!text.startsWith('{')) return native && text !== '' ? `Not run: the arguments must be a JSON object; ${takes}.` : undefined;
  const value = parseLooseJson(text);
  if (!isObject(value)) return native ? `Not run: the arguments are not valid JSON; ${takes}.` : undefined;
  const validate = validatorFor(tool.parameters);
  if (!validate || validate(value)) return undefined;
  const problems = [...new Set((validate.errors ?? []).slice(0, 4).map(describeError))];
  return `Not run: the arguments do not fit: ${problems.join('; ')}. ${takes}.`;
}
