import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Ajv } from 'ajv';
import { describeSchemaErrors, fields, isRecordId, maxRecordId, oneOfWords, optionalRecordId, recordId, requestAjvOptions, text } from '../../../../src/web/http/request-schemas.js';

const ajv = new Ajv(requestAjvOptions);

/** Validates `{ id: value }` as an address would carry it; the value after coercion, or the sentence. */
function checkId(value: unknown, schema = recordId('conversation')): { ok: true; id: unknown } | { ok: false; message: string } {
  const validate = ajv.compile(fields({ id: schema }, ['id']));
  const data = { id: value };
  return validate(data) ? { ok: true, id: data.id } : { ok: false, message: describeSchemaErrors(validate.errors ?? [], 'params') };
}

test('a record id is a whole number from 1 to 2^53 − 1 in plain digits; the text of an address becomes a number', () => {
  assert.deepEqual(checkId('1'), { ok: true, id: 1 });
  assert.deepEqual(checkId('42'), { ok: true, id: 42 });
  assert.deepEqual(checkId(String(maxRecordId)), { ok: true, id: maxRecordId });
  assert.deepEqual(checkId(7), { ok: true, id: 7 }, 'a JSON number (a socket command) passes as it is');
});

test('bad ids are refused with a sentence naming the field and the rule, never the value', () => {
  const expected = 'The conversation id in the address must be a whole number from 1 to 9007199254740991.';
  // "Infinity", "-Infinity" and "1e400" are the ones Ajv alone lets through: it coerces them to an
  // infinite number, then skips minimum and maximum. "0x10", " 7" and "1e3" it would read as numbers.
  const bad = ['0', '-1', '1.5', 'abc', String(2 ** 53), '99999999999999999999', '9'.repeat(400), 'Infinity', '-Infinity', '1e400', '1e3', '0x10', ' 7', '007', '', 0, -1, 1.5, 2 ** 53, true, null, ['5']];
  for (const value of bad) {
    const result = checkId(value);
    assert.equal(result.ok, false, `${JSON.stringify(value)} is refused`);
    assert.equal((result as { message: string }).message, expected, JSON.stringify(value));
  }
});

test('an optional id may be empty (a new chat\'s hidden field) and is otherwise a record id', () => {
  const schema = optionalRecordId('conversation');
  assert.deepEqual(checkId('', schema), { ok: true, id: '' });
  assert.deepEqual(checkId('12', schema), { ok: true, id: 12 });
  for (const value of ['0', 'abc', 'Infinity', String(2 ** 53)]) {
    assert.deepEqual(checkId(value, schema), { ok: false, message: 'The conversation id in the address must be empty or a whole number from 1 to 9007199254740991.' }, value);
  }
  assert.ok(isRecordId(schema) && isRecordId(recordId('x')), 'the route table test can find ids');
  assert.ok(!isRecordId(text('title')));
});

test('text, words and required fields: each refusal says which field and what it must be', () => {
  const validate = ajv.compile(fields({ title: text('title'), direction: oneOfWords('version to show', ['earlier', 'later']) }, ['title']));
  const sentence = (data: unknown) => (validate(data) ? 'ok' : describeSchemaErrors(validate.errors ?? [], 'body'));
  assert.equal(sentence({ title: 'Trip' }), 'ok');
  assert.equal(sentence({}), 'The title is missing from the request.');
  // A list is not a title (Fastify's own default would have taken its one item).
  assert.equal(sentence({ title: ['a list'] }), 'The title in the request must be text.');
  assert.equal(sentence({ title: { html: '<b>' } }), 'The title in the request must be text.');
  assert.equal(sentence({ title: 'x', direction: 'sideways' }), 'The version to show in the request must be earlier or later.');
  assert.equal(sentence(null), 'The request has no fields where they were expected.');
  assert.equal(sentence([1, 2]), 'The request has no fields where they were expected.');
  // A field without words of its own still gets a sentence, quoting only the schema's name for it.
  const bare = ajv.compile({ type: 'object', properties: { count: { type: 'integer' } } });
  assert.equal(bare({ count: 'many' }), false);
  assert.equal(describeSchemaErrors(bare.errors ?? [], 'querystring'), 'The "count" field in the address must be integer.');
});
