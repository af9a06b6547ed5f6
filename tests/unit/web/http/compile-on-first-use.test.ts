import assert from 'node:assert/strict';
import { test } from 'node:test';
import { schemaControllerCompilingOnFirstUse } from '../../../../src/web/http/compile-on-first-use.js';
import { fields, recordId, requestAjvOptions, text } from '../../../../src/web/http/request-schemas.js';

type Validate = ((data: unknown) => boolean) & { errors?: unknown[] | null };
type Factory = (externalSchemas: unknown, options: unknown) => (route: { schema: unknown; httpPart?: string }) => Validate;
const buildValidator = schemaControllerCompilingOnFirstUse.compilersFactory.buildValidator as unknown as Factory;
const options = { customOptions: requestAjvOptions };

test('two apps in one process share a compiled route schema and each still reads its own refusal; a different schema is compiled on its own', () => {
  const schema = fields({ id: recordId('conversation') }, ['id']);
  const first = buildValidator({}, options)({ schema, httpPart: 'params' });
  const second = buildValidator({}, options)({ schema: structuredClone(schema), httpPart: 'params' });
  const other = buildValidator({}, options)({ schema: fields({ title: text('title', { maxLength: 3 }) }, ['title']), httpPart: 'body' });

  const one = { id: '12' };
  const two = { id: '13' };
  assert.equal(first(one), true);
  assert.equal(second(two), true);
  assert.deepEqual([one, two], [{ id: 12 }, { id: 13 }], 'both coerce the id as the schema says');
  assert.equal(second({ id: 'abc' }), false);
  assert.equal(first({ id: '14' }), true);
  assert.equal(second.errors?.length, 1, 'each app reads its own refusal from the function Fastify holds');
  assert.equal(first.errors, null);
  assert.equal(other({ title: 'long' }), false, 'another schema is not mistaken for the first');
  assert.equal(other({ title: 'ok' }), true);
});
