import { createRequire } from 'node:module';
import type { ErrorObject } from 'ajv';
import type { ValidatorFactory } from '@fastify/ajv-compiler';
import type { SerializerFactory } from '@fastify/fast-json-stringify-compiler';

/*
 * Fastify's own schema compilers (@fastify/ajv-compiler with our Ajv options and ajv-formats,
 * @fastify/fast-json-stringify-compiler), but each route's schema is compiled on its route's first
 * request instead of every one when Fastify starts, and the compilers (with Ajv) are loaded then
 * too: that was about a third of start-up. A mistake in a schema shows at that first request
 * (the app tests request every route), not at start. Both packages are CommonJS: required
 * synchronously, so validating stays synchronous.
 *
 * A compiled schema is kept for the process, by the schema's text and the compiler's options, and
 * reused by every app built in it: the server builds one, but each test builds its own, and
 * compiling the same route schemas again for each was the largest cost of the fast test run.
 */
const require = createRequire(import.meta.url);

/** What Fastify hands a compiler for one part of one route. */
type RouteSchema = { schema: unknown; method?: string; url?: string; httpPart?: string };
type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };
type Serialize = (data: unknown) => string;
type CompilerBuilder<Compiled> = (externalSchemas: unknown, options: unknown) => (route: RouteSchema) => Compiled;

/**
 * Whether Ajv, with our options, passes an empty object against this schema unchanged: an object
 * of optional fields with no defaults and no other rule. Such a schema needs no compiling for a
 * request that sends none of its fields.
 */
function acceptsNothingAsIs(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false;
  const { type, properties, title, description, ...rules } = schema as Record<string, unknown>;
  void title;
  void description;
  if (type !== 'object' || Object.keys(rules).length > 0) return false;
  if (properties === undefined) return true;
  if (typeof properties !== 'object' || properties === null) return false;
  return Object.values(properties).every((field) => typeof field === 'object' && field !== null && !('default' in field));
}

/** Compiled schemas by compiler options and schema text, for every app in this process. */
const compiled = new Map<string, unknown>();
/** What the compiler makes of this route's schema: compiled by `compile` once per process. */
function compiledOnce<Compiled>(compiler: string, route: RouteSchema, compile: () => (route: RouteSchema) => Compiled): Compiled {
  const text = `${compiler}\n${route.httpPart ?? ''}\n${JSON.stringify(route.schema)}`;
  let made = compiled.get(text) as Compiled | undefined;
  if (made === undefined) {
    made = compile()(route);
    compiled.set(text, made);
  }
  return made;
}

const isEmptyObject = (data: unknown): boolean => typeof data === 'object' && data !== null && !Array.isArray(data) && Object.keys(data).length === 0;

function buildValidatorOnFirstUse(externalSchemas: unknown, options: unknown): (route: RouteSchema) => Validate {
  let compile: ((route: RouteSchema) => Validate) | undefined;
  const compiler = JSON.stringify(['validator', externalSchemas, options]);
  return (route) => {
    let validate: Validate | undefined;
    const passesEmpty = acceptsNothingAsIs(route.schema);
    const validateOnFirstUse: Validate = (data) => {
      // A page opened without a query (GET /login, the chat) needs no Ajv until something is sent.
      if (validate === undefined && passesEmpty && isEmptyObject(data)) {
        validateOnFirstUse.errors = null;
        return true;
      }
      // require runs once, with the first compile; later requests use the compiled function alone.
      validate ??= compiledOnce(compiler, route, () => (compile ??= (require('@fastify/ajv-compiler') as { AjvCompiler: () => CompilerBuilder<Validate> }).AjvCompiler()(externalSchemas, options)));
      const valid = validate(data);
      // Fastify reads a refusal's errors from the function it was given.
      validateOnFirstUse.errors = validate.errors;
      return valid;
    };
    return validateOnFirstUse;
  };
}

function buildSerializerOnFirstUse(externalSchemas: unknown, options: unknown): (route: RouteSchema) => Serialize {
  let compile: ((route: RouteSchema) => Serialize) | undefined;
  const compiler = JSON.stringify(['serializer', externalSchemas, options]);
  return (route) => {
    let serialize: Serialize | undefined;
    return (data) => {
      serialize ??= compiledOnce(compiler, route, () => (compile ??= (require('@fastify/fast-json-stringify-compiler') as { SerializerSelector: () => CompilerBuilder<Serialize> }).SerializerSelector()(externalSchemas, options)));
      return serialize(data);
    };
  };
}

/** Fastify's `schemaController` option. */
export const schemaControllerCompilingOnFirstUse = {
  compilersFactory: {
    buildValidator: buildValidatorOnFirstUse as unknown as ValidatorFactory,
    buildSerializer: buildSerializerOnFirstUse as unknown as SerializerFactory,
  },
};
