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
 */
const require = createRequire(import.meta.url);

/** What Fastify hands a compiler for one part of one route. */
type RouteSchema = { schema: unknown; method?: string; url?: string; httpPart?: string };
type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };
type Serialize = (data: unknown) => string;
type CompilerBuilder<Compiled> = (externalSchemas: unknown, options: unknown) => (route: RouteSchema) => Compiled;

function buildValidatorOnFirstUse(externalSchemas: unknown, options: unknown): (route: RouteSchema) => Validate {
  let compile: ((route: RouteSchema) => Validate) | undefined;
  return (route) => {
    let validate: Validate | undefined;
    const validateOnFirstUse: Validate = (data) => {
      // require runs once, with the first compile; later requests use the compiled function alone.
      validate ??= (compile ??= (require('@fastify/ajv-compiler') as { AjvCompiler: () => CompilerBuilder<Validate> }).AjvCompiler()(externalSchemas, options))(route);
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
  return (route) => {
    let serialize: Serialize | undefined;
    return (data) => {
      serialize ??= (compile ??= (require('@fastify/fast-json-stringify-compiler') as { SerializerSelector: () => CompilerBuilder<Serialize> }).SerializerSelector()(externalSchemas, options))(route);
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
