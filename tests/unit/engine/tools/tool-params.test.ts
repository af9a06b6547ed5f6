import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maximumParamsLength, parseLooseJson, parseToolParams } from '../../../../src/engine/tools/tool-params.js';

/** CPU time of `work`, so a busy machine does not fail the test. */
function cpuMs(work: () => void): number {
  const started = process.cpuUsage();
  work();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000;
}

test('the common shapes keep their meaning', () => {
  assert.deepEqual(parseToolParams('query="from:school" max=5').fields, { query: 'from:school', max: '5' });
  assert.deepEqual(parseToolParams("to='a b' cc=c@d.e").fields, { to: 'a b', cc: 'c@d.e' });
  assert.deepEqual(parseToolParams('2 * 3 = 6').fields, {}, 'arithmetic is not pairs');
  assert.deepEqual(parseToolParams('Time Zone: Europe/Paris').fields, { time_zone: 'Europe/Paris' });
  assert.deepEqual(parseToolParams('https://example.com/a').fields, {}, 'a URL is not a key: value line');
  assert.deepEqual(parseToolParams('subject: "Quoted"\nbody:\n  indented').fields, { subject: 'Quoted', body: 'indented' });
  assert.deepEqual(parseToolParams('"quoted whole"').text, 'quoted whole');
  assert.deepEqual(parseToolParams(`'x' "y z" "unclosed w`).words, ['x', 'y z', '"unclosed', 'w']);
  assert.deepEqual(parseToolParams('{"a": 1, "b": {"c": true}}').fields, { a: '1', b: '{"c":true}' });
});

test('params past the cap are not read', () => {
  const parsed = parseToolParams(`to=a ${'x'.repeat(maximumParamsLength * 4)}`);
  assert.equal(parsed.text.length, maximumParamsLength);
});

// Shapes that made the old patterns backtrack: each must take a few milliseconds, not seconds.
const adversarial: Array<[string, string]> = [
  ['one long word', 'a'.repeat(100_000)],
  ['a long word then =', `${'a'.repeat(100_000)} =`],
  ['many words then =', `${'a '.repeat(50_000)}=`],
  ['endless a=', 'a='.repeat(50_000)],
  ['unclosed quotes', `${'k="v '.repeat(20_000)}`],
  ['mixed unclosed quotes', `${`k='v k="w `.repeat(10_000)}`],
  ['a key then endless spaces', `key${' '.repeat(100_000)}`],
  ['lines of spaces before a colon', `a${' '.repeat(100_000)}:`],
  ['many short lines', 'k: v\n'.repeat(30_000)],
];
for (const [shape, text] of adversarial) {
  test(`parsing is linear: ${shape} (${text.length.toLocaleString('en')} characters)`, () => {
    // Uncapped length here on purpose: the readers themselves must be linear, the cap is a second guard.
    const used = cpuMs(() => {
      for (let index = 0; index < 4; index++) parseToolParams(text);
    });
    assert.ok(used < 1000, `took ${used} ms`);
  });
}

test('loose JSON is read: single quotes, trailing commas, bare keys', () => {
  assert.deepEqual(parseToolParams("{to: 'a@b.c', 'Subject Line': \"Hi\", count: 2,}").fields, { to: 'a@b.c', subject_line: 'Hi', count: '2' });
  assert.deepEqual(parseLooseJson("[1, 2, {a: 'b'},]"), [1, 2, { a: 'b' }]);
  assert.equal(parseLooseJson('{not json at all'), undefined);
  const broken = parseToolParams('{"expression": "1+1"');
  assert.deepEqual(broken.fields, {}, 'what is not JSON falls back to the other shapes');
  assert.equal(broken.text, '{"expression": "1+1"');
});

test('loose JSON parsing is bounded: past the cap it is not parsed, and the worst shapes under it are quick', () => {
  assert.equal(parseLooseJson(`{"a": "${'x'.repeat(maximumParamsLength)}"}`), undefined);
  for (const text of ['['.repeat(maximumParamsLength), '{"a":'.repeat(maximumParamsLength / 5), `{a: '${"\\'".repeat(maximumParamsLength / 2 - 10)}`]) {
    const used = cpuMs(() => parseToolParams(text));
    assert.ok(used < 500, `took ${used} ms`);
  }
});
